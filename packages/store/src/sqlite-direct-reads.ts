import type { SqliteDatabase } from 'kysely';
import type { MessagesTable, ToolCallsTable } from './database.js';
import { SessionNotFoundError } from './errors.js';

// The reads a session's first turn makes on SQLite (its history and its tool id map), on
// prepared statements in one synchronous section (issue 50): the same SQL as their kysely
// twins (`message-reads.ts`, `tool-calls.ts`), the session's existence checked first.

const SESSION_EXISTS = 'select "id" from "sessions" where "id" = ?';
const SESSION_MESSAGES =
  'select * from "messages" where "session_id" = ? order by "created_at", "id"';
const PROVIDER_IDS =
  'select "id", "provider", "provider_id" from "tool_calls" where "session_id" = ? and "provider_id" is not null and "provider" is not null order by "created_at", "id"';

/** @throws SessionNotFoundError when the session is not stored. */
function requireSession(sqlite: SqliteDatabase, sessionId: string): void {
  if (sqlite.prepare(SESSION_EXISTS).all([sessionId]).length === 0) {
    throw new SessionNotFoundError(sessionId);
  }
}

/** A session's message rows in load order. @throws SessionNotFoundError. */
export function selectSessionMessages(sqlite: SqliteDatabase, sessionId: string): MessagesTable[] {
  requireSession(sqlite, sessionId);
  return sqlite.prepare(SESSION_MESSAGES).all([sessionId]) as MessagesTable[];
}

/** A session's tool calls that have a provider id, in creation order. @throws SessionNotFoundError. */
export function selectProviderIds(
  sqlite: SqliteDatabase,
  sessionId: string,
): Array<Pick<ToolCallsTable, 'id' | 'provider' | 'provider_id'>> {
  requireSession(sqlite, sessionId);
  return sqlite.prepare(PROVIDER_IDS).all([sessionId]) as Array<
    Pick<ToolCallsTable, 'id' | 'provider' | 'provider_id'>
  >;
}

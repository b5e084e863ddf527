import { CompiledQuery, type Kysely } from 'kysely';
import type { MessagesTable, StoreDatabase, ToolCallsTable } from './database.js';
import { SessionNotFoundError } from './errors.js';

// A session's first reads on PostgreSQL in one statement each (issue 50): its history and its
// tool id map, each joined to the session's row so that one round trip also tells a missing
// session (no row) from an empty one (one row of nulls). The kysely path checks the session
// first and reads after: two round trips each, four before a session's first request.

/** The history read's text. */
export const SESSION_MESSAGES =
  'select "m".*, "s"."id" as "found_session" from "sessions" as "s" left join "messages" as "m" on "m"."session_id" = "s"."id" where "s"."id" = $1 order by "m"."created_at", "m"."id"';
/** The tool id map read's text. */
export const PROVIDER_IDS =
  'select "t"."id", "t"."provider", "t"."provider_id" from "sessions" as "s" left join "tool_calls" as "t" on "t"."session_id" = "s"."id" and "t"."provider_id" is not null and "t"."provider" is not null where "s"."id" = $1 order by "t"."created_at", "t"."id"';

/** A session's message rows in load order. @throws SessionNotFoundError. */
export async function selectSessionMessagesPostgres(
  db: Kysely<StoreDatabase>,
  sessionId: string,
): Promise<MessagesTable[]> {
  const { rows } = await db.executeQuery<MessagesTable & { found_session: string }>(
    CompiledQuery.raw(SESSION_MESSAGES, [sessionId]),
  );
  if (rows.length === 0) throw new SessionNotFoundError(sessionId);
  const out: MessagesTable[] = [];
  for (const { found_session: _found, ...row } of rows) if (row.id !== null) out.push(row);
  return out;
}

/** A session's tool calls that have a provider id, in creation order. @throws SessionNotFoundError. */
export async function selectProviderIdsPostgres(
  db: Kysely<StoreDatabase>,
  sessionId: string,
): Promise<Array<Pick<ToolCallsTable, 'id' | 'provider' | 'provider_id'>>> {
  const { rows } = await db.executeQuery<Pick<ToolCallsTable, 'id' | 'provider' | 'provider_id'>>(
    CompiledQuery.raw(PROVIDER_IDS, [sessionId]),
  );
  if (rows.length === 0) throw new SessionNotFoundError(sessionId);
  return rows.filter((row) => row.id !== null);
}

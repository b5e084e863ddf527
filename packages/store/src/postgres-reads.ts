import { CompiledQuery, type Kysely, type Selectable } from 'kysely';
import type { MessagesTable, SessionsTable, StoreDatabase, ToolCallsTable } from './database.js';
import { SessionNotFoundError } from './errors.js';

// A session's reads on PostgreSQL as fixed texts, prepared once per connection (issue 50): the
// session row every turn starts with. And a session's first reads in one statement each: its history and its
// tool id map, each joined to the session's row so that one round trip also tells a missing
// session (no row) from an empty one (one row of nulls). The kysely path checks the session
// first and reads after: two round trips each, four before a session's first request.

/** The session row's read (every turn's first statement), with the server's clock. */
export const SESSION_ROW =
  'select *, (extract(epoch from clock_timestamp()) * 1000000)::bigint as "store_now" from "sessions" where "id" = $1';
/** The history read's text. */
export const SESSION_MESSAGES =
  'select "m".*, "s"."id" as "found_session" from "sessions" as "s" left join "messages" as "m" on "m"."session_id" = "s"."id" where "s"."id" = $1 order by "m"."created_at", "m"."id"';
/** The tool id map read's text. */
export const PROVIDER_IDS =
  'select "t"."id", "t"."provider", "t"."provider_id" from "sessions" as "s" left join "tool_calls" as "t" on "t"."session_id" = "s"."id" and "t"."provider_id" is not null and "t"."provider" is not null where "s"."id" = $1 order by "t"."created_at", "t"."id"';

/** The session's row and the server's clock (epoch µs), or undefined for no such session. */
export async function selectSessionPostgres(
  db: Kysely<StoreDatabase>,
  sessionId: string,
): Promise<(Selectable<SessionsTable> & { store_now: number | string }) | undefined> {
  const { rows } = await db.executeQuery<
    Selectable<SessionsTable> & { store_now: number | string }
  >(CompiledQuery.raw(SESSION_ROW, [sessionId]));
  return rows[0];
}

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

import type { Database } from 'better-sqlite3';

// The statements of a listing page, on better-sqlite3 directly: the SQL kysely builds for
// `listSessions` (sessions.ts) and its stats (stats.ts), same filters, same order.

/** Where a page starts: after this session in the listing's order. */
export interface PageStart {
  at: number;
  id: string;
}

/** What one page asks for. */
export interface PageQuery {
  limit: number;
  after: PageStart | undefined;
  workspace: string | undefined;
}

/** A message row the stats read: assistant and system messages, oldest first. */
export interface PricedRow {
  id: string;
  session_id: string;
  role: string;
  metadata_json: string;
}

/** A message count of one session. */
export interface CountRow {
  session_id: string;
  n: number | bigint;
}

/** The rows of a page: `limit + 1` sessions at most (one more says there is a next page). */
export function selectSessions(sqlite: Database, query: PageQuery): Record<string, unknown>[] {
  const where: string[] = [];
  const params: Array<string | number> = [];
  if (query.workspace !== undefined) {
    where.push('"workspace_path" = ?');
    params.push(query.workspace);
  }
  if (query.after !== undefined) {
    where.push('("updated_at" < ? or ("updated_at" = ? and "id" < ?))');
    params.push(query.after.at, query.after.at, query.after.id);
  }
  const filter = where.length === 0 ? '' : ` where ${where.join(' and ')}`;
  const sql = `select * from "sessions"${filter} order by "updated_at" desc, "id" desc limit ?`;
  return sqlite.prepare(sql).all([...params, query.limit + 1]) as Record<string, unknown>[];
}

/** The message counts and the priced messages of `ids`, the two statements of the stats. */
export function selectStatsRows(
  sqlite: Database,
  ids: readonly string[],
): { counts: CountRow[]; priced: PricedRow[] } {
  const marks = ids.map(() => '?').join(', ');
  const counts = sqlite
    .prepare(
      `select "session_id", count(*) as "n" from "messages" where "session_id" in (${marks}) group by "session_id"`,
    )
    .all(ids) as CountRow[];
  // usage is on assistant messages and on compaction summaries (system messages)
  const priced = sqlite
    .prepare(
      `select "id", "session_id", "role", "metadata_json" from "messages" where "session_id" in (${marks}) and "role" in (?, ?) order by "created_at", "id"`,
    )
    .all([...ids, 'assistant', 'system']) as PricedRow[];
  return { counts, priced };
}

import { nowEpochMicros } from '@yourtool/core';
import { type Kysely, sql } from 'kysely';
import type { StoreContext } from './context.js';
import type { StoreDatabase } from './database.js';
import { storeNow } from './lease.js';
import {
  ageFor,
  checkPolicy,
  type Policy,
  type PrunedRows,
  type PruneOptions,
  type PruneReport,
  tagsOf,
} from './retention-policy.js';

// Retention (issue 49, decision 0184): expired sessions are found page by page and removed in
// bounded transactions, each re-checking in its own snapshot that a session is still expired
// and free (no live turn lease), so a running turn is never waited for nor loses a row.

interface Candidate {
  id: string;
  updated_at: number;
  tags_json: string | null;
}

/** The tables whose rows go with a session, and the column naming it. */
const BY_SESSION = ['tool_calls', 'tool_approvals', 'messages'] as const;
const BUDGET_TABLES = ['budget_reservations', 'budget_windows', 'budgets'] as const;

type AnyDb = Kysely<Record<string, Record<string, unknown>>>;

const zero = (): PrunedRows => ({
  sessions: 0,
  messages: 0,
  tool_calls: 0,
  tool_approvals: 0,
  budget_rows: 0,
});

/** Removes (or, dry, counts) the sessions the policy expires; see `SqlSessionStore.pruneSessions`. */
export async function pruneSessions(
  ctx: StoreContext,
  options: PruneOptions,
): Promise<PruneReport> {
  const policy = checkPolicy(options);
  const started = performance.now();
  const space = await sqliteSpace(ctx);
  const rows = zero();
  let skipped = 0;
  let batches = 0;
  let pgBytes = 0;
  let cursor: Candidate | null = null;
  const now = nowEpochMicros();
  for (;;) {
    const page = await candidates(ctx.db, policy, now, cursor);
    if (page.length === 0) break;
    cursor = page[page.length - 1] as Candidate;
    const expired = page.filter((row) => isExpired(policy, row, now)).map((row) => row.id);
    if (expired.length === 0) continue;
    const batch = { ids: expired, policy, now };
    const section = (trx: Kysely<StoreDatabase>) => removeBatch(ctx, trx, batch);
    const done = policy.dryRun ? await ctx.read(section) : await ctx.write(section);
    batches += policy.dryRun ? 0 : 1;
    skipped += done.skipped;
    pgBytes += done.bytes;
    for (const key of Object.keys(rows) as Array<keyof PrunedRows>) rows[key] += done.rows[key];
  }
  const freed = policy.dryRun
    ? { bytes: 0, measure: 'none' as const }
    : await freedSpace(ctx, space, pgBytes);
  const total = Object.values(rows).reduce((a, b) => a + b, 0);
  return {
    dry_run: policy.dryRun,
    sessions: rows.sessions,
    rows: { ...rows, total },
    skipped_active: skipped,
    batches,
    freed_bytes: freed.bytes,
    freed_measure: freed.measure,
    duration_ms: Math.round(performance.now() - started),
  };
}

function isExpired(policy: Policy, row: Candidate, now: number): boolean {
  return Number(row.updated_at) < now - ageFor(policy, tagsOf(row.tags_json)) * 1000;
}

/** The next page of sessions idle at least the policy's shortest age, oldest first. */
function candidates(
  db: Kysely<StoreDatabase>,
  policy: Policy,
  now: number,
  after: Candidate | null,
): Promise<Candidate[]> {
  return db
    .selectFrom('sessions')
    .select(['id', 'updated_at', 'tags_json'])
    .where('updated_at', '<', now - policy.shortestMs * 1000)
    .$if(after !== null, (q) =>
      q.where((eb) =>
        eb.or([
          eb('updated_at', '>', (after as Candidate).updated_at),
          eb.and([
            eb('updated_at', '=', (after as Candidate).updated_at),
            eb('id', '>', (after as Candidate).id),
          ]),
        ]),
      ),
    )
    .orderBy('updated_at')
    .orderBy('id')
    .limit(policy.batchSize)
    .execute();
}

/**
 * Inside one transaction: keeps the sessions still idle (their `updated_at` unchanged since the
 * page was read) and without a live lease, PostgreSQL skipping rows a turn's transaction holds
 * locked; then counts their rows and, unless dry, deletes them, children first.
 */
async function removeBatch(
  ctx: StoreContext,
  trx: Kysely<StoreDatabase>,
  batch: { ids: readonly string[]; policy: Policy; now: number },
): Promise<{ rows: PrunedRows; skipped: number; bytes: number }> {
  const { ids, policy, now } = batch;
  const dry = policy.dryRun;
  const postgres = ctx.dialect === 'postgres';
  const free = await trx
    .selectFrom('sessions')
    .select(['id', 'updated_at', 'tags_json'])
    .where('id', 'in', ids)
    .where((eb) =>
      eb.or([
        eb('turn_lease_id', 'is', null),
        eb('turn_lease_expires_at', '<=', storeNow(ctx.dialect)),
      ]),
    )
    .$if(postgres && !dry, (q) => q.forUpdate().skipLocked())
    .execute();
  // a write since the page was read made the session active again: it stays
  const keep = free.filter((row) => isExpired(policy, row, now)).map((row) => row.id);
  const rows = zero();
  if (keep.length === 0) return { rows, skipped: ids.length, bytes: 0 };
  const db = trx as unknown as AnyDb;
  const bytes = postgres && !dry ? await rowBytes(trx, keep) : 0;
  for (const table of BY_SESSION) {
    rows[table] = await removeWhere(db, table, { column: 'session_id', values: keep }, dry);
  }
  const scopes = keep.map((id) => `session:${id}`);
  for (const table of BUDGET_TABLES)
    rows.budget_rows += await removeWhere(db, table, { column: 'scope', values: scopes }, dry);
  rows.sessions = await removeWhere(db, 'sessions', { column: 'id', values: keep }, dry);
  return { rows, skipped: ids.length - keep.length, bytes };
}

/** Deletes (or counts) the rows of `table` whose `column` is one of `values`. */
async function removeWhere(
  db: AnyDb,
  table: string,
  match: { column: string; values: readonly string[] },
  dry: boolean,
): Promise<number> {
  const { column, values } = match;
  if (dry) {
    const row = await db
      .selectFrom(table)
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where(column, 'in', values)
      .executeTakeFirst();
    return Number(row?.n ?? 0);
  }
  const result = await db.deleteFrom(table).where(column, 'in', values).executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** PostgreSQL: the stored size of the rows about to go (sessions, messages, tool calls). */
async function rowBytes(trx: Kysely<StoreDatabase>, ids: readonly string[]): Promise<number> {
  const list = sql.join(ids.map((id) => sql`${id}`));
  const result = await sql<{ n: string | number }>`
    select coalesce((select sum(pg_column_size(m.*)) from messages m where m.session_id in (${list})), 0)
         + coalesce((select sum(pg_column_size(t.*)) from tool_calls t where t.session_id in (${list})), 0)
         + coalesce((select sum(pg_column_size(s.*)) from sessions s where s.id in (${list})), 0) as n`.execute(
    trx,
  );
  return Number(result.rows[0]?.n ?? 0);
}

interface SqliteSpace {
  pageSize: number;
  freePages: number;
}

async function pragma(db: Kysely<StoreDatabase>, name: string): Promise<number> {
  const result = await sql.raw<Record<string, number>>(`pragma ${name}`).execute(db);
  return Number(Object.values(result.rows[0] ?? {})[0] ?? 0);
}

async function sqliteSpace(ctx: StoreContext): Promise<SqliteSpace | null> {
  if (ctx.dialect !== 'sqlite') return null;
  return {
    pageSize: await pragma(ctx.db, 'page_size'),
    freePages: await pragma(ctx.db, 'freelist_count'),
  };
}

/** What the prune gave back; SQLite runs an incremental vacuum where the database enables it. */
async function freedSpace(
  ctx: StoreContext,
  before: SqliteSpace | null,
  pgBytes: number,
): Promise<{ bytes: number; measure: PruneReport['freed_measure'] }> {
  if (before === null) return { bytes: pgBytes, measure: 'postgres_row_size' };
  const freePages = await pragma(ctx.db, 'freelist_count');
  if ((await pragma(ctx.db, 'auto_vacuum')) === 2) {
    const pages = await pragma(ctx.db, 'page_count');
    await ctx.write((trx) => sql`pragma incremental_vacuum`.execute(trx));
    const after = await pragma(ctx.db, 'page_count');
    return { bytes: (pages - after) * before.pageSize, measure: 'sqlite_incremental_vacuum' };
  }
  return {
    bytes: Math.max(0, freePages - before.freePages) * before.pageSize,
    measure: 'sqlite_free_pages',
  };
}

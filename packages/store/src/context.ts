import { type CorruptRowError, type Logger, nowEpochMicros } from '@yourtool/core';
import { type Kysely, sql } from 'kysely';
import { toStoreError } from './checks.js';
import type { Connection } from './connect.js';
import type { StoreDatabase, StoreDialect } from './database.js';
import { InvalidStoreInputError, SessionNotFoundError } from './errors.js';
import { chunks } from './message-input.js';
import { type SqliteDirect, sqliteDirect } from './sqlite-direct.js';

// What every store operation works with. The operations are plain functions, grouped by
// concern (sessions, stats, message writes, message reads, tool calls, migrations), each taking
// a `StoreContext` first; `SqlSessionStore` runs each through its one guard.

/** A section of work inside a transaction, given the transaction's kysely handle. */
export type Section<T> = (db: Kysely<StoreDatabase>) => Promise<T>;

/** What a store operation needs: the database, its dialect, the logger and transactions. */
export interface StoreContext {
  /** The typed kysely instance, outside any transaction. */
  readonly db: Kysely<StoreDatabase>;
  /** `sqlite` or `postgres`. */
  readonly dialect: StoreDialect;
  /** The URL the store was opened with, password redacted. */
  readonly url: string;
  /** PostgreSQL: the schema holding the tables. */
  readonly schema: string | undefined;
  /** Receives the store's WARNs (corrupt rows, unmatched tool results, conflicting ids). */
  readonly logger: Logger;
  /**
   * Runs `section` as one read transaction, so its queries see one snapshot: PostgreSQL
   * `REPEATABLE READ`, SQLite a deferred transaction (WAL: a snapshot from its first read).
   */
  read<T>(section: Section<T>): Promise<T>;
  /**
   * Runs `section` as one write transaction. SQLite: `BEGIN IMMEDIATE` takes the write lock
   * up front, so a transaction never fails half-way on a lock upgrade; other processes wait up
   * to the busy timeout, writers of this thread queue on the file's lock.
   */
  write<T>(section: Section<T>): Promise<T>;
  /** SQLite without plugins: synchronous statements for the hot path (see `sqlite-direct.ts`). */
  readonly direct: SqliteDirect | undefined;
  /** PostgreSQL without plugins: a turn's plain append in one statement (`postgres-append.ts`). */
  readonly postgresAppend: boolean;
}

/** Where a store is, for {@link storeContext}. */
export interface ContextTarget {
  dialect: StoreDialect;
  url: string;
  connection: Connection;
  logger: Logger;
}

/** The context of a store on `target.connection`. */
export function storeContext({ dialect, url, connection, logger }: ContextTarget): StoreContext {
  const { db, writeLock, sqlite, gate } = connection;
  return {
    db,
    dialect,
    url,
    schema: connection.schema,
    logger,
    direct: sqlite && writeLock && gate ? sqliteDirect(gate, sqlite, writeLock) : undefined,
    postgresAppend: dialect === 'postgres' && connection.rawStatements === true,
    read(section) {
      if (dialect === 'postgres') {
        return db.transaction().setIsolationLevel('repeatable read').execute(section);
      }
      return db.transaction().execute(section);
    },
    write(section) {
      if (writeLock === undefined) return db.transaction().execute(section);
      return writeLock.run(() => db.connection().execute((conn) => immediate(conn, section)));
    },
  };
}

/** Runs `section` on `conn` between `BEGIN IMMEDIATE` and `COMMIT`, rolling back on failure. */
async function immediate<T>(conn: Kysely<StoreDatabase>, section: Section<T>): Promise<T> {
  await sql`begin immediate`.execute(conn);
  let result: T;
  try {
    result = await section(conn);
    await sql`commit`.execute(conn);
  } catch (error) {
    await sql`rollback`.execute(conn).catch(() => undefined);
    throw error;
  }
  return result;
}

/**
 * Runs `run` so that whatever fails in it surfaces as a `StoreError`: the store's own errors
 * (and aborts) as they are, anything from the driver or the database as a `StoreDriverError`
 * naming `operation`, its code and cause, `secrets` redacted.
 */
export async function guarded<T>(
  operation: string,
  secrets: readonly string[],
  run: () => Promise<T>,
): Promise<T> {
  try {
    return await run();
  } catch (error) {
    throw toStoreError(operation, error, secrets);
  }
}

/** Checks a page or batch size: an integer from 1 to `max`, `fallback` when absent. */
export function checkLimit(
  value: number | undefined,
  fallback: number,
  max: number,
  path: string,
): number {
  const limit = value ?? fallback;
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > max) {
    throw new InvalidStoreInputError('options', [
      { path, message: `must be an integer from 1 to ${max}, got ${value}` },
    ]);
  }
  return limit;
}

/** @throws SessionNotFoundError naming the first of `ids` that is not stored. */
export async function requireSessions(
  db: Kysely<StoreDatabase>,
  ids: readonly string[],
): Promise<void> {
  for (const batch of chunks(ids, 1000)) {
    const found = await db.selectFrom('sessions').select('id').where('id', 'in', batch).execute();
    if (found.length === batch.length) continue;
    const present = new Set(found.map((r) => r.id));
    const missing = batch.find((id) => !present.has(id));
    throw new SessionNotFoundError(missing ?? '');
  }
}

/**
 * Bumps `updated_at` and `revision` of the sessions; resolves to each session's new revision,
 * by id (the statement returns them: no read of its own). With `require`, a session that is
 * not there fails the transaction with {@link SessionNotFoundError}.
 */
export async function touchSessions(
  trx: Kysely<StoreDatabase>,
  ids: readonly string[],
  require = false,
): Promise<Map<string, number>> {
  const now = nowEpochMicros();
  const revisions = new Map<string, number>();
  for (const batch of chunks(ids, 1000)) {
    const rows = await trx
      .updateTable('sessions')
      .set((eb) => ({ updated_at: now, revision: eb('revision', '+', 1) }))
      .where('id', 'in', batch)
      .returning(['id', 'revision'])
      .execute();
    for (const row of rows) revisions.set(row.id, Number(row.revision));
    if (require && rows.length < batch.length) {
      await requireSessions(trx, batch);
    }
  }
  return revisions;
}

/** Logs an unreadable row as a WARN naming its table and id. */
export function reportCorrupt(logger: Logger, error: CorruptRowError): void {
  logger.warn({ event: 'corrupt_row', table: error.table, row_id: error.rowId }, error.message);
}

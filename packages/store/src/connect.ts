import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { Logger } from '@yourtool/core';
import { redactSecrets } from '@yourtool/core/adapter';
import {
  CompiledQuery,
  Kysely,
  type KyselyPlugin,
  PostgresDialect,
  type SqliteDatabase,
} from 'kysely';
import type { StoreDatabase } from './database.js';
import { InvalidStoreInputError, StoreConnectionError, StoreDependencyError } from './errors.js';
import { AsyncLock, fileLock } from './lock.js';
import { nameStoreStatements } from './postgres-named.js';
import { GatedSqliteDialect, SqliteGate } from './sqlite-gate.js';

/** How hard SQLite works to keep committed transactions across crashes (PRAGMA synchronous). */
export type SqliteSynchronous = 'normal' | 'full';

/** Pool settings for PostgreSQL (a subset of `pg`'s pool options). */
export interface PostgresPoolOptions {
  /** Most connections the pool opens; default 10. */
  max?: number;
  /** How long to wait for a connection before failing, in ms; default 10000. */
  connectionTimeoutMillis?: number;
  /** How long an idle connection stays open, in ms; default 10000. */
  idleTimeoutMillis?: number;
  /** TLS: `true`, or options passed to `tls.connect`. */
  ssl?: boolean | { rejectUnauthorized?: boolean; ca?: string; cert?: string; key?: string };
  /** Shown in `pg_stat_activity`; default `yourtool-store`. */
  applicationName?: string;
}

/** A database handle ready for the store. */
export interface Connection {
  db: Kysely<StoreDatabase>;
  /** SQLite: the lock writers of this file take first (see {@link fileLock}). */
  writeLock?: AsyncLock;
  /** SQLite: who holds the one connection, kysely's queries and the direct path alike. */
  gate?: SqliteGate;
  /**
   * SQLite without plugins: the connection `db` runs on, for the store's hot path to run
   * prepared statements on directly (plugins see every query, so with them it is absent).
   */
  sqlite?: SqliteDatabase;
  /** PostgreSQL: the schema holding the tables. */
  schema?: string;
  /**
   * PostgreSQL without plugins: the hot path may send statements kysely did not build (plugins
   * see every query, so with them it is false).
   */
  rawStatements?: boolean;
  /** Texts redacted from the messages of driver errors (the URL, its password). */
  secrets?: readonly string[];
}

/** How many compiled SQLite statements a store keeps for reuse. */
export const SQLITE_STATEMENT_CACHE_SIZE = 100;

/**
 * The database handle kysely gets for a better-sqlite3 connection: `prepare` hands back the
 * statement compiled for the same SQL before, instead of compiling it again for every query
 * (kysely prepares each query it runs, which was the largest single cost of an append: see
 * docs/performance.md). At most `capacity` statements are kept, the least recently used
 * dropped first. A statement still busy (an open `iterate`) is never handed out twice: the
 * caller gets a fresh one. SQLite re-prepares a kept statement by itself after a schema change.
 */
export function cachingStatements(
  sqlite: import('better-sqlite3').Database,
  capacity = SQLITE_STATEMENT_CACHE_SIZE,
): SqliteDatabase {
  const statements = new Map<string, import('better-sqlite3').Statement>();
  return {
    prepare(sql) {
      const kept = statements.get(sql);
      if (kept && !kept.busy) {
        // most recently used last
        statements.delete(sql);
        statements.set(sql, kept);
        return kept;
      }
      const statement = sqlite.prepare(sql);
      if (kept) return statement;
      statements.set(sql, statement);
      if (statements.size > capacity) {
        const oldest = statements.keys().next();
        if (!oldest.done) statements.delete(oldest.value);
      }
      return statement;
    },
    close() {
      statements.clear();
      sqlite.close();
    },
  };
}

/**
 * better-sqlite3, loaded when a SQLite store is opened.
 * @throws StoreDependencyError when it is not installed.
 */
export async function loadSqliteDriver(): Promise<typeof import('better-sqlite3')> {
  try {
    return (await import('better-sqlite3')).default;
  } catch (cause) {
    throw new StoreDependencyError('better-sqlite3', 'a SQLite store', { cause });
  }
}

/** Default SQLite busy timeout: how long a writer waits for another writer's lock. */
export const DEFAULT_BUSY_TIMEOUT_MS = 5000;

/**
 * Opens a SQLite file (or `:memory:`) with better-sqlite3: WAL journal (readers never block the
 * writer), `busy_timeout` so concurrent writers wait instead of failing, `foreign_keys = ON`,
 * and `synchronous` NORMAL (default) or FULL. See docs/decisions/0017.
 */
export async function connectSqlite(
  filename: string,
  options: {
    busyTimeoutMs?: number;
    synchronous?: SqliteSynchronous;
    plugins?: KyselyPlugin[];
    redactedUrl: string;
    /** `false`: the file must exist (no file, no directory is created). Default `true`. */
    create?: boolean;
  },
): Promise<Connection> {
  const Database = await loadSqliteDriver();
  const memory = filename === ':memory:';
  const path = memory ? filename : resolve(filename);
  const busyTimeout = options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS;
  if (!Number.isSafeInteger(busyTimeout) || busyTimeout < 0) {
    throw new InvalidStoreInputError('options', [
      { path: 'busyTimeoutMs', message: `must be a non-negative integer, got ${busyTimeout}` },
    ]);
  }
  const synchronous = options.synchronous ?? 'normal';
  if (synchronous !== 'normal' && synchronous !== 'full') {
    throw new InvalidStoreInputError('options', [
      { path: 'synchronous', message: `must be "normal" or "full", got "${synchronous}"` },
    ]);
  }
  let sqlite: import('better-sqlite3').Database;
  try {
    const create = options.create !== false;
    if (!memory && create) mkdirSync(dirname(path), { recursive: true });
    sqlite = new Database(path, { fileMustExist: !memory && !create });
  } catch (cause) {
    throw new StoreConnectionError(options.redactedUrl, (cause as Error).message, { cause });
  }
  try {
    // The busy timeout first: switching to WAL takes a lock another process may hold.
    sqlite.pragma(`busy_timeout = ${busyTimeout}`);
    if (!memory) {
      const mode = sqlite.pragma('journal_mode = WAL', { simple: true });
      if (String(mode).toLowerCase() !== 'wal') {
        throw new Error(`the file refused WAL mode (journal_mode is ${String(mode)})`);
      }
    }
    sqlite.pragma('foreign_keys = ON');
    sqlite.pragma(`synchronous = ${synchronous.toUpperCase()}`);
  } catch (cause) {
    sqlite.close();
    throw new StoreConnectionError(options.redactedUrl, (cause as Error).message, { cause });
  }
  const database = cachingStatements(sqlite);
  const plugins = options.plugins ?? [];
  const gate = new SqliteGate();
  const db = new Kysely<StoreDatabase>({
    dialect: new GatedSqliteDialect({ database }, gate),
    plugins,
  });
  return {
    db,
    gate,
    writeLock: memory ? new AsyncLock() : fileLock(path),
    ...(plugins.length === 0 ? { sqlite: database } : {}),
  };
}

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;
const PG_INT8_OID = 20;

/** BIGINT columns hold epoch microseconds and counts: numbers, checked to be exact. */
function parseInt8(text: string): number {
  const value = Number(text);
  if (!Number.isSafeInteger(value)) {
    throw new RangeError(`BIGINT ${text} does not fit a JavaScript number exactly`);
  }
  return value;
}

/**
 * Opens a PostgreSQL pool with `pg` (an optional peer dependency, loaded only here). Every
 * connection's `search_path` is the store's schema, so each deployment, tenant or test can
 * keep its tables apart.
 */
export async function connectPostgres(
  connectionString: string,
  options: {
    schema?: string;
    pool?: PostgresPoolOptions;
    plugins?: KyselyPlugin[];
    logger: Logger;
    redactedUrl: string;
    secrets: string[];
  },
): Promise<Connection> {
  const schema = options.schema ?? 'public';
  if (!SCHEMA_NAME.test(schema)) {
    throw new InvalidStoreInputError('options', [
      {
        path: 'schema',
        message: `"${schema}" must be lower-case letters, digits and "_" (at most 63), not starting with a digit`,
      },
    ]);
  }
  let pg: typeof import('pg');
  try {
    const module: unknown = await import('pg');
    pg = ((module as { default?: unknown }).default ?? module) as typeof import('pg');
  } catch (cause) {
    throw new StoreDependencyError('pg', 'a PostgreSQL store', { cause });
  }
  const poolOptions = options.pool ?? {};
  const pool = new pg.Pool({
    connectionString,
    max: poolOptions.max ?? 10,
    connectionTimeoutMillis: poolOptions.connectionTimeoutMillis ?? 10_000,
    idleTimeoutMillis: poolOptions.idleTimeoutMillis ?? 10_000,
    application_name: poolOptions.applicationName ?? 'yourtool-store',
    ...(poolOptions.ssl === undefined ? {} : { ssl: poolOptions.ssl }),
    types: {
      getTypeParser: ((oid: number, format?: string) =>
        oid === PG_INT8_OID
          ? parseInt8
          : pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
    },
  });
  const rawStatements = (options.plugins ?? []).length === 0;
  // the store's fixed statements prepared once per connection (plugins see kysely's texts only)
  if (rawStatements) pool.on('connect', (client) => nameStoreStatements(client as never));
  // An idle connection dropped by the server emits 'error' on the pool; unhandled, that would
  // crash the process. The pool replaces the connection; the store only reports it.
  pool.on('error', (error) => {
    options.logger.warn(
      { event: 'store_connection_error', url: options.redactedUrl },
      redactSecrets(`PostgreSQL connection error: ${error.message}`, options.secrets),
    );
  });
  const db = new Kysely<StoreDatabase>({
    dialect: new PostgresDialect({
      pool,
      onCreateConnection: async (connection) => {
        await connection.executeQuery(CompiledQuery.raw(`set search_path to "${schema}"`));
      },
    }),
    plugins: options.plugins ?? [],
  });
  return { db, schema, secrets: options.secrets, rawStatements };
}

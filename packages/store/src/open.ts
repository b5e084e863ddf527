import { isYourtoolError, type Logger, silentLogger } from '@yourtool/core';
import { redactSecrets } from '@yourtool/core/adapter';
import { type KyselyPlugin, sql } from 'kysely';
import {
  connectPostgres,
  connectSqlite,
  type PostgresPoolOptions,
  type SqliteSynchronous,
} from './connect.js';
import { StoreConnectionError } from './errors.js';
import { SqlSessionStore } from './store.js';
import { parseStoreUrl, redactStoreUrl } from './url.js';

/** Options of {@link openStore}. */
export interface OpenStoreOptions {
  /**
   * Receives WARNs: tolerated unknown blocks or fields on read (core's `parseMessage`),
   * unreadable rows, tool results answering no stored call. Pino-compatible; silent by default.
   */
  logger?: Logger;
  /** Run pending migrations while opening (default `true`). */
  migrate?: boolean;
  /** SQLite: how long a writer waits for another writer, in ms (default 5000). */
  busyTimeoutMs?: number;
  /**
   * SQLite: `'normal'` (default) keeps every committed transaction when the process crashes
   * and may lose the last ones on power loss or OS crash; `'full'` also survives those, at an
   * fsync per commit. See docs/decisions/0017.
   */
  synchronous?: SqliteSynchronous;
  /**
   * PostgreSQL: the schema holding the tables (created if missing). Default: the URL's
   * `?schema=`, else `public`.
   */
  schema?: string;
  /** PostgreSQL: pool settings. */
  pool?: PostgresPoolOptions;
  /**
   * kysely plugins run on every query (e.g. for tracing). They must not rename tables,
   * columns or results.
   */
  plugins?: KyselyPlugin[];
}

/**
 * Opens a store by URL and runs pending migrations:
 *
 * - `sqlite:./path/app.db` (directories are created), `sqlite::memory:`: SQLite through
 *   better-sqlite3, WAL mode, 5 s busy timeout, foreign keys on;
 * - `postgres://user:password@host:5432/db?schema=name`: PostgreSQL through `pg` (install it:
 *   it is an optional peer dependency), tables in `schema` (default `public`).
 *
 * @throws UnsupportedStoreUrlError, StoreConnectionError (never showing a password),
 * StoreDependencyError when `pg` is missing.
 */
export async function openStore(
  url: string,
  options: OpenStoreOptions = {},
): Promise<SqlSessionStore> {
  const location = parseStoreUrl(url);
  const redacted = redactStoreUrl(url);
  const logger = options.logger ?? silentLogger;
  let store: SqlSessionStore;
  if (location.dialect === 'sqlite') {
    const connection = await connectSqlite(location.filename, {
      redactedUrl: redacted,
      ...(options.busyTimeoutMs === undefined ? {} : { busyTimeoutMs: options.busyTimeoutMs }),
      ...(options.synchronous === undefined ? {} : { synchronous: options.synchronous }),
      ...(options.plugins === undefined ? {} : { plugins: options.plugins }),
    });
    store = new SqlSessionStore('sqlite', redacted, connection, logger);
  } else {
    const secrets = [location.password ?? '', url];
    const schema = options.schema ?? location.schema;
    const connection = await connectPostgres(location.connectionString, {
      logger,
      redactedUrl: redacted,
      secrets,
      ...(schema === undefined ? {} : { schema }),
      ...(options.pool === undefined ? {} : { pool: options.pool }),
      ...(options.plugins === undefined ? {} : { plugins: options.plugins }),
    });
    store = new SqlSessionStore('postgres', redacted, connection, logger);
    try {
      await sql`select 1`.execute(connection.db);
    } catch (cause) {
      await store.close().catch(() => undefined);
      throw new StoreConnectionError(
        redacted,
        redactSecrets((cause as Error).message ?? String(cause), secrets),
        { cause },
      );
    }
  }
  if (options.migrate !== false) {
    try {
      await store.migrate();
    } catch (error) {
      await store.close().catch(() => undefined);
      if (isYourtoolError(error)) throw error;
      throw new StoreConnectionError(redacted, `migrating: ${(error as Error).message}`, {
        cause: error,
      });
    }
  }
  return store;
}

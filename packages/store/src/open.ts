import { resolve } from 'node:path';
import { isYourtoolError, type Logger, silentLogger } from '@yourtool/core';
import { redactSecrets } from '@yourtool/core/adapter';
import { type KyselyPlugin, sql } from 'kysely';
import {
  connectPostgres,
  connectSqlite,
  type PostgresPoolOptions,
  type SqliteSynchronous,
} from './connect.js';
import { StoreConnectionError, StoreNotFoundError } from './errors.js';
import { postgresSchemaState, requireStoreSchema, sqliteSchemaState } from './schema-state.js';
import { SqlSessionStore } from './store.js';
import { parseStoreUrl, redactStoreUrl, type StoreLocation } from './url.js';

/** Options of {@link openStore}. */
export interface OpenStoreOptions {
  /**
   * Receives WARNs: tolerated unknown blocks or fields on read (core's `parseMessage`),
   * unreadable rows, tool results answering no stored call. Pino-compatible; silent by default.
   */
  logger?: Logger;
  /** Run pending migrations while opening (default `true`). */
  migrate?: boolean;
  /**
   * Whether opening may create the store (default `true`: a missing SQLite file is created, a
   * missing PostgreSQL schema too, and the migrations add the tables to whatever database is
   * there). `false` opens only an existing yourtool store and changes nothing to find out: a
   * missing SQLite file or PostgreSQL schema (and `sqlite::memory:`, always new) throws
   * `StoreNotFoundError`; a database without the store's migrations (another application's
   * file, an empty one, a file that is not SQLite) throws `NotAStoreError`; a store written by
   * a newer version throws `StoreSchemaVersionError`, and so does an older one when `migrate`
   * is `false` (with `migrate`, it is upgraded). A SQLite file is inspected by a connection
   * that only reads, before the journal mode is set. See docs/decisions/0150.
   */
  create?: boolean;
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

/** SQLite, `create: false`: throws unless the file is a yourtool store (see `create`). */
async function checkSqliteStore(filename: string, url: string, migrate: boolean): Promise<void> {
  if (filename === ':memory:') {
    throw new StoreNotFoundError(url, filename, 'an in-memory database is always new');
  }
  const path = resolve(filename);
  requireStoreSchema(await sqliteSchemaState(path, url), { url, location: path }, migrate);
}

/** A PostgreSQL store's URL for people: password redacted, its schema as `?schema=`. */
function postgresLocation(url: string, schema: string | undefined): string {
  try {
    const parsed = new URL(url);
    parsed.searchParams.set('schema', schema ?? 'public');
    return redactStoreUrl(parsed.toString());
  } catch {
    return redactStoreUrl(url);
  }
}

/** Runs `step` on a store just opened; on failure closes it, and types an untyped error. */
async function settingUp(
  store: SqlSessionStore,
  what: string,
  step: () => Promise<unknown>,
  secrets: readonly string[] = [],
): Promise<void> {
  try {
    await step();
  } catch (error) {
    await store.close().catch(() => undefined);
    if (isYourtoolError(error)) throw error;
    const message = redactSecrets((error as Error)?.message ?? String(error), [...secrets]);
    throw new StoreConnectionError(store.url, what ? `${what}: ${message}` : message, {
      cause: error,
    });
  }
}

async function openSqlite(
  filename: string,
  redacted: string,
  options: OpenStoreOptions,
  logger: Logger,
): Promise<SqlSessionStore> {
  const create = options.create !== false;
  if (!create) await checkSqliteStore(filename, redacted, options.migrate !== false);
  const connection = await connectSqlite(filename, {
    redactedUrl: redacted,
    create,
    ...(options.busyTimeoutMs === undefined ? {} : { busyTimeoutMs: options.busyTimeoutMs }),
    ...(options.synchronous === undefined ? {} : { synchronous: options.synchronous }),
    ...(options.plugins === undefined ? {} : { plugins: options.plugins }),
  });
  return new SqlSessionStore('sqlite', redacted, connection, logger);
}

async function openPostgres(
  url: string,
  location: Extract<StoreLocation, { dialect: 'postgres' }>,
  options: OpenStoreOptions,
  logger: Logger,
): Promise<SqlSessionStore> {
  const redacted = redactStoreUrl(url);
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
  const store = new SqlSessionStore('postgres', redacted, connection, logger);
  await settingUp(store, '', () => sql`select 1`.execute(connection.db), secrets);
  if (options.create === false) {
    const where = { url: redacted, location: postgresLocation(url, connection.schema) };
    await settingUp(
      store,
      'inspecting the schema',
      async () => {
        const state = await postgresSchemaState(
          connection.db,
          connection.schema ?? 'public',
          where,
        );
        requireStoreSchema(state, where, options.migrate !== false);
      },
      secrets,
    );
  }
  return store;
}

/**
 * Opens a store by URL and runs pending migrations:
 *
 * - `sqlite:./path/app.db` (directories are created), `sqlite::memory:`: SQLite through
 *   better-sqlite3, WAL mode, 5 s busy timeout, foreign keys on;
 * - `postgres://user:password@host:5432/db?schema=name`: PostgreSQL through `pg` (install it:
 *   it is an optional peer dependency), tables in `schema` (default `public`).
 *
 * With `create: false` it opens only an existing yourtool store, changing nothing to find out
 * (see {@link OpenStoreOptions.create}).
 *
 * @throws UnsupportedStoreUrlError, StoreConnectionError (never showing a password),
 * StoreDependencyError when `pg` is missing; with `create: false`, StoreNotFoundError,
 * NotAStoreError and StoreSchemaVersionError.
 */
export async function openStore(
  url: string,
  options: OpenStoreOptions = {},
): Promise<SqlSessionStore> {
  const location = parseStoreUrl(url);
  const logger = options.logger ?? silentLogger;
  const store =
    location.dialect === 'sqlite'
      ? await openSqlite(location.filename, redactStoreUrl(url), options, logger)
      : await openPostgres(url, location, options, logger);
  if (options.migrate !== false) await settingUp(store, 'migrating', () => store.migrate());
  return store;
}

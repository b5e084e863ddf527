import type { Logger } from '@yourtool/core';
import type { SessionsRow } from './session-row.js';

// Every path of the listing that is not a well-formed store read in full: the store's own
// modules, imported only then, so that the errors, warnings and corner cases are exactly those
// of `openStore` and `SqlSessionStore.listSessions` (and a plain listing loads none of them).

/** The URL as the store's errors show it (password and API-key-shaped tokens redacted). */
async function redacted(url: string): Promise<string> {
  return (await import('../url.js')).redactStoreUrl(url);
}

/**
 * Throws what `openStore(url, { create: false, migrate: false })` throws for the SQLite file at
 * `path` (StoreNotFoundError, NotAStoreError, StoreSchemaVersionError); returns when it is a
 * store at the current schema after all.
 */
export async function requireCurrentStore(path: string, url: string): Promise<void> {
  const [{ requireStoreSchema, sqliteSchemaState }, shown] = await Promise.all([
    import('../schema-state.js'),
    redacted(url),
  ]);
  requireStoreSchema(await sqliteSchemaState(path, shown), { url: shown, location: path }, false);
}

/** The StoreNotFoundError of `sqlite::memory:` (an in-memory database is always new). */
export async function memoryStoreError(url: string): Promise<Error> {
  const { StoreNotFoundError } = await import('../errors.js');
  return new StoreNotFoundError(
    await redacted(url),
    ':memory:',
    'an in-memory database is always new',
  );
}

/** The UnsupportedStoreUrlError of a URL that is not `sqlite:<file>`. */
export async function notSqliteError(url: string): Promise<Error> {
  const { parseStoreUrl } = await import('../url.js');
  parseStoreUrl(url); // throws for a URL of no store
  const { UnsupportedStoreUrlError } = await import('../errors.js');
  return new UnsupportedStoreUrlError(
    await redacted(url),
    'the listing reads SQLite files; open a PostgreSQL store with openStore',
  );
}

/** A StoreConnectionError: the file is a store, but could not be opened or read. */
export async function connectionError(url: string, cause: unknown): Promise<Error> {
  const { StoreConnectionError } = await import('../errors.js');
  return new StoreConnectionError(await redacted(url), (cause as Error)?.message ?? String(cause), {
    cause,
  });
}

/** The StoreError of a listing used after `close()`. */
export async function closedError(url: string): Promise<Error> {
  const { StoreError } = await import('../errors.js');
  return new StoreError('store_closed', `the store ${await redacted(url)} is closed`);
}

/** An error of a listing page as the store's guard types it (StoreDriverError, ...). */
export async function pageError(error: unknown): Promise<unknown> {
  return (await import('../checks.js')).toStoreError('listSessions', error, []);
}

/**
 * Checks the listing's options as `listSessions` does; returns when they are valid.
 * @throws InvalidStoreInputError naming the option.
 */
export async function checkOptions(limit: number | undefined, workspace: unknown, cursor: unknown) {
  const [{ checkKey }, { checkLimit }, { decodeCursor }] = await Promise.all([
    import('../checks.js'),
    import('../context.js'),
    import('../cursor.js'),
  ]);
  if (workspace !== undefined) checkKey(workspace, 'workspace_path');
  checkLimit(limit, 50, 1000, 'limit');
  if (cursor !== undefined) decodeCursor(cursor as string);
}

/**
 * Reads rows the listing's own check left to the store's reader: each session, or a WARN on
 * `logger` for a row that cannot be read (as `listSessions` skips it).
 */
export async function readOddSessions(
  rows: ReadonlyArray<SessionsRow>,
  logger: Logger,
): Promise<Map<SessionsRow, import('@yourtool/core').SessionRecord>> {
  const [{ rowToSession }, { reportCorrupt }, { CorruptRowError }] = await Promise.all([
    import('../rows.js'),
    import('../context.js'),
    import('@yourtool/core'),
  ]);
  const read = new Map<SessionsRow, import('@yourtool/core').SessionRecord>();
  for (const row of rows) {
    try {
      read.set(row, rowToSession(row as unknown as Parameters<typeof rowToSession>[0]));
    } catch (error) {
      if (!(error instanceof CorruptRowError)) throw error;
      reportCorrupt(logger, error);
    }
  }
  return read;
}

/** WARNs on `logger` for message rows whose metadata is not JSON, as the store's stats give. */
export async function reportUnreadableMetadata(
  rows: ReadonlyArray<{ id: string; cause: unknown }>,
  logger: Logger,
): Promise<void> {
  const [{ reportCorrupt }, { CorruptRowError }] = await Promise.all([
    import('../context.js'),
    import('@yourtool/core'),
  ]);
  for (const { id, cause } of rows) {
    reportCorrupt(
      logger,
      new CorruptRowError('messages', id, 'metadata_json is not valid JSON', { cause }),
    );
  }
}

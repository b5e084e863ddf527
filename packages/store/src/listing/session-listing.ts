import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Logger, SessionRecord } from '@yourtool/core';
import type { Database } from 'better-sqlite3';
import type { ListSessionsOptions } from '../sessions.js';
import { selectSessions, selectStatsRows } from './page-query.js';
import { noStats, pageStats } from './page-stats.js';
import { readSessionRow, type SessionsRow } from './session-row.js';
import * as slow from './store-errors.js';

// A read-only listing of a SQLite store's sessions on better-sqlite3's prepared statements,
// loading neither kysely nor @yourtool/core (zod): what `yourtool sessions list` needs and no
// more (docs/decisions/0197). What it does not meet on a well-formed store (an error, an odd
// row, an older or newer schema) it hands to the store's own modules, imported only then.

/** The migrations of the store's current SQLite schema (a test compares them with the store's). */
export const LISTING_MIGRATIONS: readonly string[] = [
  '0001_canonical_tables',
  '0002_session_revision',
  '0003_session_turn_lease',
  '0004_tool_approvals',
  '0005_budgets',
  '0006_session_owners',
  '0007_shared_availability',
];

/** A page of {@link SessionListing.listSessions}, as `SqlSessionStore.listSessions` gives it. */
export interface SessionPage {
  sessions: SessionRecord[];
  next_cursor: string | null;
}

/** Options of {@link openSessionListing}. */
export interface SessionListingOptions {
  /** Receives a WARN for each row that cannot be read (skipped, as the store skips it). */
  logger?: Logger;
  /** How long a read waits for another connection's lock, in ms (default 5000). */
  busyTimeoutMs?: number;
}

const SILENT: Logger = { warn() {} };

/** The file of a `sqlite:` URL (`:memory:` included), or undefined for any other URL. */
export function sqliteStoreFile(url: string): string | undefined {
  if (!url.startsWith('sqlite:')) return undefined;
  const file = url.slice('sqlite:'.length);
  const path = file.startsWith('//') ? file.slice(2) : file;
  return path === '' ? undefined : path;
}

/** A cursor's position, or undefined when it is not one this store made. */
function positionOf(cursor: string): { at: number; id: string } | undefined {
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (Array.isArray(value) && value.length === 2 && Number.isSafeInteger(value[0])) {
      if (typeof value[1] === 'string') return { at: value[0] as number, id: value[1] };
    }
  } catch {
    // the store's decoder names the problem
  }
  return undefined;
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Whether a text column can hold `text` (no NUL, no lone surrogate); else the store says why. */
function storable(text: string): boolean {
  return !text.includes('\u0000') && !LONE_SURROGATE.test(text);
}

/** Whether the options are ones this listing reads without the store's checks. */
function plainOptions(options: ListSessionsOptions): boolean {
  const { limit, workspace_path: workspace, cursor } = options;
  if (limit !== undefined && !(Number.isSafeInteger(limit) && limit >= 1 && limit <= 1000)) {
    return false;
  }
  if (workspace !== undefined && !(typeof workspace === 'string' && storable(workspace))) {
    return false;
  }
  return cursor === undefined || (typeof cursor === 'string' && positionOf(cursor) !== undefined);
}

/** Sessions of one SQLite store, most recently updated first, read on one connection. */
export class SessionListing {
  readonly #sqlite: Database;
  readonly #url: string;
  readonly #logger: Logger;
  #closed = false;

  /** Use {@link openSessionListing}. */
  constructor(sqlite: Database, url: string, logger: Logger) {
    this.#sqlite = sqlite;
    this.#url = url;
    this.#logger = logger;
  }

  /**
   * A page of sessions, as `SqlSessionStore.listSessions(options)` gives it: same order, same
   * cursors, same `stats`, a row that cannot be read skipped with a WARN.
   * @throws InvalidStoreInputError for a bad limit, cursor or workspace; StoreDriverError.
   */
  async listSessions(options: ListSessionsOptions = {}): Promise<SessionPage> {
    if (this.#closed) throw await slow.closedError(this.#url);
    if (!plainOptions(options)) {
      await slow.checkOptions(options.limit, options.workspace_path, options.cursor);
    }
    const limit = options.limit ?? 50;
    try {
      const rows = selectSessions(this.#sqlite, {
        limit,
        after: options.cursor === undefined ? undefined : positionOf(options.cursor),
        workspace: options.workspace_path,
      });
      const page = rows.slice(0, limit);
      const sessions = await this.#read(page);
      const last = page.at(-1);
      const next_cursor =
        rows.length > limit && last ? cursorAfter(last.updated_at, last.id) : null;
      if (options.withStats && sessions.length > 0) await this.#addStats(sessions);
      return { sessions, next_cursor };
    } catch (error) {
      throw await slow.pageError(error);
    }
  }

  /** The sessions of `rows`, in order; rows this listing does not read go to the store's reader. */
  async #read(rows: readonly SessionsRow[]): Promise<SessionRecord[]> {
    const quick = rows.map(readSessionRow);
    const odd = rows.filter((_, i) => quick[i] === undefined);
    const slowly = odd.length === 0 ? undefined : await slow.readOddSessions(odd, this.#logger);
    const sessions: SessionRecord[] = [];
    rows.forEach((row, i) => {
      const session = quick[i] ?? slowly?.get(row);
      if (session) sessions.push(session);
    });
    return sessions;
  }

  async #addStats(sessions: SessionRecord[]): Promise<void> {
    const ids = sessions.map((session) => session.id);
    const { counts, priced } = selectStatsRows(this.#sqlite, ids);
    const { stats, unreadable } = pageStats(counts, priced);
    if (unreadable.length > 0) await slow.reportUnreadableMetadata(unreadable, this.#logger);
    for (const session of sessions) session.stats = stats.get(session.id) ?? noStats();
  }

  /** Closes the connection (a reader that closes last removes the `-wal` and `-shm` files). */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#sqlite.close();
  }
}

/** The store's cursor after a row: base64url JSON of its time and id. */
function cursorAfter(updatedAt: unknown, id: unknown): string {
  return Buffer.from(JSON.stringify([Number(updatedAt), id]), 'utf8').toString('base64url');
}

/** Whether the database's applied migrations are exactly {@link LISTING_MIGRATIONS}. */
function isCurrent(sqlite: Database): boolean {
  const tables = sqlite
    .prepare("select name from sqlite_master where type = 'table' and name = 'kysely_migration'")
    .pluck()
    .all();
  if (tables.length === 0) return false;
  const applied = sqlite.prepare('select name from "kysely_migration"').pluck().all() as string[];
  const done = new Set(applied);
  return done.size === LISTING_MIGRATIONS.length && LISTING_MIGRATIONS.every((n) => done.has(n));
}

/**
 * Opens the SQLite store of `url` (`sqlite:<file>`) for listing its sessions, as `openStore(url,
 * { create: false, migrate: false })` would open it for reading: the file must be a yourtool
 * store at the current schema, and nothing in it changes (no pragma is written: the journal mode
 * stays as it is).
 * @throws StoreNotFoundError, NotAStoreError, StoreSchemaVersionError, as `openStore` throws
 * them; UnsupportedStoreUrlError for a URL that is not `sqlite:<file>`; StoreConnectionError.
 */
export async function openSessionListing(
  url: string,
  options: SessionListingOptions = {},
): Promise<SessionListing> {
  const file = sqliteStoreFile(url);
  if (file === undefined) throw await slow.notSqliteError(url);
  if (file === ':memory:') throw await slow.memoryStoreError(url);
  const path = resolve(file);
  if (!existsSync(path)) await slow.requireCurrentStore(path, url);
  const Driver = (await import('better-sqlite3')).default;
  let sqlite: Database;
  try {
    sqlite = new Driver(path, { fileMustExist: true });
  } catch (cause) {
    await slow.requireCurrentStore(path, url);
    throw await slow.connectionError(url, cause);
  }
  let current: boolean;
  try {
    sqlite.pragma(`busy_timeout = ${options.busyTimeoutMs ?? 5000}`);
    current = isCurrent(sqlite);
  } catch (error) {
    sqlite.close();
    // a file SQLite cannot read: the store's check names it
    await slow.requireCurrentStore(path, url);
    throw await slow.connectionError(url, error);
  }
  if (!current) {
    try {
      await slow.requireCurrentStore(path, url);
    } catch (error) {
      sqlite.close();
      throw error;
    }
  }
  return new SessionListing(sqlite, url, options.logger ?? SILENT);
}

import {
  NotAStoreError,
  openStore,
  parseStoreUrl,
  type SqlSessionStore,
  StoreNotFoundError,
  StoreSchemaVersionError,
} from '@yourtool/store';
import type { CommandContext } from './context.js';
import { CliError } from './io.js';

export { storeUrlOf } from './store-url.js';

// How each command opens its store (docs/decisions/0150): commands that read open only an
// existing store at the current schema and change nothing; `chat` and `sessions import` create
// or upgrade one only when given `--create`.

/** How a command opens its store. */
export interface StoreUse {
  /**
   * The command can make a store (`chat`, `sessions import`, `sessions migrate`). Without it,
   * the command only reads (or deletes), and opens only a store at the current schema.
   */
  creates: boolean;
  /** `--create` was given: make the store, or add the tables, or upgrade it, as needed. */
  create?: boolean;
}

/** A command that only reads a store: it must exist, at the current schema. */
export const READS: StoreUse = { creates: false };

/** `sqlite:<file>` as `--store` takes it, or a placeholder for a URL that holds a password. */
function storeFlag(url: string): string {
  return url.startsWith('sqlite:') ? `--store ${url}` : '--store <the same URL>';
}

/** The store errors of opening with `create: false`, as the command's one line. */
export function refusal(error: unknown, url: string, use: StoreUse): unknown {
  const creates = use.creates;
  if (error instanceof StoreNotFoundError) {
    return new CliError(
      creates
        ? `no store at ${error.location}: pass --create to make one`
        : `no store at ${error.location}: pass --store sqlite:<file> or postgres://..., or set YOURTOOL_STORE`,
    );
  }
  if (error instanceof NotAStoreError) {
    return new CliError(
      creates ? `${error.message}: pass --create to add the yourtool tables to it` : error.message,
    );
  }
  if (error instanceof StoreSchemaVersionError) {
    if (error.direction === 'newer') {
      return new CliError(
        `${error.location} is a yourtool store written by a newer version of yourtool (migrations this version does not know: ${error.unknown.join(', ')}): upgrade @yourtool/cli to open it`,
      );
    }
    const older = `${error.location} is a yourtool store at an older schema (migrations not applied: ${error.pending.join(', ')})`;
    return new CliError(
      creates
        ? `${older}: pass --create to upgrade it`
        : `${older}; commands that read do not upgrade it: run yourtool sessions migrate ${storeFlag(url)}`,
    );
  }
  return error;
}

/**
 * Opens the store at `url` for a command. `sqlite::memory:` is always a new, private store.
 * Otherwise, unless `--create` was given, only an existing store at the current schema is
 * opened, and nothing in the database changes to find out: a missing store, a database without
 * the yourtool tables, and an older or newer schema are refused with a `CliError` saying what
 * to do (`--create`, `yourtool sessions migrate`, an upgrade).
 */
export async function openCliStore(
  url: string,
  context: CommandContext,
  use: StoreUse,
): Promise<SqlSessionStore> {
  const location = parseStoreUrl(url);
  if (location.dialect === 'postgres') context.secrets.add(location.password);
  const memory = location.dialect === 'sqlite' && location.filename === ':memory:';
  if (memory || use.create) return openStore(url, { logger: context.logger });
  try {
    return await openStore(url, { logger: context.logger, create: false, migrate: false });
  } catch (error) {
    throw refusal(error, url, use);
  }
}

/** What `yourtool sessions migrate` did. */
export interface MigrateOutcome {
  /** The SQLite file's path, or the URL (password redacted). */
  location: string;
  /**
   * `current`: the store was at the current schema, nothing was done; `upgraded`: an older
   * store was migrated; `created`: the tables were made (`--create`).
   */
  action: 'current' | 'upgraded' | 'created';
  /** Migrations applied now, in order. */
  applied: string[];
}

/**
 * Brings the store at `url` to the current schema: an older store is upgraded; a missing store
 * or a database without the yourtool tables is made one only with `create`; a store at the
 * current schema is left alone.
 */
export async function migrateStore(
  url: string,
  context: CommandContext,
  create: boolean,
): Promise<MigrateOutcome> {
  const parsed = parseStoreUrl(url);
  if (parsed.dialect === 'postgres') context.secrets.add(parsed.password);
  let action: MigrateOutcome['action'];
  try {
    const store = await openStore(url, { logger: context.logger, create: false, migrate: false });
    await store.close();
    const location = parsed.dialect === 'sqlite' ? parsed.filename : store.url;
    return { location, action: 'current', applied: [] };
  } catch (error) {
    const fresh = error instanceof StoreNotFoundError || error instanceof NotAStoreError;
    const older = error instanceof StoreSchemaVersionError && error.direction === 'older';
    if (!(older || (fresh && create))) throw refusal(error, url, { creates: true });
    action = older ? 'upgraded' : 'created';
  }
  const store = await openStore(url, { logger: context.logger, migrate: false });
  try {
    const location = parsed.dialect === 'sqlite' ? parsed.filename : store.url;
    return { location, action, applied: (await store.migrate()).applied };
  } finally {
    await store.close();
  }
}

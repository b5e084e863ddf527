import type { Logger, SessionRecord } from '@yourtool/core';
import {
  type ListSessionsOptions,
  openSessionListing,
  sqliteStoreFile,
} from '@yourtool/store/listing';
import { CliError } from '../cli-error.js';
import { costWithUnpriced, shortTime, table } from '../format.js';
import type { ContextOnDemand } from '../lazy-context.js';
import type { CliIo } from '../process-io.js';
import { withProgress } from '../progress.js';
import { storeUrlOf } from '../store-url.js';

// `yourtool sessions list`. A SQLite file is listed through `@yourtool/store/listing`, which
// loads no kysely and no @yourtool/core, and the command context (core, for redaction) is made
// only to print a warning or an error; PostgreSQL and `sqlite::memory:` open the whole store
// as every other command does (docs/decisions/0197).

/** Options of `sessions list`. */
export interface ListOptions {
  store?: string;
  /** Sessions shown, most recently updated first (default 50). */
  limit?: number;
  /** Every session (pages through the store). */
  all?: boolean;
  /** Only sessions of this workspace path. */
  workspace?: string;
  json?: boolean;
}

/** A page of sessions, as the store's `listSessions` gives it. */
type ListPage = (
  options: ListSessionsOptions,
) => Promise<{ sessions: SessionRecord[]; next_cursor: string | null }>;

/** The WARNs of a listing, kept until it is done, then given to the context's logger. */
class HeldWarnings implements Logger {
  readonly calls: Array<[Record<string, unknown>, string | undefined]> = [];

  warn(obj: Record<string, unknown>, msg?: string): void {
    this.calls.push([obj, msg]);
  }
}

/** The sessions of the pages read (one, or all with `--all`), and whether more remain. */
async function readSessions(io: CliIo, list: ListPage, options: ListOptions, limit: number) {
  const sessions: SessionRecord[] = [];
  let cursor: string | undefined;
  await withProgress(io.stderr, 'reading sessions', async () => {
    do {
      const page = await list({
        limit,
        withStats: true,
        ...(cursor === undefined ? {} : { cursor }),
        ...(options.workspace === undefined ? {} : { workspace_path: options.workspace }),
      });
      sessions.push(...page.sessions);
      cursor = page.next_cursor ?? undefined;
    } while (options.all && cursor !== undefined);
  });
  return { sessions, more: cursor !== undefined };
}

/** Reads the sessions of the SQLite file of `url` on the listing; warnings held, then printed. */
async function readSqliteFile(
  on: ContextOnDemand,
  url: string,
  options: ListOptions,
  limit: number,
) {
  const held = new HeldWarnings();
  let read: Awaited<ReturnType<typeof readSessions>>;
  try {
    const listing = await openSessionListing(url, { logger: held });
    try {
      read = await readSessions(on.io, (page) => listing.listSessions(page), options, limit);
    } finally {
      listing.close();
    }
  } catch (error) {
    // the same one line as every command that reads a store prints
    const { READS, refusal } = await import('../stores.js');
    throw refusal(error, url, READS);
  } finally {
    if (held.calls.length > 0) {
      const { logger } = await on.context();
      for (const [obj, msg] of held.calls) logger.warn(obj, msg);
    }
  }
  return read;
}

/** Reads the sessions through the whole store (PostgreSQL, `sqlite::memory:`). */
async function readStore(on: ContextOnDemand, options: ListOptions, limit: number) {
  const context = await on.context();
  const { withStore } = await import('./sessions.js');
  return withStore(context, options.store, (store) =>
    readSessions(context.io, (page) => store.listSessions(page), options, limit),
  );
}

/** Prints the sessions: a table (or JSON), and a note on stderr when more remain. */
function printSessions(
  io: CliIo,
  read: { sessions: SessionRecord[]; more: boolean },
  options: ListOptions,
  limit: number,
): void {
  const { sessions } = read;
  if (options.json) {
    io.stdout.write(`${JSON.stringify(sessions, null, 2)}\n`);
    return;
  }
  if (sessions.length === 0) {
    io.stdout.write('no sessions\n');
    return;
  }
  const rows = sessions.map((s) => [
    s.id,
    shortTime(s.updated_at),
    String(s.stats?.message_count ?? 0),
    costWithUnpriced(s.stats?.total_cost_usd ?? '0', s.stats?.unpriced_messages ?? 0),
    s.stats?.last_model ?? '-',
    s.workspace_path,
  ]);
  io.stdout.write(
    table(['SESSION', 'UPDATED (UTC)', 'MESSAGES', 'COST', 'LAST MODEL', 'WORKSPACE'], rows),
  );
  if (!options.all && read.more) {
    io.stderr.write(`(more sessions: --all, or --limit above ${limit})\n`);
  }
}

/** `yourtool sessions list`: sessions with their message count, cost and last model. */
export async function listSessions(on: ContextOnDemand, options: ListOptions): Promise<void> {
  const limit = options.limit ?? 50;
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > 1000) {
    throw new CliError('--limit must be a whole number from 1 to 1000', 2);
  }
  const url = storeUrlOf(options.store, on.io);
  const file = sqliteStoreFile(url);
  const read =
    file === undefined || file === ':memory:'
      ? await readStore(on, options, limit)
      : await readSqliteFile(on, url, options, limit);
  printSessions(on.io, read, options, limit);
}

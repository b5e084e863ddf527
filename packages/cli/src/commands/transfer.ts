import { createReadStream, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline/promises';
import {
  type ImportOutcome,
  parseSessionLines,
  type SessionExport,
  type SqlSessionStore,
  sessionToLines,
} from '@yourtool/store';
import type { CommandContext } from '../context.js';
import { CliError, type InputStream } from '../io.js';
import { startProgress } from '../progress.js';
import { requireSession, withStore } from './sessions.js';

/** Options of `sessions export`. */
export interface ExportOptions {
  store?: string;
  /** Every session of the store. */
  all?: boolean;
  /** Write to this file instead of stdout. */
  output?: string;
}

async function allSessionIds(store: SqlSessionStore): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await store.listSessions({
      limit: 1000,
      ...(cursor === undefined ? {} : { cursor }),
    });
    ids.push(...page.sessions.map((s) => s.id));
    cursor = page.next_cursor ?? undefined;
  } while (cursor !== undefined);
  // oldest first, so an import recreates them in the order they were made
  return ids.reverse();
}

/**
 * `yourtool sessions export <id...>` (or `--all`): the sessions as canonical JSON lines, on
 * stdout or in `--output`. Importing them into an empty store and exporting again gives the
 * same bytes.
 */
export async function exportSessions(
  context: CommandContext,
  ids: readonly string[],
  options: ExportOptions,
): Promise<void> {
  if (ids.length === 0 && !options.all) {
    throw new CliError('name the sessions to export, or pass --all', 2);
  }
  if (ids.length > 0 && options.all) throw new CliError('give session ids or --all, not both', 2);
  await withStore(context, options.store, async (store) => {
    const wanted = options.all ? await allSessionIds(store) : ids;
    const progress = startProgress(context.io.stderr, `exporting ${wanted.length} session(s)`);
    const chunks: string[] = [];
    try {
      for (const [i, id] of wanted.entries()) {
        progress.update(`exporting session ${i + 1} of ${wanted.length}`);
        if (!options.all) await requireSession(store, id);
        chunks.push(sessionToLines(await store.exportSession(id)));
      }
    } finally {
      progress.stop();
    }
    if (options.output === undefined) {
      for (const chunk of chunks) context.io.stdout.write(chunk);
    } else {
      writeFileSync(resolve(context.io.cwd, options.output), chunks.join(''));
      context.io.stderr.write(`exported ${wanted.length} session(s) to ${options.output}\n`);
    }
  });
}

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const parts: string[] = [];
  stream.setEncoding('utf8');
  for await (const chunk of stream) parts.push(String(chunk));
  return parts.join('');
}

/** Options of `sessions import`. */
export interface ImportOptions {
  store?: string;
  /** Make the store when it is missing, add the tables to a bare database, upgrade an older one. */
  create?: boolean;
  /** A session already in the store is kept as it is (and said to be skipped). */
  skipExisting?: boolean;
  /** A session already in the store is replaced by the imported one, in one transaction. */
  replace?: boolean;
}

/** The ids of `ids` that the store holds already. */
async function storedAlready(store: SqlSessionStore, ids: readonly string[]): Promise<string[]> {
  const found = new Set<string>();
  for (let at = 0; at < ids.length; at += 500) {
    const batch = ids.slice(at, at + 500);
    const rows = await store.db
      .selectFrom('sessions')
      .select('id')
      .where('id', 'in', batch)
      .execute();
    for (const row of rows) found.add(row.id);
  }
  return ids.filter((id) => found.has(id));
}

/** What `sessions import` says of one session. */
function outcomeLine(data: SessionExport, outcome: ImportOutcome | undefined): string {
  const counts = `${data.messages.length} messages, ${data.tool_calls.length} tool calls`;
  const id = data.session.id;
  if (outcome?.action === 'skipped') return `skipped ${id} (in the store already, kept as it is)`;
  if (outcome?.action === 'replaced' && outcome.replaced) {
    const { messages, tool_calls } = outcome.replaced;
    return `replaced ${id} (${counts}; the stored one had ${messages} messages, ${tool_calls} tool calls)`;
  }
  return `imported ${id} (${counts})`;
}

/** A `CliError` naming the sessions of the input that the store holds already. */
function alreadyStored(taken: readonly string[], source: string): CliError {
  const one = taken.length === 1;
  return new CliError(
    `${taken.length} ${one ? 'session' : 'sessions'} of ${source} ${one ? 'is' : 'are'} in the store already (${taken.join(', ')}): pass --skip-existing to keep what is stored or --replace to overwrite ${one ? 'it' : 'them'}; nothing was imported`,
  );
}

/**
 * `yourtool sessions import [file]` (stdin for `-` or none): each session of the JSON lines
 * goes in as exported (ids, times, tool call states), one transaction per session, and a line
 * says what became of it. Sessions the store holds already are refused up front, all named,
 * before anything is imported, unless `--skip-existing` keeps them or `--replace` overwrites
 * them. The store is made (or upgraded) only with `--create`. A session the store refuses
 * stops the import; those imported before it stay.
 */
export async function importSessions(
  context: CommandContext,
  file: string | undefined,
  options: ImportOptions,
): Promise<void> {
  const fromStdin = file === undefined || file === '-';
  if (fromStdin && context.io.stdin.isTTY) {
    throw new CliError('sessions import reads JSON lines: name a file, or pipe them in', 2);
  }
  let text: string;
  try {
    text = await readAll(
      fromStdin ? context.io.stdin : createReadStream(resolve(context.io.cwd, file)),
    );
  } catch (error) {
    throw new CliError(`cannot read ${file}: ${(error as Error).message}`);
  }
  const sessions = parseSessionLines(text);
  if (sessions.length === 0) throw new CliError('nothing to import: no session record found');
  const ifExists = options.replace ? 'replace' : options.skipExisting ? 'skip' : 'fail';
  const use = { creates: true, ...(options.create ? { create: true } : {}) };
  await withStore(
    context,
    options.store,
    async (store) => {
      if (ifExists === 'fail') {
        const taken = await storedAlready(
          store,
          sessions.map((data) => data.session.id),
        );
        if (taken.length > 0) throw alreadyStored(taken, fromStdin ? 'the input' : file);
      }
      const progress = startProgress(context.io.stderr, `importing ${sessions.length} session(s)`);
      try {
        for (const data of sessions) {
          let outcome: ImportOutcome | undefined;
          await store.importSession(data, { ifExists, onOutcome: (o) => (outcome = o) });
          context.io.stdout.write(`${outcomeLine(data, outcome)}\n`);
        }
      } finally {
        progress.stop();
      }
    },
    use,
  );
}

async function confirmDelete(
  stdin: InputStream,
  context: CommandContext,
  question: string,
): Promise<boolean> {
  const rl = createInterface({ input: stdin, output: context.io.stdout as NodeJS.WritableStream });
  try {
    return /^y(es)?$/i.test((await rl.question(question)).trim());
  } finally {
    rl.close();
  }
}

/**
 * `yourtool sessions delete <id...>`: every row of each session, in every table, one
 * transaction per session. Asks first on a terminal; elsewhere it needs `--yes`.
 */
export async function deleteSessions(
  context: CommandContext,
  ids: readonly string[],
  options: { store?: string; yes?: boolean },
): Promise<void> {
  const { stdin } = context.io;
  if (!options.yes && !stdin.isTTY) {
    throw new CliError(
      'sessions delete removes every row of the session: pass --yes to confirm',
      2,
    );
  }
  await withStore(context, options.store, async (store) => {
    for (const id of ids) await requireSession(store, id);
    if (!options.yes) {
      const question = `Delete ${ids.length} session(s) (${ids.join(', ')}) and every message of them? [y/N] `;
      if (!(await confirmDelete(stdin, context, question))) {
        throw new CliError('nothing deleted');
      }
    }
    for (const id of ids) {
      const deleted = await store.deleteSession(id);
      context.io.stdout.write(
        `deleted ${id} (${deleted.messages} messages, ${deleted.tool_calls} tool calls)\n`,
      );
    }
  });
}

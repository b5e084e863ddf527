import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRuntime } from '@yourtool/runtime';
import { openStore } from '@yourtool/store';
import {
  type ScriptedProvider,
  startScriptedProvider,
  text,
  toolCall,
  usage,
} from '@yourtool/testing';
import { sql } from 'kysely';

/** The built command (the tests run what users run). */
export const BIN = fileURLToPath(new URL('../dist/bin.js', import.meta.url));

/** Models served by the scripted provider: Claude (Anthropic format) and Gemini (Google's). */
export const MODELS = {
  'anthropic:claude-sonnet-4-6': { aliases: ['sonnet'] },
  'google:gemini-2.5-flash': { aliases: ['gemini'] },
};

/** What a finished child process said. */
export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** A temporary directory with a models.yaml pointing at `provider`, removed by `dispose`. */
export function workspace(provider?: ScriptedProvider): { dir: string; dispose(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'yourtool-cli-'));
  if (provider) writeFileSync(join(dir, 'models.yaml'), provider.modelsYaml({ models: MODELS }));
  return { dir, dispose: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Starts `yourtool <args>` in `cwd` with piped stdio (stdin not a terminal). */
export function start(args: readonly string[], cwd: string, env: NodeJS.ProcessEnv = {}) {
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
  }) as ChildProcessWithoutNullStreams;
  const out = { stdout: '', stderr: '' };
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    out.stdout += chunk;
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    out.stderr += chunk;
  });
  const done = new Promise<Run>((resolve) => {
    child.on('close', (code) => resolve({ code, ...out }));
  });
  /** Resolves once stdout (or stderr) holds `pattern`; rejects after `ms`. */
  const waitFor = (pattern: RegExp, stream: 'stdout' | 'stderr' = 'stdout', ms = 20_000) =>
    new Promise<void>((resolve, reject) => {
      const source = stream === 'stdout' ? child.stdout : child.stderr;
      const timer = setTimeout(() => {
        source.off('data', check);
        reject(
          new Error(`no ${pattern} on ${stream} after ${ms} ms:\n${out.stdout}\n${out.stderr}`),
        );
      }, ms);
      function check() {
        if (!pattern.test(out[stream])) return;
        clearTimeout(timer);
        source.off('data', check);
        resolve();
      }
      // after the collecting listener, so `out` already holds the chunk
      source.on('data', check);
      check();
    });
  return { child, out, done, waitFor };
}

/** Runs `yourtool <args>` to its end, `input` on stdin. */
export async function run(
  args: readonly string[],
  cwd: string,
  options: { input?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<Run> {
  const { child, done } = start(args, cwd, options.env);
  child.stdin.end(options.input ?? '');
  return done;
}

/**
 * A store at `url` holding two sessions made through the real stack on the scripted provider:
 * a tool loop on Claude (two priced calls), then a plain turn on Gemini.
 */
export async function seedStore(provider: ScriptedProvider, url: string): Promise<string[]> {
  const runtime = await createRuntime({
    models: provider.modelsYaml({ models: MODELS }),
    store: url,
    logger: false,
    tools: [
      {
        definition: {
          name: 'read_file',
          description: 'Read a file.',
          input_schema: { type: 'object', properties: { path: { type: 'string' } } },
          side_effects: 'read',
        },
        run: () => '# Foo\nA project.',
      },
    ],
  });
  try {
    provider
      .reply(
        toolCall('read_file', { path: 'README.md' }),
        usage({ input_tokens: 1000, output_tokens: 100 }),
      )
      .reply(text('It is about Foo.'), usage({ input_tokens: 1200, output_tokens: 20 }))
      .reply(text('Hi from Gemini.'), usage({ input_tokens: 300, output_tokens: 10 }));
    const first = await runtime.sessions.createSession({ workspace_path: '/work/foo' });
    await runtime.sessions.sendAndWait(first.id, 'What is README.md about?');
    const second = await runtime.sessions.createSession({ workspace_path: '/work/bar' });
    await runtime.sessions.swapModel(second.id, 'gemini');
    await runtime.sessions.sendAndWait(second.id, 'Hello');
    return [first.id, second.id];
  } finally {
    await runtime.close();
  }
}

/**
 * Another application's SQLite file at `path`: a table `people` with a row, in the default
 * rollback-journal mode (so a switch to WAL, or any write, would change its bytes).
 */
export async function foreignSqliteFile(path: string): Promise<void> {
  const store = await openStore(`sqlite:${path}`, { migrate: false });
  try {
    await sql`create table people (id integer primary key, name text)`.execute(store.db);
    await sql`insert into people (name) values ('Ada')`.execute(store.db);
    await sql`pragma journal_mode = delete`.execute(store.db);
  } finally {
    await store.close();
  }
}

/** The bytes of a file (as a hash) and the names in its directory: what a command could change. */
export function fingerprint(path: string): string {
  const hash = createHash('sha256').update(readFileSync(path)).digest('hex');
  return `${hash} ${readdirSync(dirname(path)).sort().join(',')}`;
}

/**
 * A file path in a directory of its own under `parent` (the directory is made unless
 * `make` is false), a new one on every call.
 */
export function freshPath(parent: string, name: string, make = true): string {
  const sub = join(parent, `case-${++freshPaths}`);
  if (make) mkdirSync(sub);
  return join(sub, name);
}
let freshPaths = 0;

export { startScriptedProvider };

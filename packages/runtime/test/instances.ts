import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { openStore } from '@yourtool/store';

// Child processes that are each one application instance sharing availability through a real
// store, and the databases they share: a SQLite file, a PostgreSQL schema of its own.

const INSTANCE = fileURLToPath(new URL('./fixtures/availability-instance.mjs', import.meta.url));

/** A database the instances share. */
export interface SharedDb {
  name: 'sqlite' | 'postgres';
  url: string;
  schema?: string;
  dispose(): Promise<void>;
}

/** A SQLite file in a fresh directory, migrated before any instance starts. */
export async function sqliteDb(): Promise<SharedDb> {
  const dir = mkdtempSync(join(tmpdir(), 'shared-availability-'));
  const url = `sqlite:${join(dir, 'store.db')}`;
  await (await openStore(url)).close();
  return {
    name: 'sqlite',
    url,
    dispose: async () => rmSync(dir, { recursive: true, force: true }),
  };
}

let counter = 0;

/** A PostgreSQL schema of its own, migrated before any instance starts. */
export async function postgresDb(url: string): Promise<SharedDb> {
  const schema = `yt_avail_${process.pid}_${Date.now().toString(36)}_${++counter}`;
  await (await openStore(url, { schema })).close();
  return {
    name: 'postgres',
    url,
    schema,
    dispose: async () => {
      const admin = await openStore(url, { migrate: false });
      try {
        await admin.db.schema.dropSchema(schema).ifExists().cascade().execute();
      } finally {
        await admin.close();
      }
    },
  };
}

/** One line an instance reported. */
export interface Line {
  t: number;
  event: 'ready' | 'state' | 'probe' | 'failed' | 'closed';
  state?: string;
  ok?: boolean;
  reason?: string | null;
}

/** A running instance. */
export interface Instance {
  name: string;
  child: ChildProcess;
  lines: Line[];
  send(command: 'fail' | 'calls' | 'hang' | 'exit'): void;
  /** Waits for a line matching `match`; resolves to it. */
  until(match: (line: Line) => boolean, ms?: number): Promise<Line>;
}

const running: ChildProcess[] = [];

/** Kills every instance still running (afterEach). */
export function killInstances(): void {
  for (const child of running.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
}

/** Starts an instance on `db` and waits until it has read the stored verdicts. */
export async function startInstance(
  db: SharedDb,
  name: string,
  config: Record<string, unknown>,
): Promise<Instance> {
  const child = spawn(
    process.execPath,
    [INSTANCE, JSON.stringify({ url: db.url, schema: db.schema, name, ...config })],
    { stdio: ['pipe', 'pipe', 'pipe'] },
  );
  running.push(child);
  const lines: Line[] = [];
  let buffered = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8');
  child.stdout?.on('data', (chunk: string) => {
    buffered += chunk;
    const parts = buffered.split('\n');
    buffered = parts.pop() ?? '';
    for (const part of parts) if (part.trim()) lines.push(JSON.parse(part) as Line);
  });
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (chunk: string) => {
    stderr += chunk;
  });
  const until = async (match: (line: Line) => boolean, ms = 20_000) => {
    const deadline = Date.now() + ms;
    for (;;) {
      const found = lines.find(match);
      if (found) return found;
      if (child.exitCode !== null) throw new Error(`${name} exited (${child.exitCode}): ${stderr}`);
      if (Date.now() > deadline)
        throw new Error(`${name}: nothing matched within ${ms} ms: ${stderr}`);
      await sleep(5);
    }
  };
  const instance: Instance = {
    name,
    child,
    lines,
    send: (command) => child.stdin?.write(`${command}\n`),
    until,
  };
  await until((l) => l.event === 'ready', 30_000);
  return instance;
}

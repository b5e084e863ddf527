import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { openStore } from '../src/index.js';
import { sqliteTarget } from './helpers/targets.js';

const HOOKS = fileURLToPath(new URL('./fixtures/ts-hooks.mjs', import.meta.url));
const WRITER = fileURLToPath(new URL('./fixtures/writer.ts', import.meta.url));

interface Reported {
  id: string;
  index: number;
}

/** Starts a writer process; collects the "<id> <index>" lines it prints after each commit. */
function startWriter(file: string, sessionId: string, writer: string, count: number | 'forever') {
  const child = spawn(
    process.execPath,
    ['--import', HOOKS, WRITER, file, sessionId, writer, String(count)],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const reported: Reported[] = [];
  let buffered = '';
  let stderr = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    buffered += chunk;
    const lines = buffered.split('\n');
    buffered = lines.pop() ?? '';
    for (const line of lines) {
      const [id, index] = line.split(' ');
      if (id && index) reported.push({ id, index: Number(index) });
    }
  });
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => {
    stderr += chunk;
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  return { child, reported, exited, stderr: () => stderr };
}

async function waitFor(condition: () => boolean, child: ChildProcess, what: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (!condition()) {
    if (child.exitCode !== null)
      throw new Error(`the writer exited (${child.exitCode}) before ${what}`);
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe('SQLite durability and concurrency across processes', () => {
  const target = sqliteTarget();
  afterAll(() => target.dispose());

  it('opens the file in WAL mode with a busy timeout and foreign keys on', async () => {
    const store = await target.open();
    try {
      const pragma = async (name: string) =>
        Object.values((await sql.raw(`pragma ${name}`).execute(store.db)).rows[0] as object)[0];
      expect(await pragma('journal_mode')).toBe('wal');
      expect(await pragma('busy_timeout')).toBe(5000);
      expect(await pragma('foreign_keys')).toBe(1);
      expect(await pragma('synchronous')).toBe(1); // NORMAL
    } finally {
      await store.close();
    }
    const full = await target.open({ synchronous: 'full', busyTimeoutMs: 250 });
    try {
      const rows = (await sql.raw('pragma synchronous').execute(full.db)).rows as Array<{
        synchronous: number;
      }>;
      expect(rows[0]?.synchronous).toBe(2); // FULL
    } finally {
      await full.close();
    }
  });

  it('loses no committed message when the writing process is killed mid-write (SIGKILL)', async () => {
    const setup = await target.open();
    const session = await setup.createSession({ workspace_path: '/work/durability' });
    await setup.close();

    const committed: Reported[] = [];
    for (let round = 0; round < 3; round++) {
      const writer = startWriter(target.file, session.id, `killed${round}`, 'forever');
      // Let it commit a few hundred messages, then kill it wherever it is.
      const threshold = 150 + Math.floor(Math.random() * 100);
      await waitFor(
        () => writer.reported.length >= threshold,
        writer.child,
        `${threshold} commits`,
      );
      writer.child.kill('SIGKILL');
      const { signal } = await writer.exited;
      expect(signal).toBe('SIGKILL');
      committed.push(...writer.reported.map((r) => ({ ...r, index: r.index })));

      const store = await target.open();
      try {
        const check = await sql<{ integrity_check: string }>`pragma integrity_check`.execute(
          store.db,
        );
        expect(check.rows[0]?.integrity_check).toBe('ok');
        const { messages, errors } = await store.loadMessages(session.id);
        expect(errors).toEqual([]);
        const byId = new Map(messages.map((m) => [m.id, m]));
        for (const { id, index } of writer.reported) {
          const message = byId.get(id);
          expect(
            message,
            `message ${id} (#${index} of round ${round}) was reported committed`,
          ).toBeDefined();
          const first = message?.content[0];
          expect(first?.type === 'text' ? first.text : undefined).toBe(`killed${round}:${index}`);
        }
        const calls = await store.listToolCalls(session.id);
        const assistants = messages.filter((m) => m.role === 'assistant');
        // Every stored assistant message has its tool call row, and no row lacks its message.
        expect(new Set(calls.map((c) => c.message_id))).toEqual(
          new Set(assistants.map((m) => m.id)),
        );
      } finally {
        await store.close();
      }
    }
    expect(committed.length).toBeGreaterThanOrEqual(450);
  }, 120_000);

  it('loses nothing when several processes append to the same file concurrently', async () => {
    const setup = await target.open();
    const session = await setup.createSession({ workspace_path: '/work/concurrency' });
    await setup.close();

    const perWriter = 150;
    const writers = ['a', 'b', 'c', 'd'].map((name) =>
      startWriter(target.file, session.id, name, perWriter),
    );
    const exits = await Promise.all(writers.map((w) => w.exited));
    for (const [i, exit] of exits.entries()) {
      expect(exit.code, writers[i]?.stderr()).toBe(0);
    }

    const store = await target.open();
    try {
      const { messages, errors } = await store.loadMessages(session.id);
      expect(errors).toEqual([]);
      expect(messages).toHaveLength(writers.length * perWriter);
      const reported = writers.flatMap((w) => w.reported.map((r) => r.id));
      expect(new Set(messages.map((m) => m.id))).toEqual(new Set(reported));
      // Each writer's messages keep their order (its clock and ULIDs are monotonic).
      for (const name of ['a', 'b', 'c', 'd']) {
        const texts = messages.flatMap((m) => {
          const first = m.content[0];
          return first?.type === 'text' && first.text.startsWith(`${name}:`) ? [first.text] : [];
        });
        expect(texts).toEqual(Array.from({ length: perWriter }, (_, i) => `${name}:${i}`));
      }
      expect(await store.listToolCalls(session.id)).toHaveLength(writers.length * 50);
      const map = await store.loadToolIdMap(session.id);
      expect(map.size).toBe(writers.length * 50);
    } finally {
      await store.close();
    }
  }, 120_000);

  it('keeps a private database per sqlite::memory: store', async () => {
    const one = await openStore('sqlite::memory:');
    const two = await openStore('sqlite::memory:');
    try {
      const session = await one.createSession({ workspace_path: '/mem' });
      expect(await one.getSession(session.id)).not.toBeNull();
      expect(await two.getSession(session.id)).toBeNull();
    } finally {
      await one.close();
      await two.close();
    }
  });
});

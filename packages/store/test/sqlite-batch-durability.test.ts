import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { sealMessage } from '@yourtool/core';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { userText } from './helpers/messages.js';
import { sqliteTarget } from './helpers/targets.js';

/**
 * A process killed while its writes commit in batches (decision 0199): every write it saw
 * settle is stored, and what is stored is whole (each assistant message with its tool call
 * rows), so the session reads and takes writes again.
 */

const HOOKS = fileURLToPath(new URL('./fixtures/ts-hooks.mjs', import.meta.url));
const WRITER = fileURLToPath(new URL('./fixtures/writer.ts', import.meta.url));
/** Appends in flight at once in the writer: more than a 10 ms slice holds, so most queue in batches. */
const PARALLEL = 100;

/** Starts a writer keeping {@link PARALLEL} appends in flight; collects what it saw commit. */
function startBatchingWriter(file: string, sessionId: string, writer: string) {
  const child = spawn(
    process.execPath,
    ['--import', HOOKS, WRITER, file, sessionId, writer, 'forever', String(PARALLEL)],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const reported: Array<{ id: string; index: number }> = [];
  let buffered = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    const lines = (buffered + chunk).split('\n');
    buffered = lines.pop() ?? '';
    for (const line of lines) {
      const [id, index] = line.split(' ');
      if (id && index) reported.push({ id, index: Number(index) });
    }
  });
  const exited = new Promise<NodeJS.Signals | null>((resolve) =>
    child.on('exit', (_code, signal) => resolve(signal)),
  );
  return { child, reported, exited };
}

describe('SQLite batches of writes across a crash', () => {
  const target = sqliteTarget();
  afterAll(() => target.dispose());

  it('keeps every write that settled, and only whole ones, when killed mid-batch (SIGKILL)', async () => {
    const setup = await target.open();
    const session = await setup.createSession({ workspace_path: '/work/batches' });
    await setup.close();
    for (let round = 0; round < 2; round++) {
      const writer = startBatchingWriter(target.file, session.id, `batch${round}`);
      const threshold = 300 + Math.floor(Math.random() * 200);
      const deadline = Date.now() + 60_000;
      while (writer.reported.length < threshold) {
        if (writer.child.exitCode !== null) throw new Error('the writer exited early');
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${threshold} commits`);
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
      writer.child.kill('SIGKILL');
      expect(await writer.exited).toBe('SIGKILL');
      const store = await target.open();
      try {
        const check = await sql<{ integrity_check: string }>`pragma integrity_check`.execute(
          store.db,
        );
        expect(check.rows[0]?.integrity_check).toBe('ok');
        const { messages, errors } = await store.loadMessages(session.id);
        expect(errors).toEqual([]);
        const stored = new Set(messages.map((m) => m.id));
        const lost = writer.reported.filter((r) => !stored.has(r.id));
        expect(lost, `round ${round}: reported committed, not stored`).toEqual([]);
        const calls = await store.listToolCalls(session.id);
        const assistants = messages.filter((m) => m.role === 'assistant');
        expect(new Set(calls.map((c) => c.message_id))).toEqual(
          new Set(assistants.map((m) => m.id)),
        );
        // the session takes writes again, its lease included
        await store.appendMessage(sealMessage(userText(session.id, `after ${round}`)), {
          lease: { take: { id: `turn_after_${round}`, ttlMs: 1000 } },
        });
        await store.releaseTurnLease(session.id, { id: `turn_after_${round}`, ttlMs: 1000 });
      } finally {
        await store.close();
      }
    }
  }, 120_000);
});

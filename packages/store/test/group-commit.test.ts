import { createRequire } from 'node:module';
import { sealMessage, TurnLeaseHeldError } from '@yourtool/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DuplicateMessageError } from '../src/index.js';
import { MAX_BATCH } from '../src/sqlite-group-commit.js';
import { userText } from './helpers/messages.js';
import { sqliteTarget } from './helpers/targets.js';

/**
 * SQLite's direct writes that queue behind a busy connection commit together (issue 50): one
 * transaction for the batch, each write in a savepoint so a failing one fails alone, and no
 * write settles before the batch committed.
 */

const ran: string[] = [];
let counting = false;
const restores: Array<() => void> = [];

beforeAll(() => {
  const Database = createRequire(import.meta.url)('better-sqlite3') as new (
    file: string,
  ) => { prepare(sql: string): object; close(): void };
  const probe = new Database(':memory:');
  const proto = Object.getPrototypeOf(probe.prepare('select 1')) as Record<
    string,
    (...args: unknown[]) => unknown
  >;
  probe.close();
  const original = proto.run as (...args: unknown[]) => unknown;
  proto.run = function (this: { source: string }, ...args: unknown[]) {
    if (counting) ran.push(this.source);
    return original.apply(this, args);
  };
  restores.push(() => {
    proto.run = original;
  });
});
afterAll(() => {
  for (const restore of restores.splice(0)) restore();
});

describe('SQLite: writes waiting for the connection commit as one batch', () => {
  it('one transaction, a failing write undone alone, each settled after the commit', async () => {
    const target = sqliteTarget();
    const store = await target.open();
    try {
      const ids: string[] = [];
      for (let i = 0; i < 4; i++)
        ids.push((await store.createSession({ workspace_path: '/w' })).id);
      const [a, b, c, d] = ids as [string, string, string, string];
      await store.appendMessage(userText(d, 'held'), {
        lease: { take: { id: 't1', ttlMs: 60_000 } },
      });
      const stored = sealMessage(userText(a, 'already stored'));
      await store.appendMessage(stored);
      const revisionOf = async (id: string) =>
        (
          await store.db
            .selectFrom('sessions')
            .select('revision')
            .where('id', '=', id)
            .executeTakeFirstOrThrow()
        ).revision;
      const before = await Promise.all(ids.map(revisionOf));
      // a write transaction holds the file's lock: the writes below queue behind it
      let release = () => {};
      const holding = store.writeTransaction(
        () =>
          new Promise<void>((resolve) => {
            release = resolve;
          }),
      );
      ran.length = 0;
      counting = true;
      const settled: string[] = [];
      const writes = [
        store.appendMessage(userText(a, 'one')),
        store.appendMessage(stored), // its touch is undone with it
        store.appendMessage(userText(b, 'two')),
        store.appendMessage(userText(d, 'not yours'), { lease: { take: { id: 't2', ttlMs: 1 } } }),
        store.appendMessage(userText(c, 'three')),
      ].map((w, i) => w.finally(() => settled.push(String(i))));
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(settled).toEqual([]);
      release();
      await holding;
      const outcomes = await Promise.allSettled(writes);
      counting = false;
      expect(outcomes.map((o) => o.status)).toEqual([
        'fulfilled',
        'rejected',
        'fulfilled',
        'rejected',
        'fulfilled',
      ]);
      expect((outcomes[1] as PromiseRejectedResult).reason).toBeInstanceOf(DuplicateMessageError);
      expect((outcomes[3] as PromiseRejectedResult).reason).toBeInstanceOf(TurnLeaseHeldError);
      // the kysely transaction's begin and commit, then the batch's one of each (two when a
      // loaded machine stretched the batch past the gate's 10 ms slice): not one per write
      const begins = ran.filter((s) => s === 'begin immediate').length;
      expect(begins).toBeGreaterThanOrEqual(2);
      expect(begins).toBeLessThanOrEqual(3);
      expect(ran.filter((s) => s === 'commit')).toHaveLength(begins);
      expect(ran.filter((s) => s.startsWith('savepoint')).length).toBeGreaterThanOrEqual(4);
      const after = await Promise.all(ids.map(revisionOf));
      expect(after.map((r, i) => Number(r) - Number(before[i]))).toEqual([1, 1, 1, 0]);
      const texts = async (id: string) =>
        (await store.loadMessages(id)).messages.map((m) => (m.content[0] as { text: string }).text);
      expect(await texts(a)).toEqual(['already stored', 'one']);
      expect(await texts(d)).toEqual(['held']);
    } finally {
      await store.close();
      await target.dispose();
    }
  });

  it('a batch holds at most MAX_BATCH writes; the rest commit in the next one', async () => {
    const target = sqliteTarget();
    const store = await target.open();
    try {
      const { id } = await store.createSession({ workspace_path: '/w' });
      let release = () => {};
      const holding = store.writeTransaction(
        () =>
          new Promise<void>((resolve) => {
            release = resolve;
          }),
      );
      ran.length = 0;
      counting = true;
      const writes = Array.from({ length: MAX_BATCH + 8 }, (_, i) =>
        store.appendMessage(userText(id, `m${i}`)),
      );
      // the held transaction's section has begun (and so took `release`'s place)
      await new Promise((resolve) => setTimeout(resolve, 20));
      release();
      await holding;
      await Promise.all(writes);
      counting = false;
      // after the held transaction's commit, the writes in batches of at most MAX_BATCH: at
      // least two for MAX_BATCH + 8 (a loaded machine may close a batch on its time limit
      // sooner, so their number is not fixed)
      const batches: number[] = [];
      let inBatch = 0;
      for (const statement of ran) {
        if (/^insert into "?messages"?/i.test(statement)) inBatch++;
        else if (statement === 'commit' && inBatch > 0) {
          batches.push(inBatch);
          inBatch = 0;
        }
      }
      expect(inBatch).toBe(0);
      expect(batches.length).toBeGreaterThanOrEqual(2);
      expect(Math.max(...batches)).toBeLessThanOrEqual(MAX_BATCH);
      expect(batches.reduce((a, b) => a + b, 0)).toBe(MAX_BATCH + 8);
      const texts = (await store.loadMessages(id)).messages.map(
        (m) => (m.content[0] as { text: string }).text,
      );
      expect(texts).toEqual(Array.from({ length: MAX_BATCH + 8 }, (_, i) => `m${i}`));
    } finally {
      await store.close();
      await target.dispose();
    }
  });
});

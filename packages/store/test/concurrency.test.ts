import { createMessage, type Message } from '@yourtool/core';
import { afterEach, describe, expect, it } from 'vitest';
import type { SqlSessionStore } from '../src/index.js';
import { SqliteGate } from '../src/sqlite-gate.js';
import { assistantWithTools, userText } from './helpers/messages.js';
import { sqliteTarget } from './helpers/targets.js';

/**
 * Many callers on one SQLite file at once (issue 50): the store's connection is taken in
 * arrival order, one waiter woken per release, kysely transactions still alone on it.
 */

const opened: SqlSessionStore[] = [];
const disposals: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((s) => s.close()));
  await Promise.all(disposals.splice(0).map((d) => d()));
});

async function openTwice() {
  const target = sqliteTarget();
  disposals.push(target.dispose);
  const a = await target.open();
  const b = await target.open();
  opened.push(a, b);
  return { a, b };
}

describe('SqliteGate', () => {
  it('gives the event loop a turn between sections that follow each other', async () => {
    const gate = new SqliteGate(2);
    let timerRan = false;
    let beforeTimer = 0;
    setTimeout(() => {
      timerRan = true;
    }, 0);
    const busy = (ms: number) => {
      const end = performance.now() + ms;
      while (performance.now() < end) {}
    };
    // 40 sections of 0.5 ms, chained through promises as a store's callers chain them
    await Promise.all(
      Array.from({ length: 40 }, () =>
        gate.run(() => {
          busy(0.5);
          if (!timerRan) beforeTimer++;
        }),
      ),
    );
    expect(timerRan).toBe(true);
    // the timer ran between sections: not all 40 (20 ms of work) went before it. How many did
    // is the machine's (a loaded one stretches every section), so it is not checked
    expect(beforeTimer).toBeLessThan(40);
    expect(beforeTimer).toBeGreaterThanOrEqual(1);
    expect(gate.free).toBe(true);
  });

  it('hands the connection on in arrival order, one waiter per release', async () => {
    const gate = new SqliteGate(Number.POSITIVE_INFINITY); // no slicing: the order alone
    const order: number[] = [];
    await gate.acquire();
    const waiting = [1, 2, 3, 4].map((n) => gate.acquire().then(() => order.push(n)));
    gate.release();
    await Promise.resolve();
    await Promise.resolve();
    // one release, one waiter through; the others still wait
    expect(order).toEqual([1]);
    expect(gate.free).toBe(false);
    for (let i = 0; i < 3; i++) {
      gate.release();
      await waiting[i + 1];
    }
    expect(order).toEqual([1, 2, 3, 4]);
    gate.release();
    expect(gate.free).toBe(true);
  });

  it('runs a synchronous section at once when free, at its turn when held', async () => {
    const gate = new SqliteGate(Number.POSITIVE_INFINITY); // no slicing: the order alone
    const order: string[] = [];
    const first = gate.run(() => order.push('free'));
    expect(order).toEqual(['free']); // ran before run() returned
    await gate.acquire();
    const queued = gate.run(() => order.push('queued'));
    expect(order).toEqual(['free']);
    gate.release();
    await Promise.all([first, queued]);
    expect(order).toEqual(['free', 'queued']);
    expect(gate.free).toBe(true);
    await expect(
      gate.run(() => {
        throw new Error('section failed');
      }),
    ).rejects.toThrow('section failed');
    expect(gate.free).toBe(true);
  });
});

/** A complete assistant reply without tool calls (a plain message: the direct path). */
function reply(sessionId: string, i: number): Message {
  const template = assistantWithTools(sessionId, []);
  return createMessage({
    session_id: sessionId,
    role: 'assistant',
    content: [{ type: 'text', text: `reply ${i}` }],
    metadata: template.metadata,
  });
}

describe('one SQLite file, 200 writers at once', () => {
  it('every append lands, each session revision moves once per write, reads see whole rows', async () => {
    const { a, b } = await openTwice();
    const sessions = await Promise.all(
      Array.from({ length: 10 }, (_, i) => a.createSession({ workspace_path: `/w${i}` })),
    );
    const written: Message[] = [];
    const revisions = new Map<string, number[]>(sessions.map((s) => [s.id, []]));
    const writes: Array<Promise<unknown>> = [];
    for (let i = 0; i < 200; i++) {
      const session = sessions[i % sessions.length] as (typeof sessions)[number];
      // plain messages take the direct path; tool-calling ones a kysely transaction
      const message =
        i % 5 === 4
          ? assistantWithTools(session.id, [{ name: 'read_file' }])
          : i % 2 === 0
            ? userText(session.id, `message ${i}`)
            : reply(session.id, i);
      written.push(message);
      const store = i % 3 === 0 ? b : a;
      const onRevision = (r: number) => revisions.get(session.id)?.push(r);
      writes.push(store.appendMessage(message, { onRevision }));
      // reads and stats in between, through kysely and the direct path
      if (i % 20 === 0) writes.push(a.loadMessages(session.id), b.sessionStats(session.id));
    }
    await Promise.all(writes);
    let total = 0;
    for (const session of sessions) {
      const { messages, errors } = await a.loadMessages(session.id);
      expect(errors).toEqual([]);
      const expected = written.filter((m) => m.session_id === session.id);
      expect(messages.map((m) => m.id).sort()).toEqual(expected.map((m) => m.id).sort());
      total += messages.length;
      // one revision per write, none repeated
      const seen = revisions.get(session.id) ?? [];
      expect(new Set(seen).size).toBe(expected.length);
      expect((await b.getSession(session.id))?.revision).toBe(Math.max(...seen));
      expect((await a.sessionStats(session.id)).message_count).toBe(expected.length);
    }
    expect(total).toBe(200);
    const calls = await b.db.selectFrom('tool_calls').select('id').execute();
    expect(calls).toHaveLength(40);
  });

  it('a kysely transaction keeps the connection to itself while direct writes queue', async () => {
    const { a } = await openTwice();
    const session = await a.createSession({ workspace_path: '/w' });
    let inside = 0;
    const transaction = a.writeTransaction(async (db) => {
      const before = await db.selectFrom('messages').select('id').execute();
      // direct appends issued now must wait until this transaction ends
      const appends = Array.from({ length: 50 }, (_, i) =>
        a.appendMessage(userText(session.id, `during ${i}`)),
      );
      await new Promise((resolve) => setTimeout(resolve, 20));
      const after = await db.selectFrom('messages').select('id').execute();
      inside = after.length - before.length;
      return appends;
    });
    const appends = await transaction;
    await Promise.all(appends);
    expect(inside).toBe(0);
    expect((await a.loadMessages(session.id)).messages).toHaveLength(50);
  });
});

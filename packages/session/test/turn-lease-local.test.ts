import { setTimeout as sleep } from 'node:timers/promises';
import { isCancelledError, type SessionStore } from '@yourtool/core';
import { MemorySessionStore } from '@yourtool/core/memory-store';
import { describe, expect, it } from 'vitest';
import {
  InvalidManagerOptionError,
  InvalidSendOptionError,
  TurnInProgressError,
} from '../src/index.js';
import { scriptedManager } from './fixtures/lease-world.js';

/**
 * The turn lease within one process (decision 0156): managers sharing a MemorySessionStore,
 * the send's wait (deadline, signal), a store without leases, and the options.
 */

const noRequests = { eventGapMs: 1, onRequest: () => undefined };

/** A manager whose model stalls after its first event until `release` is called. */
function stalledManager(store: SessionStore, lease = { ttlMs: 1_000, heartbeatMs: 200 }) {
  let release: () => void = () => undefined;
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  let stalled: () => void = () => undefined;
  const started = new Promise<void>((resolve) => {
    stalled = resolve;
  });
  const manager = scriptedManager(
    store,
    {
      eventGapMs: 1,
      onRequest: () => undefined,
      onStalled: () => {
        stalled();
      },
      stallUntil: released,
    },
    lease,
  );
  return { manager, started, release };
}

describe('the turn lease in one process', () => {
  it('another manager on the same store is refused, or waits and runs on the history the turn left', async () => {
    const store = new MemorySessionStore();
    const { id } = await store.createSession({ workspace_path: '/w' });
    const first = stalledManager(store);
    const running = first.manager.sendAndWait(id, 'turn of first');
    await first.started;
    const second = scriptedManager(store, noRequests, { ttlMs: 1_000, heartbeatMs: 200 });
    // the heartbeat keeps the lease past its TTL
    await sleep(1_500);
    await expect(second.sendAndWait(id, 'turn of second')).rejects.toThrow(TurnInProgressError);
    const waiting = second.sendAndWait(id, 'turn of second', {
      waitForTurn: { timeoutMs: 10_000 },
    });
    await sleep(100);
    first.release();
    await running;
    const result = await waiting;
    expect(result.end).toBe('end_turn');
    const roles = (await store.loadMessages(id)).messages.map((m) => m.role);
    expect(roles).toEqual([
      'user',
      'assistant',
      'tool',
      'assistant',
      'user',
      'assistant',
      'tool',
      'assistant',
    ]);
    expect((await store.getSession(id))?.turn_lease).toBeUndefined();
  });

  it('a turn waiting for a confirmation keeps its lease by the heartbeat', async () => {
    const store = new MemorySessionStore();
    const { id } = await store.createSession({ workspace_path: '/w' });
    const lease = { ttlMs: 1_000, heartbeatMs: 200 };
    const asking = scriptedManager(store, { ...noRequests, confirmAfterMs: 3_000 }, lease);
    const running = asking.sendAndWait(id, 'turn of asking');
    const other = scriptedManager(store, noRequests, lease);
    await sleep(2_200); // the confirmation has waited more than twice the TTL
    await expect(other.sendAndWait(id, 'turn of other')).rejects.toThrow(TurnInProgressError);
    expect((await running).end).toBe('end_turn');
    await other.sendAndWait(id, 'turn of other');
    expect((await store.loadMessages(id)).messages).toHaveLength(8);
  });

  it('a wait ends at its deadline with TurnInProgressError, and at once when its signal aborts', async () => {
    const store = new MemorySessionStore();
    const { id } = await store.createSession({ workspace_path: '/w' });
    const first = stalledManager(store);
    const running = first.manager.sendAndWait(id, 'turn of first');
    await first.started;
    const second = scriptedManager(store, noRequests);
    const started = Date.now();
    await expect(second.sendAndWait(id, 'x', { waitForTurn: { timeoutMs: 300 } })).rejects.toThrow(
      TurnInProgressError,
    );
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    expect(Date.now() - started).toBeLessThan(2_000);

    const controller = new AbortController();
    const waiting = second
      .sendAndWait(id, 'x', { waitForTurn: { timeoutMs: 60_000 }, signal: controller.signal })
      .catch((e: unknown) => e);
    await sleep(50);
    const aborted = Date.now();
    controller.abort();
    expect(isCancelledError(await waiting)).toBe(true);
    expect(Date.now() - aborted).toBeLessThan(500);
    // the same manager's own running turn is waited for too
    await expect(
      first.manager.sendAndWait(id, 'x', { waitForTurn: { timeoutMs: 100 } }),
    ).rejects.toThrow(TurnInProgressError);
    first.release();
    await running;
    expect((await store.loadMessages(id)).messages).toHaveLength(4);
  });

  it('a store without leases keeps working, one turn at a time per manager', async () => {
    const memory = new MemorySessionStore();
    // the same store without the optional capability, as a third-party store may be
    const store: SessionStore = {
      createSession: (i) => memory.createSession(i),
      getSession: (i) => memory.getSession(i),
      listSessions: (o) => memory.listSessions(o),
      updateSession: (i, p) => memory.updateSession(i, p),
      appendMessage: (m, o) => memory.appendMessage(m, { ...o, lease: undefined }),
      updateMessage: (m, o) => memory.updateMessage(m, { ...o, lease: undefined }),
      loadMessages: (i) => memory.loadMessages(i),
      pageMessages: (i, o) => memory.pageMessages(i, o),
      iterateMessages: (o) => memory.iterateMessages(o),
      updateMessageUsage: (i, u) => memory.updateMessageUsage(i, u),
      findUnansweredToolCalls: (i) => memory.findUnansweredToolCalls(i),
      countFailedToolCalls: (i) => memory.countFailedToolCalls(i),
      loadToolIdMap: (i) => memory.loadToolIdMap(i),
      close: () => memory.close(),
    };
    const { id } = await store.createSession({ workspace_path: '/w' });
    const manager = scriptedManager(store, noRequests);
    await manager.sendAndWait(id, 'turn of one');
    await manager.sendAndWait(id, 'turn of two');
    expect((await store.loadMessages(id)).messages).toHaveLength(8);
    expect((await memory.getSession(id))?.turn_lease).toBeUndefined();
  });

  it('refuses turnLease and waitForTurn values it cannot use', async () => {
    const store = new MemorySessionStore();
    for (const turnLease of [{ ttlMs: 0 }, { ttlMs: 1000, heartbeatMs: 1000 }, { ttl: 5 }, 7]) {
      expect(() => scriptedManager(store, noRequests, turnLease as never)).toThrow(
        InvalidManagerOptionError,
      );
    }
    const { id } = await store.createSession({ workspace_path: '/w' });
    const manager = scriptedManager(store, noRequests);
    for (const waitForTurn of [5, { timeoutMs: -1 }, { timeout: 5 }]) {
      await expect(
        manager.sendAndWait(id, 'x', { waitForTurn: waitForTurn as never }),
      ).rejects.toThrow(InvalidSendOptionError);
    }
    expect((await store.loadMessages(id)).messages).toHaveLength(0);
  });
});

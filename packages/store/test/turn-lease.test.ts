import { setTimeout as sleep } from 'node:timers/promises';
import {
  createMessage,
  type Message,
  sealMessage,
  supportsTurnLeases,
  TurnLeaseHeldError,
  TurnLeaseLostError,
} from '@yourtool/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  InvalidStoreInputError,
  SessionNotFoundError,
  type SqlSessionStore,
} from '../src/index.js';
import { assistantWithTools, MODEL, userText } from './helpers/messages.js';
import { type Target, targets } from './helpers/targets.js';

/**
 * A session's turn lease (decision 0156): taken, held and released inside the transactions of a
 * turn's writes, renewed by a heartbeat; a take over an expired lease finishes the dead turn's
 * `partial` rows. Plain messages go through SQLite's prepared statements, tool-using ones
 * through kysely: both paths are exercised.
 */
describe.each(targets())('turn leases on $name', ({ make }) => {
  const target: Target = make();
  let store: SqlSessionStore;
  let other: SqlSessionStore;
  beforeAll(async () => {
    store = await target.open();
    other = await target.open();
  });
  afterAll(async () => {
    await store?.close();
    await other?.close();
    await target.dispose();
  });

  const a = { id: 'turn_a', ttlMs: 30_000 };
  const b = { id: 'turn_b', ttlMs: 30_000 };
  const count = async (id: string) => (await store.loadMessages(id)).messages.length;

  it('is a capability of the store', () => {
    expect(supportsTurnLeases(store)).toBe(true);
  });

  it('a take with the first write holds the session; another turn gets TurnLeaseHeldError and writes nothing', async () => {
    const { id } = await store.createSession({ workspace_path: '/w' });
    expect((await store.getSession(id))?.turn_lease).toBeUndefined();
    await store.appendMessage(sealMessage(userText(id, 'first')), { lease: { take: a } });
    const seen = (await other.getSession(id))?.turn_lease;
    expect(seen?.id).toBe('turn_a');
    expect(seen?.expires_in_ms).toBeGreaterThan(25_000);
    expect(seen?.expires_in_ms).toBeLessThanOrEqual(30_000);

    for (const message of [userText(id, 'plain'), assistantWithTools(id, [{ name: 'ls' }])]) {
      const error = await other.appendMessage(message, { lease: { take: b } }).catch((e) => e);
      expect(error).toBeInstanceOf(TurnLeaseHeldError);
      expect((error as TurnLeaseHeldError).expiresInMs).toBeGreaterThan(25_000);
    }
    expect(await count(id)).toBe(1);
    // the holder takes again (idempotent) and holds
    await store.appendMessage(sealMessage(userText(id, 'again')), { lease: { take: a } });
    await store.appendMessage(assistantWithTools(id, [{ name: 'ls' }]), { lease: { hold: a } });
    expect(await count(id)).toBe(3);
  });

  it('hold and release refuse a turn that does not hold the lease, writing nothing', async () => {
    const { id } = await store.createSession({ workspace_path: '/w' });
    await store.appendMessage(sealMessage(userText(id, 'q')), { lease: { take: a } });
    const reply = reply_(id, 'partial');
    for (const lease of [{ hold: b }, { release: b }]) {
      await expect(other.appendMessage(reply, { lease })).rejects.toThrow(TurnLeaseLostError);
      await expect(
        other.appendMessage(assistantWithTools(id, [{ name: 'ls' }]), { lease }),
      ).rejects.toThrow(TurnLeaseLostError);
    }
    expect(await count(id)).toBe(1);
    await store.appendMessage(reply, { lease: { hold: a } });
    // the finishing write releases: the session is free once it commits
    await store.updateMessage(reply_(id, 'complete', reply.id), { lease: { release: a } });
    expect((await store.getSession(id))?.turn_lease).toBeUndefined();
    await expect(store.updateMessage(reply, { lease: { hold: a } })).rejects.toThrow(
      TurnLeaseLostError,
    );
    expect((await store.getMessage(reply.id))?.metadata.status).toBe('complete');
    await other.appendMessage(sealMessage(userText(id, 'next turn')), { lease: { take: b } });
    expect((await store.getSession(id))?.turn_lease?.id).toBe('turn_b');
  });

  it('a heartbeat renews the lease; a lost lease cannot be renewed; release says whether it held', async () => {
    const { id } = await store.createSession({ workspace_path: '/w' });
    const short = { id: 'turn_short', ttlMs: 800 };
    await store.appendMessage(sealMessage(userText(id, 'q')), { lease: { take: short } });
    for (let i = 0; i < 4; i++) {
      await sleep(300);
      await store.renewTurnLease(id, short);
    }
    // 1.2 s after the take, still held thanks to the renewals
    await expect(
      other.appendMessage(sealMessage(userText(id, 'x')), { lease: { take: b } }),
    ).rejects.toThrow(TurnLeaseHeldError);
    expect(await store.releaseTurnLease(id, b)).toBe(false);
    expect(await store.releaseTurnLease(id, short)).toBe(true);
    expect(await store.releaseTurnLease(id, short)).toBe(false);
    await expect(store.renewTurnLease(id, short)).rejects.toThrow(TurnLeaseLostError);
    await expect(store.renewTurnLease('sess_missing', short)).rejects.toThrow(SessionNotFoundError);
  });

  it.each([
    ['a plain user message', (id: string) => sealMessage(userText(id, 'after the crash'))],
    ['a message with tool calls', (id: string) => assistantWithTools(id, [{ name: 'ls' }])],
  ])(
    "a take over an expired lease finishes the dead turn's partial row (%s)",
    async (_name, next) => {
      const { id } = await store.createSession({ workspace_path: '/w' });
      // long enough that the writes below (on a loaded machine) all come before it expires
      const dead = { id: 'turn_dead', ttlMs: 1_500 };
      await store.appendMessage(sealMessage(userText(id, 'q')), { lease: { take: dead } });
      const partial = assistantWithTools(id, [{ name: 'write_file' }], { status: 'partial' });
      await store.appendMessage(partial, { lease: { hold: dead } });
      const done = reply_(id, 'complete');
      await store.appendMessage(done, { lease: { hold: dead } });
      expect((await store.listToolCalls(id)).map((c) => c.status)).toEqual(['pending']);
      await expect(other.appendMessage(next(id), { lease: { take: b } })).rejects.toThrow(
        TurnLeaseHeldError,
      );
      await sleep(1_600);
      const before = (await store.getSession(id))?.revision as number;
      expect((await store.getSession(id))?.turn_lease?.expires_in_ms).toBeLessThanOrEqual(0);
      const revisions: number[] = [];
      await other.appendMessage(next(id), {
        lease: { take: b },
        onRevision: (r) => revisions.push(r),
      });
      // the finishing of the dead row counts as a write of its own
      expect(revisions).toEqual([before + 2]);
      const finished = await store.getMessage(partial.id);
      expect(finished?.metadata.status).toBe('error');
      expect(finished?.metadata.error).toMatchObject({ rule: 'turn_lease_expired' });
      expect(finished?.content).toEqual(partial.content);
      expect((await store.getMessage(done.id))?.metadata.status).toBe('complete');
      expect((await store.listToolCalls(id)).find((c) => c.message_id === partial.id)?.status).toBe(
        'cancelled',
      );
      // the dead turn can no longer write
      await expect(
        store.updateMessage(reply_(id, 'complete', partial.id), { lease: { hold: dead } }),
      ).rejects.toThrow(TurnLeaseLostError);
      expect((await store.getSession(id))?.turn_lease?.id).toBe('turn_b');
    },
  );

  it('refuses malformed leases and a lease on a batch over several sessions', async () => {
    const { id } = await store.createSession({ workspace_path: '/w' });
    const two = (await store.createSession({ workspace_path: '/w' })).id;
    const bad = [{ take: { id: '', ttlMs: 10 } }, { hold: { id: 'x', ttlMs: 0.5 } }, { nope: 1 }];
    for (const lease of bad) {
      await expect(
        store.appendMessage(userText(id, 'q'), { lease: lease as never }),
      ).rejects.toThrow(InvalidStoreInputError);
    }
    await expect(
      store.appendMessages([userText(id, 'a'), userText(two, 'b')], { lease: { take: a } }),
    ).rejects.toThrow(InvalidStoreInputError);
    await expect(
      store.appendMessage(userText('sess_missing', 'q'), { lease: { take: a } }),
    ).rejects.toThrow(SessionNotFoundError);
    expect(await count(id)).toBe(0);
  });

  it('concurrent takers on separate connections: exactly one wins', async () => {
    const { id } = await store.createSession({ workspace_path: '/w' });
    const stores = [store, other, await target.open(), await target.open()];
    try {
      const outcomes = await Promise.allSettled(
        Array.from({ length: 12 }, (_, i) =>
          (stores[i % stores.length] as SqlSessionStore).appendMessage(
            sealMessage(userText(id, `turn ${i}`)),
            { lease: { take: { id: `turn_${i}`, ttlMs: 30_000 } } },
          ),
        ),
      );
      const won = outcomes.filter((o) => o.status === 'fulfilled');
      expect(won).toHaveLength(1);
      for (const o of outcomes) {
        if (o.status === 'rejected') expect(o.reason).toBeInstanceOf(TurnLeaseHeldError);
      }
      expect(await count(id)).toBe(1);
    } finally {
      await Promise.all(stores.slice(2).map((s) => s.close()));
    }
  });
});

/** An assistant reply with text, at `status`. */
function reply_(session_id: string, status: 'partial' | 'complete', id?: string): Message {
  const message = createMessage({
    session_id,
    role: 'assistant',
    content: status === 'partial' ? [] : [{ type: 'text', text: 'Done.' }],
    metadata: {
      status,
      model: MODEL,
      provider: 'anthropic',
      routing: {
        mode: 'default',
        chosen_model: MODEL,
        reason: 'default',
        alternatives_considered: [],
      },
      ...(status === 'complete'
        ? {
            usage: {
              input_tokens: 1,
              output_tokens: 1,
              cached_input_tokens: 0,
              cache_creation_input_tokens: 0,
              cost_usd: '0.000001',
              pricing_version: '2026-11-22',
              latency_ms: 1,
            },
          }
        : {}),
    },
  });
  return id ? { ...message, id } : message;
}

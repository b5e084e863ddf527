import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import {
  createMessage,
  MemorySessionStore,
  type Message,
  newToolUseId,
  supportsTurnLeases,
  TurnLeaseHeldError,
  TurnLeaseLostError,
} from './exports.js';
import { completeAssistantMeta } from './helpers.js';

const user = (session_id: string, text: string): Message =>
  createMessage({ session_id, role: 'user', content: [{ type: 'text', text }] });

/** MemorySessionStore keeps turn leases in the process (decision 0156), as `@yourtool/store` does. */
describe('MemorySessionStore turn leases', () => {
  const a = { id: 'turn_a', ttlMs: 30_000 };
  const b = { id: 'turn_b', ttlMs: 30_000 };

  it('take, hold, release; another turn is refused and nothing is written', async () => {
    const store = new MemorySessionStore();
    expect(supportsTurnLeases(store)).toBe(true);
    const { id } = await store.createSession({ workspace_path: '/w' });
    expect((await store.getSession(id))?.turn_lease).toBeUndefined();
    await store.appendMessage(user(id, 'q'), { lease: { take: a } });
    expect((await store.getSession(id))?.turn_lease?.id).toBe('turn_a');
    await expect(store.appendMessage(user(id, 'x'), { lease: { take: b } })).rejects.toThrow(
      TurnLeaseHeldError,
    );
    await expect(store.appendMessage(user(id, 'x'), { lease: { hold: b } })).rejects.toThrow(
      TurnLeaseLostError,
    );
    expect((await store.loadMessages(id)).messages).toHaveLength(1);
    await store.appendMessage(user(id, 'more'), { lease: { release: a } });
    expect((await store.getSession(id))?.turn_lease).toBeUndefined();
    await store.appendMessage(user(id, 'next'), { lease: { take: b } });
    await expect(store.renewTurnLease(id, a)).rejects.toThrow(TurnLeaseLostError);
    await store.renewTurnLease(id, b);
    expect(await store.releaseTurnLease(id, a)).toBe(false);
    expect(await store.releaseTurnLease(id, b)).toBe(true);
  });

  it("a take over an expired lease finishes the dead turn's partial row", async () => {
    const store = new MemorySessionStore();
    const { id } = await store.createSession({ workspace_path: '/w' });
    const dead = { id: 'turn_dead', ttlMs: 20 };
    await store.appendMessage(user(id, 'q'), { lease: { take: dead } });
    const partial = createMessage({
      session_id: id,
      role: 'assistant',
      content: [{ type: 'tool_use', id: newToolUseId(), name: 'ls', input: {} }],
      metadata: { ...completeAssistantMeta(), status: 'partial' },
    });
    await store.appendMessage(partial, { lease: { hold: dead } });
    await sleep(40);
    const before = (await store.getSession(id))?.revision as number;
    const heard: number[] = [];
    await store.appendMessage(user(id, 'after'), {
      lease: { take: b },
      onRevision: (r) => heard.push(r),
    });
    expect(heard).toEqual([before + 2]);
    const finished = (await store.loadMessages(id)).messages.find((m) => m.id === partial.id);
    expect(finished?.metadata.status).toBe('error');
    expect(finished?.metadata.error?.rule).toBe('turn_lease_expired');
    expect((await store.findUnansweredToolCalls(id)).map((c) => c.status)).toEqual(['cancelled']);
  });
});

import {
  createMessage,
  isSealedMessage,
  type Message,
  MessageSchema,
  sealMessage,
  timestampToEpochMicros,
} from '@yourtool/core';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  InvalidMessageError,
  InvalidStoreInputError,
  JsonTooDeepError,
  type SqlSessionStore,
} from '../src/index.js';
import { assistantWithTools, userText } from './helpers/messages.js';
import { type Target, targets } from './helpers/targets.js';

/**
 * A write returns the stored message, as a later load reads it and sealed, so a caller keeps
 * what it stored without reading or parsing it back. A sealed message (core's `sealMessage`:
 * checked once by whoever sealed it, immutable since) is not checked against the schema and the
 * invariants again, only against what the database needs; every other message gets the full
 * guard.
 */
describe.each(targets())('the stored message on $name', ({ make }) => {
  const target: Target = make();
  let store: SqlSessionStore;
  beforeAll(async () => {
    store = await target.open();
  });
  afterAll(async () => {
    await store?.close();
    await target.dispose();
  });
  afterEach(() => vi.restoreAllMocks());

  const newSession = async () => (await store.createSession({ workspace_path: '/w' })).id;
  const loaded = async (sessionId: string, id: string) =>
    (await store.loadMessages(sessionId)).messages.find((m) => m.id === id);

  it('appendMessage returns the stored message: sealed, a copy of an unsealed input, what a load reads', async () => {
    const sessionId = await newSession();
    const input = assistantWithTools(sessionId, [{ name: 'read_file', input: { path: 'a' } }]);
    const stored = await store.appendMessage(input);
    expect(isSealedMessage(stored)).toBe(true);
    expect(stored).not.toBe(input);
    expect(Object.isFrozen(input)).toBe(false);
    expect(Object.isFrozen((input.content[1] as { input: object }).input)).toBe(false);
    expect(stored).toEqual(await loaded(sessionId, input.id));
  });

  it('a sealed message is taken without a schema check and returned as it is', async () => {
    const sessionId = await newSession();
    const sealed = sealMessage(
      assistantWithTools(sessionId, [{ name: 'read_file', input: { path: 'a' } }]),
    );
    const safeParse = vi.spyOn(MessageSchema, 'safeParse');
    const parse = vi.spyOn(MessageSchema, 'parse');
    const stringify = vi.spyOn(JSON, 'stringify');
    const stored = await store.appendMessage(sealed);
    const serialized = stringify.mock.calls.map(([value]) => value);
    vi.restoreAllMocks();
    expect(stored).toBe(sealed);
    expect(safeParse).not.toHaveBeenCalled();
    expect(parse).not.toHaveBeenCalled();
    // content and metadata, once each
    expect(serialized.filter((v) => v === sealed.content)).toHaveLength(1);
    expect(serialized.filter((v) => v === sealed.metadata)).toHaveLength(1);
    expect(await loaded(sessionId, sealed.id)).toEqual(sealed);
  });

  it('updateMessage returns the stored message at its stored position', async () => {
    const sessionId = await newSession();
    const partial = createMessage({
      session_id: sessionId,
      role: 'assistant',
      content: [],
      metadata: { status: 'partial' },
    });
    await store.appendMessage(partial);
    const later = new Date(Date.now() + 60_000).toISOString().replace('Z', '000Z');
    const cancelled = sealMessage({
      ...partial,
      content: [{ type: 'text' as const, text: 'cut' }],
      metadata: { status: 'cancelled' as const },
      created_at: later,
    });
    const stored = await store.updateMessage(cancelled);
    expect(isSealedMessage(stored)).toBe(true);
    expect(stored.created_at).toBe(partial.created_at);
    expect(timestampToEpochMicros(stored.created_at)).not.toBe(timestampToEpochMicros(later));
    expect(stored).toEqual(await loaded(sessionId, partial.id));
    // an update that changes nothing of the position hands the sealed input back
    const same = sealMessage({ ...cancelled, created_at: partial.created_at });
    expect(await store.updateMessage(same)).toBe(same);
  });

  it('appendMessages takes sealed and unsealed messages alike, and resolves to nothing', async () => {
    const sessionId = await newSession();
    const batch = [userText(sessionId, 'one'), sealMessage(userText(sessionId, 'two'))];
    expect(await store.appendMessages(batch)).toBeUndefined();
    expect((await store.loadMessages(sessionId)).messages).toEqual(batch);
  });

  it('every message that is not sealed gets the full guard', async () => {
    const sessionId = await newSession();
    const noUsage = assistantWithTools(sessionId, [{ name: 'read_file' }], { usage: null });
    await expect(store.appendMessage(noUsage)).rejects.toBeInstanceOf(InvalidMessageError);
    const shapeless = { ...userText(sessionId, 'x'), role: 'robot' } as unknown as Message;
    await expect(store.appendMessage(shapeless)).rejects.toBeInstanceOf(InvalidStoreInputError);
    expect((await store.loadMessages(sessionId)).messages).toEqual([]);
  });

  it('a sealed message still gets what the database needs: text columns and depth', async () => {
    const sessionId = await newSession();
    const nul = sealMessage(assistantWithTools(sessionId, [{ name: 'read\u0000file' }]));
    await expect(store.appendMessage(nul)).rejects.toBeInstanceOf(InvalidStoreInputError);
    let deep: Record<string, unknown> = {};
    for (let i = 0; i < 120; i++) deep = { deeper: deep };
    const nested = sealMessage(assistantWithTools(sessionId, [{ name: 'read_file', input: deep }]));
    await expect(store.appendMessage(nested)).rejects.toBeInstanceOf(JsonTooDeepError);
    expect((await store.loadMessages(sessionId)).messages).toEqual([]);
  });
});

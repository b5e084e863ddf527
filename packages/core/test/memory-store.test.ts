import { describe, expect, it, vi } from 'vitest';
import {
  createMessage,
  isSealedMessage,
  MemorySessionStore,
  MemoryStoreError,
  type Message,
  MessageSchema,
  newToolUseId,
  sealMessage,
  ToolIdMap,
  toolResultBlock,
} from './exports.js';
import { completeAssistantMeta } from './helpers.js';

async function fixture() {
  const store = new MemorySessionStore();
  const session = await store.createSession({ workspace_path: '/work/mem' });
  const sid = session.id;
  const user = createMessage({
    session_id: sid,
    role: 'user',
    content: [{ type: 'text', text: 'read it' }],
  });
  const toolUseId = newToolUseId();
  const assistant = createMessage({
    session_id: sid,
    role: 'assistant',
    content: [{ type: 'tool_use', id: toolUseId, name: 'read_file', input: { path: 'a' } }],
    metadata: completeAssistantMeta(),
  });
  const tool = createMessage({
    session_id: sid,
    role: 'tool',
    content: [toolResultBlock(toolUseId, 'contents')],
    metadata: { parent_tool_use_id: toolUseId },
  });
  return { store, sid, user, assistant, tool, toolUseId };
}

describe('MemorySessionStore', () => {
  it('stores a tool loop, answers its call, and rebuilds the tool id map', async () => {
    const { store, sid, user, assistant, tool, toolUseId } = await fixture();
    const map = new ToolIdMap([
      { canonical_id: toolUseId, provider: 'anthropic', provider_id: 'toolu_01' },
    ]);
    await store.appendMessage(user);
    await store.appendMessage(assistant, { toolIdMap: map });
    expect(await store.findUnansweredToolCalls(sid)).toMatchObject([
      { id: toolUseId, status: 'pending' },
    ]);
    await store.appendMessage(tool);
    expect(await store.findUnansweredToolCalls(sid)).toEqual([]);
    expect((await store.loadToolIdMap(sid)).getProviderId('anthropic', toolUseId)).toBe('toolu_01');
    const loaded = await store.loadMessages(sid);
    expect(loaded.messages.map((m) => m.id)).toEqual([user.id, assistant.id, tool.id]);
    expect(loaded.messages[1]).toEqual(assistant);
  });

  it('returns what it stored, sealed; takes a sealed message as it is, without checking it again', async () => {
    const { store, user, assistant } = await fixture();
    const stored = await store.appendMessage(user);
    expect(stored).not.toBe(user);
    expect(stored).toEqual(user);
    expect(isSealedMessage(stored)).toBe(true);
    const sealed = sealMessage(structuredClone(assistant));
    const parse = vi.spyOn(MessageSchema, 'safeParse');
    try {
      expect(await store.appendMessage(sealed)).toBe(sealed);
      expect(parse).not.toHaveBeenCalled();
    } finally {
      parse.mockRestore();
    }
    const later = { ...assistant, created_at: '2030-01-01T00:00:00.000000Z' };
    const updated = await store.updateMessage(later);
    expect(updated.created_at).toBe(assistant.created_at);
    expect(isSealedMessage(updated)).toBe(true);
  });

  it('hands out copies: mutating a stored or loaded message never changes the store', async () => {
    const { store, sid, user } = await fixture();
    await store.appendMessage(user);
    (user.content[0] as { text: string }).text = 'changed after storing';
    const [loaded] = (await store.loadMessages(sid)).messages as [Message];
    (loaded.content[0] as { text: string }).text = 'changed after loading';
    expect((await store.loadMessages(sid)).messages[0]?.content).toEqual([
      { type: 'text', text: 'read it' },
    ]);
  });

  it('refuses a complete message that breaks an invariant, naming the rule, storing nothing', async () => {
    const { store, sid, tool } = await fixture();
    const orphan: Message = { ...tool, metadata: { ...tool.metadata, parent_tool_use_id: null } };
    const error = await store.appendMessage(orphan).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MemoryStoreError);
    expect((error as MemoryStoreError).code).toBe('invalid_message');
    expect((error as Error).message).toMatch(/tool-parent-id/);
    expect((await store.loadMessages(sid)).messages).toEqual([]);
  });

  it('refuses JSON nested deeper than the limit and unknown sessions with typed errors', async () => {
    const { store, assistant } = await fixture();
    let deep: Record<string, unknown> = { leaf: 1 };
    for (let i = 0; i < 5_000; i++) deep = { a: deep };
    const tooDeep: Message = {
      ...assistant,
      content: [{ type: 'tool_use', id: newToolUseId(), name: 'x', input: deep }],
    };
    await expect(store.appendMessage(tooDeep)).rejects.toMatchObject({ code: 'json_too_deep' });
    await expect(
      store.appendMessage({ ...assistant, session_id: 'sess_01JZZZZZZZZZZZZZZZZZZZZZZZ' }),
    ).rejects.toMatchObject({ code: 'unknown_session' });
  });

  it('tells onRevision the revision each append and update left the session at', async () => {
    const { store, sid, user, assistant } = await fixture();
    const heard: number[] = [];
    const onRevision = (revision: number) => heard.push(revision);
    await store.appendMessage(user, { onRevision });
    await store.appendMessage(assistant, { onRevision });
    await store.updateMessage(assistant, { onRevision });
    expect(heard).toEqual([1, 2, 3]);
    expect((await store.getSession(sid))?.revision).toBe(3);
  });

  it('moves a partial assistant message to complete, and keeps creation order', async () => {
    const { store, sid, user, assistant } = await fixture();
    await store.appendMessage(user);
    const partial: Message = {
      ...assistant,
      content: [],
      metadata: { ...assistant.metadata, status: 'partial', usage: null },
    };
    await store.appendMessage(partial);
    await store.updateMessage(assistant);
    const loaded = (await store.loadMessages(sid)).messages;
    expect(loaded.map((m) => m.metadata.status)).toEqual(['complete', 'complete']);
    await expect(store.updateMessage({ ...user, id: assistant.id })).rejects.toMatchObject({
      code: 'message_identity_changed',
    });
  });

  it('lists sessions most recent first, pages messages, and refuses use after close', async () => {
    const { store, sid, user, assistant, tool } = await fixture();
    const other = await store.createSession({ workspace_path: '/work/other' });
    await store.appendMessage(user);
    await store.appendMessage(assistant);
    await store.appendMessage(tool);
    const listed = await store.listSessions({ limit: 1 });
    expect(listed.sessions.map((s) => s.id)).toEqual([sid]);
    expect((await store.listSessions({ cursor: listed.next_cursor ?? '' })).sessions[0]?.id).toBe(
      other.id,
    );
    const first = await store.pageMessages(sid, { limit: 2 });
    const second = await store.pageMessages(sid, { after: first.next_cursor, limit: 2 });
    expect([...first.messages, ...second.messages].map((m) => m.id)).toEqual([
      user.id,
      assistant.id,
      tool.id,
    ]);
    expect(second.next_cursor).toBeNull();
    const withStats = await store.listSessions({ withStats: true });
    expect(withStats.sessions.find((s) => s.id === sid)?.stats).toEqual({
      message_count: 3,
      last_model: 'anthropic:claude-sonnet-4-6',
      total_cost_usd: '0.000105',
      unpriced_messages: 0,
    });
    expect(listed.sessions[0]).not.toHaveProperty('stats');
    await store.close();
    await expect(store.getSession(sid)).rejects.toMatchObject({ code: 'store_closed' });
  });
});

describe('MemorySessionStore session owner (decision 0182)', () => {
  it('keeps user, tenant and tags when set, and leaves them out otherwise', async () => {
    const store = new MemorySessionStore();
    const owned = await store.createSession({
      workspace_path: '/w',
      user: 'u_1',
      tenant: 'acme',
      tags: ['a', 'a', 'b'],
    });
    expect(await store.getSession(owned.id)).toMatchObject({
      user: 'u_1',
      tenant: 'acme',
      tags: ['a', 'b'],
    });
    const plain = await store.createSession({ workspace_path: '/w' });
    expect('user' in plain || 'tenant' in plain || 'tags' in plain).toBe(false);
  });
});

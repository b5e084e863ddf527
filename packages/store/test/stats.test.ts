import { createMessage, newSessionId } from '@yourtool/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SqlSessionStore } from '../src/index.js';
import { assistantWithTools, toolAnswer, usage, userText } from './helpers/messages.js';
import { type Target, targets } from './helpers/targets.js';

describe.each(targets())('session stats on $name', ({ make }) => {
  const target: Target = make();
  let store: SqlSessionStore;

  beforeAll(async () => {
    store = await target.open();
  });
  afterAll(async () => {
    await store?.close();
    await target.dispose();
  });

  /** A session of a user message, a priced tool call on Claude, its answer, and an unpriced reply. */
  async function session(): Promise<string> {
    const id = (await store.createSession({ workspace_path: '/work/stats' })).id;
    const assistant = assistantWithTools(id, [{ name: 'read_file' }], {
      usage: usage({ cost_usd: '0.1' }),
    });
    const toolUseId = assistant.content.find((b) => b.type === 'tool_use')?.id ?? '';
    const priced = assistantWithTools(id, [], { usage: usage({ cost_usd: '0.2' }) });
    const unpriced = createMessage({
      session_id: id,
      role: 'assistant',
      content: [{ type: 'text', text: 'done' }],
      metadata: {
        model: 'ollama:qwen3-vl:8b',
        provider: 'ollama',
        routing: {
          mode: 'manual',
          chosen_model: 'ollama:qwen3-vl:8b',
          reason: '/model',
          alternatives_considered: [],
        },
        usage: usage({ cost_usd: null, pricing_version: null }),
      },
    });
    await store.appendMessages([
      userText(id, 'hi'),
      assistant,
      toolAnswer(id, toolUseId, 'contents'),
      priced,
      unpriced,
    ]);
    return id;
  }

  it('counts messages, names the last model and sums costs exactly, unpriced kept apart', async () => {
    const id = await session();
    expect(await store.sessionStats(id)).toEqual({
      message_count: 5,
      last_model: 'ollama:qwen3-vl:8b',
      total_cost_usd: '0.3',
      unpriced_messages: 1,
    });
  });

  it('adds stats to listSessions only when asked, zeros for an empty session', async () => {
    const id = await session();
    const empty = (await store.createSession({ workspace_path: '/work/stats' })).id;
    const plain = await store.listSessions({ workspace_path: '/work/stats' });
    expect(plain.sessions[0]).not.toHaveProperty('stats');
    const listed = await store.listSessions({ workspace_path: '/work/stats', withStats: true });
    const byId = new Map(listed.sessions.map((s) => [s.id, s.stats]));
    expect(byId.get(id)?.total_cost_usd).toBe('0.3');
    expect(byId.get(empty)).toEqual({
      message_count: 0,
      last_model: null,
      total_cost_usd: '0',
      unpriced_messages: 0,
    });
    expect(await store.sessionStats(newSessionId())).toMatchObject({ message_count: 0 });
  });
});

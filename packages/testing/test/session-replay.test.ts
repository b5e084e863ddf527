import type { ContentBlock, Message } from '@yourtool/core';
import { createRuntime, type Runtime } from '@yourtool/runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ScriptedProvider,
  scriptFromSession,
  startScriptedProvider,
  text,
  thinking,
  toolCall,
  usage,
} from '../src/index.js';

let provider: ScriptedProvider;
let runtime: Runtime;
beforeAll(async () => {
  provider = await startScriptedProvider();
  runtime = await createRuntime({
    models: provider.modelsYaml({
      models: {
        'anthropic:claude-sonnet-4-6': { aliases: ['sonnet'] },
        'openai:gpt-5': { aliases: ['gpt5'], api: 'responses' },
        'google:gemini-2.5-flash': { aliases: ['gemini'] },
        'ollama:qwen3:8b': { aliases: ['qwen'] },
      },
    }),
    tools: [
      {
        definition: {
          name: 'read_file',
          description: 'Read a file.',
          input_schema: { type: 'object', properties: { path: { type: 'string' } } },
          side_effects: 'read',
        },
        run: ({ path }) => `contents of ${String(path)}`,
      },
    ],
    logger: false,
  });
});
afterAll(async () => {
  await runtime.close();
  await provider.close();
});

const INPUTS = ['Summarize README.md', 'Thanks!'];

/** Runs the inputs as turns of a new session on `alias`; resolves to its stored messages. */
async function playSession(alias: string): Promise<Message[]> {
  const session = await runtime.sessions.createSession({ workspace_path: '/work' });
  await runtime.sessions.swapModel(session.id, alias);
  for (const input of INPUTS) {
    const turn = await runtime.sessions.sendAndWait(session.id, input);
    expect(turn.error).toBeNull();
  }
  return (await runtime.store.loadMessages(session.id)).messages;
}

/** What a replay must reproduce of an assistant message: its blocks (not the ids), its usage. */
function replied(messages: readonly Message[], keepSignatures: boolean) {
  const block = (b: ContentBlock) => {
    if (b.type === 'tool_use') return { type: b.type, name: b.name, input: b.input };
    if (b.type === 'thinking') {
      return { type: b.type, text: b.text, signature: keepSignatures ? b.signature : null };
    }
    return b;
  };
  return messages
    .filter((m) => m.role === 'assistant')
    .map((m) => ({
      content: m.content.map(block),
      tokens: [m.metadata.usage?.input_tokens, m.metadata.usage?.output_tokens],
      cached: m.metadata.usage?.cached_input_tokens,
      stop: m.metadata.stop_reason,
    }));
}

describe('scriptFromSession', () => {
  it("replays a stored session's replies offline through every wire format", async () => {
    provider
      .reply(
        thinking('I should read it first.', { signature: 'sig-original-1' }),
        text('Let me look.'),
        toolCall('read_file', { path: 'README.md' }),
        usage({ input_tokens: 200, output_tokens: 30 }),
      )
      .reply(text('It describes Foo.'), usage({ input_tokens: 260, output_tokens: 6 }))
      .reply(
        text('You are welcome.'),
        usage({ input_tokens: 20, output_tokens: 4, cached_input_tokens: 256 }),
      );
    const original = await playSession('sonnet');
    const script = scriptFromSession(original, { chunks: 2 });
    expect(script).toHaveLength(3);
    expect(script[0]?.blocks.map((b) => b.kind)).toEqual(['thinking', 'text', 'tool_call']);
    expect(script[2]?.usage).toMatchObject({ input_tokens: 20, cached_input_tokens: 256 });

    for (const alias of ['gpt5', 'gemini']) {
      provider.enqueue(...script);
      const replayed = await playSession(alias);
      expect(replied(replayed, true)).toEqual(replied(original, true));
    }
    provider.enqueue(...script);
    const local = await playSession('qwen');
    // Ollama carries no signature and reports cache reads inside the prompt count
    expect(replied(local, false).map((r) => r.content)).toEqual(
      replied(original, false).map((r) => r.content),
    );
    expect(provider.pending()).toBe(0);
  });

  it('leaves out replies stored at status error unless asked', () => {
    const base = { session_id: 's', created_at: '2026-01-01T00:00:00.000000Z', schema_version: 1 };
    const messages: Message[] = [
      {
        ...base,
        id: 'm1',
        role: 'user',
        content: [{ type: 'text', text: 'hi' }],
        metadata: { status: 'complete' },
      },
      {
        ...base,
        id: 'm2',
        role: 'assistant',
        content: [{ type: 'text', text: 'broken' }],
        metadata: { status: 'error', stop_reason: 'max_tokens' },
      },
      {
        ...base,
        id: 'm3',
        role: 'assistant',
        content: [
          { type: 'redacted_thinking', data: 'opaque' },
          { type: 'text', text: '' },
          { type: 'text', text: 'fine' },
        ],
        metadata: { status: 'complete' },
      },
    ];
    const script = scriptFromSession(messages);
    expect(script).toHaveLength(1);
    expect(script[0]?.blocks).toEqual([
      { kind: 'redacted_thinking', data: 'opaque' },
      { kind: 'text', text: 'fine', chunks: 1 },
    ]);
    const all = scriptFromSession(messages, { includeErrored: true });
    expect(all[0]?.stopReason).toBe('max_tokens');
  });
});

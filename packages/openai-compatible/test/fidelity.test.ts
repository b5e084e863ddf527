import { fileURLToPath } from 'node:url';
import {
  type LoopbackServer,
  loadFixtureDirectory,
  startLoopbackServer,
} from '@yourtool/conformance';
import {
  createMemoryLogger,
  createMessage,
  newRequestId,
  newSessionId,
  type StreamEvent,
  ToolIdMap,
  withStreamInvariants,
} from '@yourtool/core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DeepSeekAdapter, MistralAdapter } from '../src/index.js';

// Issue 23 on compatible servers, through the official SDK on the loopback server: Mistral's tool
// calls without "type", DeepSeek's reasoning tokens, the served model under the provider key.

const mistral = loadFixtureDirectory(fileURLToPath(new URL('./fixtures-mistral', import.meta.url)));
const deepseek = loadFixtureDirectory(
  fileURLToPath(new URL('./fixtures-deepseek', import.meta.url)),
);

let server: LoopbackServer;
beforeAll(async () => {
  server = await startLoopbackServer();
});
afterAll(() => server.close());
beforeEach(() => server.reset());

const session_id = newSessionId();
const ask = (model: string, extra: Record<string, unknown> = {}) => ({
  request_id: newRequestId(),
  model,
  max_output_tokens: 256,
  messages: [createMessage({ session_id, role: 'user', content: [{ type: 'text', text: 'hi' }] })],
  ...extra,
});

async function complete(stream: AsyncIterable<StreamEvent>) {
  const events: StreamEvent[] = [];
  for await (const event of withStreamInvariants(stream)) events.push(event);
  const done = events.at(-1);
  if (done?.type !== 'message.complete') throw new Error('the stream did not complete');
  return done;
}

describe('mistral: tool calls as Mistral sends them (an index, no "type")', () => {
  it('a non-streamed tool call without "type" is a tool use, not dropped', async () => {
    const logger = createMemoryLogger();
    const adapter = new MistralAdapter(
      { api_key: 'mistral-key', base_url: server.url },
      { logger },
    );
    const recorded = mistral['tool-call']?.[0];
    if (recorded?.type !== 'json') throw new Error('no JSON tool-call fixture');
    const body = structuredClone(recorded.body) as {
      choices: Array<{ message: { tool_calls: Array<Record<string, unknown>> } }>;
    };
    const [call] = body.choices[0]?.message.tool_calls ?? [];
    if (!call) throw new Error('the fixture holds no tool call');
    delete call.type;
    call.index = 0;
    server.enqueue({ type: 'json', status: 200, headers: {}, body });
    const map = new ToolIdMap();
    const res = await adapter.complete(ask('mistral:mistral-large-latest'), { toolIdMap: map });
    expect(res.content).toEqual([
      { type: 'text', text: "I'll read the file." },
      {
        type: 'tool_use',
        id: map.getCanonicalId('mistral', 'Xj8yC4fLY'),
        name: 'read_file',
        input: { path: 'README.md' },
      },
    ]);
    expect(res.stop_reason).toBe('tool_use');
    expect(logger.warnings()).toEqual([]);
    await adapter.close();
  });

  it('Magistral typed parts: thinking then text, the served model under the provider key', async () => {
    const adapter = new MistralAdapter({ api_key: 'mistral-key', base_url: server.url });
    server.enqueue(...(mistral['typed-content-parts'] ?? []));
    const res = await adapter.complete(ask('mistral:mistral-large-latest'));
    expect(res.content).toEqual([
      { type: 'thinking', text: 'Two plus two is four.' },
      { type: 'text', text: '2 + 2 = 4' },
    ]);
    expect(res.served_model).toBe('mistral:magistral-medium-2509');
    await adapter.close();
  });
});

describe('deepseek: reasoning tokens', () => {
  it('completion_tokens_details.reasoning_tokens becomes usage.reasoning_tokens, complete and stream', async () => {
    const adapter = new DeepSeekAdapter({ api_key: 'sk-ds', base_url: server.url });
    server.enqueue(...(deepseek.thinking ?? []), ...(deepseek['thinking-stream'] ?? []));
    const whole = await adapter.complete(ask('deepseek:deepseek-reasoner'));
    expect(whole.usage).toMatchObject({
      input_tokens: 45,
      output_tokens: 61,
      reasoning_tokens: 12,
    });
    expect(whole.served_model).toBe('deepseek:deepseek-reasoner');
    const done = await complete(
      adapter.stream(ask('deepseek:deepseek-reasoner', { stream: true })),
    );
    expect(done.usage).toMatchObject({ output_tokens: 61, reasoning_tokens: 12 });
    expect(done.served_model).toBe('deepseek:deepseek-reasoner');
    await adapter.close();
  });
});

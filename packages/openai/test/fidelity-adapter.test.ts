import { fileURLToPath } from 'node:url';
import {
  type LoopbackServer,
  loadFixtureDirectory,
  type ScriptedResponse,
  startLoopbackServer,
} from '@yourtool/conformance';
import {
  createMemoryLogger,
  createMessage,
  newRequestId,
  newSessionId,
  type StreamEvent,
  withStreamInvariants,
} from '@yourtool/core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { OpenAIAdapter, OpenAIResponsesAdapter } from '../src/index.js';

// Issue 23 through the official SDK on the loopback server: what the conformance scenarios do not
// pin down (response.refusal, reasoning_tokens, dropped content parts, Responses refusal streams).

const chat = loadFixtureDirectory(fileURLToPath(new URL('./fixtures', import.meta.url)));
const responses = loadFixtureDirectory(
  fileURLToPath(new URL('./fixtures-responses', import.meta.url)),
);
const play = (set: typeof chat, scenario: string) => server.enqueue(...(set[scenario] ?? []));
/** A copy of a JSON fixture's body, to derive a variant from. */
const jsonBody = <T>(set: typeof chat, scenario: string): T => {
  const found = set[scenario]?.[0];
  if (found?.type !== 'json') throw new Error(`no JSON fixture ${scenario}`);
  return structuredClone(found.body) as T;
};

let server: LoopbackServer;
beforeAll(async () => {
  server = await startLoopbackServer();
});
afterAll(() => server.close());
beforeEach(() => server.reset());

const KEY = 'sk-test-fidelity-0000000000000';
const session_id = newSessionId();
const ask = (extra: Record<string, unknown> = {}) => ({
  request_id: newRequestId(),
  model: 'openai:gpt-5',
  max_output_tokens: 256,
  messages: [createMessage({ session_id, role: 'user', content: [{ type: 'text', text: 'hi' }] })],
  ...extra,
});
const config = { api_key: KEY, base_url: '', max_retries: 0 };

async function drain(stream: AsyncIterable<StreamEvent>) {
  const events: StreamEvent[] = [];
  for await (const event of withStreamInvariants(stream)) events.push(event);
  const done = events.at(-1);
  if (done?.type !== 'message.complete') throw new Error('the stream did not complete');
  return { events, done };
}

const chatSse = (deltas: Array<[Record<string, unknown>, string | null]>, usage: unknown) => {
  const base = { id: 'chatcmpl-f', object: 'chat.completion.chunk', created: 1, model: 'gpt-5' };
  const chunks = [
    ...deltas.map(([delta, finish_reason]) => ({
      ...base,
      choices: [{ index: 0, delta, logprobs: null, finish_reason }],
      usage: null,
    })),
    { ...base, choices: [], usage },
  ];
  return {
    type: 'stream',
    status: 200,
    contentType: 'text/event-stream',
    chunks: [...chunks.map((c) => `data: ${JSON.stringify(c)}\n\n`), 'data: [DONE]\n\n'],
  } satisfies ScriptedResponse;
};

describe('Chat Completions through the SDK', () => {
  const adapter = (logger = createMemoryLogger()) => ({
    logger,
    gpt: new OpenAIAdapter({ ...config, base_url: server.url }, { logger }),
  });

  it('a refusal: text, response.refusal, stop_reason refusal, the served model', async () => {
    const { gpt } = adapter();
    play(chat, 'refusal');
    const res = await gpt.complete(ask());
    expect(res.content).toEqual([{ type: 'text', text: "I can't help with that." }]);
    expect(res.refusal).toBe("I can't help with that.");
    expect(res.stop_reason).toBe('refusal');
    expect(res.model).toBe('openai:gpt-5');
    expect(res.served_model).toBe('openai:gpt-5-2025-08-07');
  });

  it('reasoning_tokens from completion_tokens_details, complete and stream', async () => {
    const { gpt } = adapter();
    play(chat, 'empty-reply-length');
    const res = await gpt.complete(ask());
    expect(res.content).toEqual([]);
    expect(res.stop_reason).toBe('max_tokens');
    expect(res.usage).toMatchObject({ output_tokens: 256, reasoning_tokens: 256 });

    server.enqueue(
      chatSse(
        [
          [{ role: 'assistant', content: 'Hi' }, null],
          [{}, 'stop'],
        ],
        {
          prompt_tokens: 10,
          completion_tokens: 70,
          total_tokens: 80,
          completion_tokens_details: { reasoning_tokens: 64 },
        },
      ),
    );
    const { done } = await drain(gpt.stream(ask({ stream: true })));
    expect(done.usage).toMatchObject({ output_tokens: 70, reasoning_tokens: 64 });
  });

  it('a streamed refusal is collected on message.complete', async () => {
    const { gpt } = adapter();
    server.enqueue(
      chatSse(
        [
          [{ role: 'assistant', content: '', refusal: null }, null],
          [{ refusal: "I can't help" }, null],
          [{ refusal: ' with that.' }, null],
          [{}, 'stop'],
        ],
        { prompt_tokens: 25, completion_tokens: 8, total_tokens: 33 },
      ),
    );
    const { done } = await drain(gpt.stream(ask({ stream: true })));
    expect(done.stop_reason).toBe('refusal');
    expect(done.refusal).toBe("I can't help with that.");
    expect(done.final_content).toEqual([{ type: 'text', text: "I can't help with that." }]);
  });

  it('a content part it cannot hold is dropped with a block_dropped WARN naming its type', async () => {
    const { gpt, logger } = adapter();
    const body = jsonBody<{ choices: Array<{ message: unknown }> }>(chat, 'typed-content-parts');
    const message = body.choices[0]?.message as { content: unknown[] };
    message.content.push({ type: 'reference', reference_ids: [3] });
    server.enqueue({ type: 'json', status: 200, headers: {}, body });
    const res = await gpt.complete(ask());
    expect(res.content.map((b) => b.type)).toEqual(['thinking', 'text']);
    const dropped = logger.warnings().find((w) => w.obj.event === 'block_dropped');
    expect(dropped?.obj).toMatchObject({
      adapter: 'openai',
      block_type: 'reference',
      reason: 'no canonical block for this content part type',
    });
  });
});

describe('Responses API through the SDK', () => {
  const adapter = () =>
    new OpenAIResponsesAdapter({ ...config, base_url: server.url, options: {} }, {});

  it('an incomplete reply holding only reasoning is returned: max_tokens, reasoning_tokens', async () => {
    play(responses, 'empty-reply-length');
    const res = await adapter().complete(ask());
    expect(res.content.map((b) => b.type)).toEqual(['redacted_thinking']);
    expect(res.stop_reason).toBe('max_tokens');
    expect(res.usage).toMatchObject({
      input_tokens: 40,
      output_tokens: 256,
      reasoning_tokens: 256,
    });
  });

  it('a refusal part: text, response.refusal, stop_reason refusal', async () => {
    play(responses, 'refusal');
    const res = await adapter().complete(ask());
    expect(res.content).toEqual([{ type: 'text', text: "I can't help with that." }]);
    expect(res.refusal).toBe("I can't help with that.");
    expect(res.stop_reason).toBe('refusal');
    expect(res.served_model).toBe('openai:gpt-5-2025-08-07');
  });

  it('streamed response.refusal.delta events: message.complete.refusal, stop refusal', async () => {
    const refusal = { type: 'refusal', refusal: "I can't help with that." };
    const message = { id: 'msg_r', type: 'message', status: 'completed', role: 'assistant' };
    const final = jsonBody<Record<string, unknown>>(responses, 'refusal');
    const events = [
      { type: 'response.created', response: { ...final, status: 'in_progress', output: [] } },
      { type: 'response.output_item.added', output_index: 0, item: { ...message, content: [] } },
      {
        type: 'response.content_part.added',
        item_id: 'msg_r',
        output_index: 0,
        content_index: 0,
        part: { type: 'refusal', refusal: '' },
      },
      ...["I can't", ' help with that.'].map((delta) => ({
        type: 'response.refusal.delta',
        item_id: 'msg_r',
        output_index: 0,
        content_index: 0,
        delta,
      })),
      {
        type: 'response.output_item.done',
        output_index: 0,
        item: { ...message, content: [refusal] },
      },
      { type: 'response.completed', response: final },
    ];
    server.enqueue({
      type: 'stream',
      status: 200,
      contentType: 'text/event-stream',
      chunks: events.map(
        (e, i) => `event: ${e.type}\ndata: ${JSON.stringify({ ...e, sequence_number: i })}\n\n`,
      ),
    });
    const { done } = await drain(adapter().stream(ask({ stream: true })));
    expect(done.stop_reason).toBe('refusal');
    expect(done.refusal).toBe("I can't help with that.");
    expect(done.final_content).toEqual([{ type: 'text', text: "I can't help with that." }]);
    expect(done.served_model).toBe('openai:gpt-5-2025-08-07');
  });
});

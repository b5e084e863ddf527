/**
 * Faults through the real SDK to the loopback server (issue 12): connection resets mid-body and
 * mid-stream, replies that do not parse, keys echoed back in error bodies and headers, invalid
 * model ids, a stream holding two replies, and nothing written to the console.
 */

import { fileURLToPath } from 'node:url';
import { inspect } from 'node:util';
import { APIError } from '@anthropic-ai/sdk';
import {
  type LoopbackServer,
  loadFixtureDirectory,
  type ScriptedResponse,
  startLoopbackServer,
} from '@yourtool/conformance';
import {
  AdapterError,
  type AttemptEvent,
  type CanonicalRequestInput,
  createMemoryLogger,
  createMessage,
  InvalidRequestError,
  NetworkError,
  newRequestId,
  newSessionId,
  ServerError,
  type StreamEvent,
} from '@yourtool/core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AnthropicAdapter } from '../src/index.js';

const fixtures = loadFixtureDirectory(fileURLToPath(new URL('./fixtures', import.meta.url)));
/** A key no built-in key pattern recognises: only the configured secret can redact it. */
const KEY = 'conf-key-Zq81xLm2Pw0Tn5Vb';
/** A custom credential header's value, echoed back by a "proxy". */
const PROXY_TOKEN = 'proxy-pass-Hj47Kd92Lq';

let server: LoopbackServer;
beforeAll(async () => {
  server = await startLoopbackServer();
});
afterAll(() => server.close());
beforeEach(() => server.reset());

const session_id = newSessionId();
const ask = (extra: Partial<CanonicalRequestInput> = {}): CanonicalRequestInput => ({
  request_id: newRequestId(),
  model: 'anthropic:claude-sonnet-4-6',
  max_output_tokens: 256,
  messages: [createMessage({ session_id, role: 'user', content: [{ type: 'text', text: 'hi' }] })],
  ...extra,
});

const adapter = (maxRetries = 0, logger = createMemoryLogger()) =>
  new AnthropicAdapter(
    {
      api_key: KEY,
      base_url: server.url,
      max_retries: maxRetries,
      extra_headers: { 'x-proxy-auth': PROXY_TOKEN },
    },
    { logger, retry: { baseDelayMs: 1, maxDelayMs: 1 } },
  );

/** Drains a stream: the events it yielded, and what it threw (undefined when it ended). */
async function drain(stream: AsyncIterable<StreamEvent>) {
  const events: StreamEvent[] = [];
  try {
    for await (const event of stream) events.push(event);
  } catch (error) {
    return { events, error };
  }
  return { events, error: undefined };
}

const textReply = (): Record<string, unknown> => {
  const response = fixtures.text?.[0];
  if (response?.type !== 'json') throw new Error('the text fixture is a JSON reply');
  return response.body as Record<string, unknown>;
};

/** The text reply's JSON, cut in the middle of a string, the connection then reset. */
const resetMidBody = (): ScriptedResponse => {
  const json = JSON.stringify(textReply());
  return {
    type: 'stream',
    contentType: 'application/json',
    chunks: [json.slice(0, json.indexOf('"text":') + 12)],
    ending: 'destroy',
  };
};

/** SSE events of the text stream fixture up to the first text delta, then a reset. */
const resetMidStream = (): ScriptedResponse => {
  const response = fixtures['text-stream']?.[0];
  if (response?.type !== 'stream') throw new Error('the text-stream fixture is a stream');
  const firstDelta = response.chunks.findIndex((c) => c.includes('text_delta'));
  return { ...response, chunks: response.chunks.slice(0, firstDelta + 1), ending: 'destroy' };
};

const sse = (event: Record<string, unknown> & { type: string }) =>
  `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;

const messageStart = (id: string) =>
  sse({
    type: 'message_start',
    message: {
      id,
      type: 'message',
      role: 'assistant',
      model: 'claude-sonnet-4-6',
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: 12, output_tokens: 1 },
    },
  });
const textBlock = (index: number, text: string) => [
  sse({ type: 'content_block_start', index, content_block: { type: 'text', text: '' } }),
  sse({ type: 'content_block_delta', index, delta: { type: 'text_delta', text } }),
  sse({ type: 'content_block_stop', index }),
];
const messageEnd = () => [
  sse({
    type: 'message_delta',
    delta: { stop_reason: 'end_turn', stop_sequence: null },
    usage: { output_tokens: 5 },
  }),
  sse({ type: 'message_stop' }),
];

describe('connection resets are network failures', () => {
  it('complete(): a reset mid-body is network, retried, and a retry that gets the reply succeeds', async () => {
    server.enqueue(resetMidBody(), resetMidBody());
    const attempts: AttemptEvent[] = [];
    const error = await adapter(1)
      .complete(ask(), { onAttempt: (e) => attempts.push(e) })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NetworkError);
    expect((error as NetworkError).error_class).toBe('network');
    expect((error as NetworkError).attempts).toBe(2);
    expect(server.requests).toHaveLength(2);
    expect(attempts.filter((e) => e.type === 'attempt.failed').map((e) => e.will_retry)).toEqual([
      true,
      false,
    ]);

    server.reset();
    server.enqueue(resetMidBody(), { type: 'json', body: textReply() });
    const reply = await adapter(1).complete(ask());
    expect(reply.content).toEqual([{ type: 'text', text: expect.any(String) }]);
    expect(server.requests).toHaveLength(2);
  });

  it('stream(): a reset mid-stream ends with message.complete (error, partial text), then throws network', async () => {
    server.enqueue(resetMidStream());
    const { events, error } = await drain(adapter(2).stream(ask({ stream: true })));
    expect(events[0]?.type).toBe('message.start');
    const last = events.at(-1);
    expect(last).toMatchObject({
      type: 'message.complete',
      stop_reason: 'error',
      final_content: [{ type: 'text', text: 'Hello!' }],
    });
    expect(error).toBeInstanceOf(NetworkError);
    expect((error as NetworkError).error_class).toBe('network');
    // events were yielded: not retried
    expect(server.requests).toHaveLength(1);
  });
});

describe('a reply that does not parse is server_error (decision 0071), whatever the parser says', () => {
  it('complete(): a 200 whose JSON body is truncated ("Unterminated string") is server_error, retried', async () => {
    const truncated: ScriptedResponse = {
      type: 'text',
      status: 200,
      headers: { 'content-type': 'application/json' },
      body: '{"id":"msg_01","type":"message","content":[{"type":"text","text":"Hel',
    };
    server.enqueue(truncated, truncated);
    const error = await adapter(1)
      .complete(ask())
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServerError);
    const serverError = error as ServerError;
    expect(serverError.error_class).toBe('server_error');
    // the scenario the issue names: the parser's message says "Unterminated"
    expect(serverError.provider_message).toMatch(/Unterminated string/);
    expect(serverError.attempts).toBe(2);
    expect(server.requests).toHaveLength(2);
  });

  it('stream(): an event whose data is not JSON is server_error naming the event and its line', async () => {
    const logger = createMemoryLogger();
    server.enqueue({
      type: 'stream',
      contentType: 'text/event-stream',
      chunks: [
        messageStart('msg_01A'),
        ...textBlock(0, 'Hello').slice(0, 2),
        'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"unterminated\n\n',
      ],
    });
    const { events, error } = await drain(adapter(0, logger).stream(ask({ stream: true })));
    expect(events.at(-1)).toMatchObject({ type: 'message.complete', stop_reason: 'error' });
    expect(error).toBeInstanceOf(ServerError);
    expect((error as Error).message).toMatch(
      /line \d+ ends a "content_block_delta" event whose data is not valid JSON/,
    );
    expect(logger.records.filter((r) => r.obj.event === 'sdk_log')).toEqual([]);
  });
});

describe('secrets echoed back never leave in errors', () => {
  const echoing = (status: number, type: string): ScriptedResponse => ({
    type: 'json',
    status,
    headers: { 'x-echo-key': KEY, 'x-echo-proxy': PROXY_TOKEN, 'x-api-key': KEY },
    body: {
      type: 'error',
      error: { type, message: `bad request for key ${KEY} via proxy ${PROXY_TOKEN}` },
    },
  });

  const expectClean = (text: string) => {
    expect(text).not.toContain(KEY);
    expect(text).not.toContain(PROXY_TOKEN);
  };

  for (const [status, type, retries] of [
    [401, 'authentication_error', 0],
    [400, 'invalid_request_error', 0],
    [500, 'api_error', 1],
  ] as const) {
    it(`${status} ${type}: util.inspect, JSON and onAttempt events hold no key`, async () => {
      server.enqueue(echoing(status, type), echoing(status, type));
      const attempts: AttemptEvent[] = [];
      const error = await adapter(retries)
        .complete(ask(), { onAttempt: (e) => attempts.push(e) })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(AdapterError);
      expect((error as AdapterError).provider_status).toBe(status);
      // the cause is still the SDK's error, readable, only redacted
      expect((error as AdapterError).cause).toBeInstanceOf(APIError);
      expect(((error as AdapterError).cause as APIError).status).toBe(status);
      expect(inspect((error as AdapterError).cause, { depth: 10 })).toContain('[REDACTED]');
      expectClean(inspect(error, { depth: 10 }));
      expectClean(JSON.stringify(error));
      expectClean(String((error as Error).stack));
      expect(attempts.length).toBeGreaterThanOrEqual(2);
      for (const event of attempts) {
        expectClean(JSON.stringify(event));
        expectClean(inspect(event, { depth: 10 }));
      }
    });
  }

  it('stream(): an echoed key before the first event stays out of the thrown error', async () => {
    server.enqueue(echoing(401, 'authentication_error'));
    const { events, error } = await drain(adapter(0).stream(ask({ stream: true })));
    expect(events).toEqual([]);
    expect((error as AdapterError).error_class).toBe('auth');
    expectClean(inspect(error, { depth: 10 }));
    expectClean(JSON.stringify(error));
  });
});

describe('an invalid model id', () => {
  it('is invalid_request for complete() and stream(), and nothing is sent', async () => {
    const a = adapter(2);
    await expect(a.complete(ask({ model: 'not-a-model-id' }))).rejects.toBeInstanceOf(
      InvalidRequestError,
    );
    const { events, error } = await drain(a.stream(ask({ model: 'not-a-model-id', stream: true })));
    expect(events).toEqual([]);
    expect(error).toBeInstanceOf(InvalidRequestError);
    expect((error as InvalidRequestError).message).toContain('not-a-model-id');
    expect(server.requests).toHaveLength(0);
  });
});

describe('a stream holding two replies', () => {
  it('a second message_start with another id ends the stream with the first reply only, then throws server_error', async () => {
    server.enqueue({
      type: 'stream',
      contentType: 'text/event-stream',
      chunks: [
        messageStart('msg_01First'),
        ...textBlock(0, 'First reply'),
        messageStart('msg_02Second'),
        ...textBlock(0, 'Second reply'),
        ...messageEnd(),
      ],
    });
    const { events, error } = await drain(adapter(2).stream(ask({ stream: true })));
    const completes = events.filter((e) => e.type === 'message.complete');
    expect(completes).toHaveLength(1);
    expect(events.at(-1)).toMatchObject({
      type: 'message.complete',
      stop_reason: 'error',
      final_content: [{ type: 'text', text: 'First reply' }],
    });
    expect(JSON.stringify(events)).not.toContain('Second reply');
    expect(error).toBeInstanceOf(ServerError);
    expect((error as ServerError).error_class).toBe('server_error');
    expect(server.requests).toHaveLength(1);
  });
});

describe('nothing is written to the console (the setup file fails any test that does)', () => {
  it('a model the SDK calls deprecated, and budget thinking on a model it warns about, log nothing', async () => {
    const logger = createMemoryLogger();
    server.enqueue({ type: 'json', body: textReply() }, { type: 'json', body: textReply() });
    const a = adapter(0, logger);
    const deprecated = await a.complete(ask({ model: 'anthropic:claude-sonnet-4-5' }));
    expect(deprecated.content[0]?.type).toBe('text');
    const thinking = await a.complete(
      ask({ model: 'anthropic:claude-opus-4-6', max_output_tokens: 4096 }),
      { providerOptions: { anthropic: { thinking: { type: 'enabled', budget_tokens: 2048 } } } },
    );
    expect(thinking.content[0]?.type).toBe('text');
    expect(server.requests[1]?.body).toMatchObject({
      model: 'claude-opus-4-6',
      thinking: { type: 'enabled', budget_tokens: 2048 },
    });
  });
});

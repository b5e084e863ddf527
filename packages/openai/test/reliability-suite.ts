/**
 * Faults through the real openai SDK to the loopback server (issue 12), shared by the OpenAI
 * and OpenRouter packages: connection resets mid-body and mid-stream, replies that do not
 * parse, keys echoed back in error bodies and headers, and invalid model ids.
 */
import { inspect } from 'node:util';
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
  type Logger,
  NetworkError,
  newRequestId,
  newSessionId,
  type ProviderAdapter,
  ServerError,
  type StreamEvent,
} from '@yourtool/core';
import { chatChunkEvent } from '@yourtool/testkit/chat-chunks';
import { APIError } from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';

/** A key no built-in key pattern recognises: only the configured secret can redact it. */
const KEY = 'conf-key-Zq81xLm2Pw0Tn5Vb';
/** A custom credential header's value, echoed back by a "proxy". */
const PROXY_TOKEN = 'proxy-pass-Hj47Kd92Lq';

/** How the suite builds the adapter under test. */
export interface ReliabilityAdapterConfig {
  baseUrl: string;
  apiKey: string;
  maxRetries: number;
  extraHeaders: Record<string, string>;
  logger: Logger;
}

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

/**
 * Registers the reliability tests for one Chat Completions adapter. `fixturesDir` must hold a
 * `text` JSON reply and a `text-stream` SSE reply whose first text is `Hello!`; `errorBody`
 * builds the provider's error body for a status and message.
 */
export function describeChatCompletionsReliability(options: {
  name: string;
  model: string;
  fixturesDir: string;
  createAdapter: (config: ReliabilityAdapterConfig) => ProviderAdapter;
  errorBody: (status: number, message: string) => unknown;
}): void {
  const fixtures = loadFixtureDirectory(options.fixturesDir);
  let server: LoopbackServer;
  beforeAll(async () => {
    server = await startLoopbackServer();
  });
  afterAll(() => server.close());
  beforeEach(() => server.reset());

  const session_id = newSessionId();
  const ask = (extra: Partial<CanonicalRequestInput> = {}): CanonicalRequestInput => ({
    request_id: newRequestId(),
    model: options.model,
    max_output_tokens: 256,
    messages: [
      createMessage({ session_id, role: 'user', content: [{ type: 'text', text: 'hi' }] }),
    ],
    ...extra,
  });
  const adapter = (maxRetries = 0, logger: Logger = createMemoryLogger()) =>
    options.createAdapter({
      baseUrl: server.url,
      apiKey: KEY,
      maxRetries,
      extraHeaders: { 'x-proxy-auth': PROXY_TOKEN },
      logger,
    });

  const textReply = (): unknown => {
    const response = fixtures.text?.[0];
    if (response?.type !== 'json') throw new Error('the text fixture is a JSON reply');
    return response.body;
  };
  const resetMidBody = (): ScriptedResponse => {
    const json = JSON.stringify(textReply());
    return {
      type: 'stream',
      contentType: 'application/json',
      chunks: [json.slice(0, json.indexOf('"content":') + 14)],
      ending: 'destroy',
    };
  };
  const streamFixture = () => {
    const response = fixtures['text-stream']?.[0];
    if (response?.type !== 'stream') throw new Error('the text-stream fixture is a stream');
    const firstText = response.chunks.findIndex((c) => c.includes('"content":"Hello!"'));
    if (firstText < 0) throw new Error('the text-stream fixture starts with "Hello!"');
    return { response, firstText };
  };
  const resetMidStream = (): ScriptedResponse => {
    const { response, firstText } = streamFixture();
    return { ...response, chunks: response.chunks.slice(0, firstText + 1), ending: 'destroy' };
  };

  describe(`${options.name}: connection resets are network failures`, () => {
    it('complete(): a reset mid-body is network and retried; a retry that gets the reply succeeds', async () => {
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
      expect(reply.content[0]).toMatchObject({ type: 'text' });
      expect(server.requests).toHaveLength(2);
    });

    it('stream(): a reset mid-stream ends with message.complete (error, partial text), then throws network', async () => {
      server.enqueue(resetMidStream());
      const { events, error } = await drain(adapter(2).stream(ask({ stream: true })));
      expect(events[0]?.type).toBe('message.start');
      expect(events.at(-1)).toMatchObject({
        type: 'message.complete',
        stop_reason: 'error',
        final_content: [{ type: 'text', text: 'Hello!' }],
      });
      expect(error).toBeInstanceOf(NetworkError);
      expect((error as NetworkError).error_class).toBe('network');
      expect(server.requests).toHaveLength(1);
    });
  });

  describe(`${options.name}: an abort that came first wins (issue 35)`, () => {
    const chunk = chatChunkEvent;
    /** Text, one tool call opened, then 400 text deltas: no finish, no [DONE], all in one write. */
    const burst = (): ScriptedResponse => ({
      type: 'stream',
      contentType: 'text/event-stream',
      chunks: [
        [
          chunk({ role: 'assistant', content: '' }),
          chunk({ content: 'Reading.' }),
          chunk({
            tool_calls: [
              {
                index: 0,
                id: 'call_burst',
                type: 'function',
                function: { name: 'read_file', arguments: '' },
              },
            ],
          }),
          chunk({ tool_calls: [{ index: 0, function: { arguments: '{"path":' } }] }),
          ...Array.from({ length: 400 }, (_, i) => chunk({ content: ` w${i}` })),
        ].join(''),
      ],
      ending: 'end',
    });

    // The text after the open call is held back until the call ends (decision 0137), so it
    // reaches the consumer only once the stream ended: the abort comes while it is handed out.
    it('stream(): text held behind a tool call, released when the stream ended without its finish, aborted at the 20th delta: cancelled, nothing thrown, at most one event after the abort', async () => {
      server.enqueue(burst());
      const controller = new AbortController();
      const events: StreamEvent[] = [];
      let deltas = 0;
      let afterAbort = -1;
      let error: unknown;
      try {
        for await (const event of adapter().stream(ask({ stream: true }), {
          signal: controller.signal,
        })) {
          events.push(event);
          if (afterAbort >= 0) afterAbort++;
          if (event.type.endsWith('.delta') && ++deltas === 20) {
            controller.abort();
            afterAbort = 0;
          }
        }
      } catch (e) {
        error = e;
      }
      expect(error).toBeUndefined();
      expect(afterAbort, 'the abort came at the 20th delta').toBeGreaterThanOrEqual(1);
      const last = events.at(-1);
      expect(last).toMatchObject({ type: 'message.complete', stop_reason: 'cancelled' });
      // message.complete and at most one more event
      expect(afterAbort).toBeLessThanOrEqual(2);
      expect(last).toMatchObject({
        final_content: [
          { type: 'text', text: 'Reading.' },
          { type: 'tool_use', input: {} },
          { type: 'text', text: expect.stringMatching(/^ w0 w1 .* w18$/) },
        ],
      });
    });
  });

  describe(`${options.name}: a reply that does not parse is server_error (decision 0071)`, () => {
    it('complete(): a 200 whose JSON body is truncated ("Unterminated string") is server_error, not network', async () => {
      const truncated: ScriptedResponse = {
        type: 'text',
        status: 200,
        headers: { 'content-type': 'application/json' },
        body: '{"id":"chatcmpl-1","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"Hel',
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

    it('stream(): a chunk whose data is not JSON is server_error naming its line', async () => {
      const logger = createMemoryLogger();
      const { response, firstText } = streamFixture();
      server.enqueue({
        ...response,
        chunks: [
          ...response.chunks.slice(0, firstText + 1),
          'data: {"id":"x","choices":[{"index":0,"delta":{"content":"unterminated\n\n',
        ],
      });
      const { events, error } = await drain(adapter(0, logger).stream(ask({ stream: true })));
      expect(events.at(-1)).toMatchObject({ type: 'message.complete', stop_reason: 'error' });
      expect(error).toBeInstanceOf(ServerError);
      expect((error as Error).message).toMatch(
        /line \d+ ends a "message" event whose data is not valid JSON/,
      );
      expect(logger.records.filter((r) => r.obj.event === 'sdk_log')).toEqual([]);
    });
  });

  describe(`${options.name}: secrets echoed back never leave in errors`, () => {
    const echoing = (status: number): ScriptedResponse => ({
      type: 'json',
      status,
      headers: { 'x-echo-key': KEY, 'x-echo-proxy': PROXY_TOKEN, authorization: `Bearer ${KEY}` },
      body: options.errorBody(status, `bad request for key ${KEY} via proxy ${PROXY_TOKEN}`),
    });
    const expectClean = (text: string) => {
      expect(text).not.toContain(KEY);
      expect(text).not.toContain(PROXY_TOKEN);
    };

    for (const [status, retries] of [
      [401, 0],
      [400, 0],
      [500, 1],
    ] as const) {
      it(`${status}: util.inspect, JSON and onAttempt events hold no key`, async () => {
        server.enqueue(echoing(status), echoing(status));
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
      server.enqueue(echoing(401));
      const { events, error } = await drain(adapter(0).stream(ask({ stream: true })));
      expect(events).toEqual([]);
      expect((error as AdapterError).error_class).toBe('auth');
      expectClean(inspect(error, { depth: 10 }));
      expectClean(JSON.stringify(error));
    });
  });

  describe(`${options.name}: an invalid model id`, () => {
    it('is invalid_request for complete() and stream(), and nothing is sent', async () => {
      const a = adapter(2);
      await expect(a.complete(ask({ model: 'not-a-model-id' }))).rejects.toBeInstanceOf(
        InvalidRequestError,
      );
      const { events, error } = await drain(
        a.stream(ask({ model: 'not-a-model-id', stream: true })),
      );
      expect(events).toEqual([]);
      expect(error).toBeInstanceOf(InvalidRequestError);
      expect((error as InvalidRequestError).message).toContain('not-a-model-id');
      expect(server.requests).toHaveLength(0);
    });
  });
}

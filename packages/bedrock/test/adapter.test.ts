import {
  type AdapterConfigInput,
  AuthError,
  createMessage,
  NetworkError,
  newRequestId,
  RateLimitError,
  type StreamEvent,
} from '@yourtool/core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { BedrockAdapter, DEFAULT_BEDROCK_MODEL } from '../src/index.js';
import { type AwsSandbox, awsSandbox } from './aws-env.js';
import { type BedrockServer, type Frame, startBedrockServer } from './bedrock-server.js';
import { converseReply } from './transport-context.js';

/**
 * The whole adapter (codec, transport, core's call runners) through the real SDK over HTTP/2 to
 * a loopback Bedrock server: replies, streams, the stream error contract, deadlines,
 * cancellation, retries and setup.
 */

const API_KEY = 'ABSKQmVkcm9ja0FQSUtleS1hZGFwdGVyLXRlc3QtMDAwMDAwMDAw';
const MODEL = 'bedrock:us.anthropic.claude-sonnet-4-5-20250929-v1:0';

let server: BedrockServer;
let sandbox: AwsSandbox;
beforeAll(async () => {
  server = await startBedrockServer();
});
afterAll(() => server.close());
beforeEach(() => {
  server.reset();
  sandbox = awsSandbox();
});
afterEach(() => sandbox.dispose());

const adapter = (config: AdapterConfigInput = {}) =>
  new BedrockAdapter(
    {
      api_key: API_KEY,
      base_url: server.h2Url,
      max_retries: 0,
      ...config,
      options: { region: 'us-east-1', ...config.options },
    },
    { retry: { baseDelayMs: 1, maxDelayMs: 2 } },
  );

const ask = (stream = false) => ({
  request_id: newRequestId(),
  model: MODEL,
  max_output_tokens: 64,
  stream,
  messages: [
    createMessage({
      session_id: 'sess_bedrock',
      role: 'user',
      content: [{ type: 'text', text: 'hi' }],
    }),
  ],
});

const start: Frame = { event: 'messageStart', payload: { role: 'assistant' } };
const text = (t: string): Frame => ({
  event: 'contentBlockDelta',
  payload: { contentBlockIndex: 0, delta: { text: t } },
});
const stop: Frame = { event: 'messageStop', payload: { stopReason: 'end_turn' } };
const metadata: Frame = {
  event: 'metadata',
  payload: {
    usage: { inputTokens: 7, outputTokens: 2, totalTokens: 9 },
    metrics: { latencyMs: 40 },
  },
};

/** Every event of a stream, and what it threw after them (if anything). */
async function drain(events: AsyncIterable<StreamEvent>) {
  const seen: StreamEvent[] = [];
  try {
    for await (const event of events) seen.push(event);
    return { seen, error: undefined };
  } catch (error) {
    return { seen, error };
  }
}

describe('the adapter', () => {
  it('is named bedrock, labelled Amazon Bedrock, defaulting to Claude Sonnet 4.5 global', () => {
    const bedrock = adapter();
    expect(bedrock.name).toBe('bedrock');
    expect(DEFAULT_BEDROCK_MODEL).toBe('bedrock:global.anthropic.claude-sonnet-4-5-20250929-v1:0');
    expect(bedrock.capabilities.supports_thinking).toBe(true);
    expect(bedrock.capabilitiesFor('bedrock:amazon.nova-micro-v1:0').supports_images).toBe(false);
  });

  it('complete(): one Converse call, its reply decoded', async () => {
    server.enqueue({ json: converseReply('Hello there') });
    const reply = await adapter().complete(ask());
    expect(reply.content).toEqual([{ type: 'text', text: 'Hello there' }]);
    expect(reply.stop_reason).toBe('end_turn');
    expect(reply.usage.input_tokens).toBe(3);
    expect(reply.usage.output_tokens).toBe(2);
    const [seen] = server.requests;
    expect(seen?.path).toBe('/model/us.anthropic.claude-sonnet-4-5-20250929-v1%3A0/converse');
    expect(seen?.headers.authorization).toBe(`Bearer ${API_KEY}`);
  });

  it('stream(): text deltas, then message.complete with the usage metadata brings', async () => {
    server.enqueue({ frames: [start, text('Hel'), text('lo'), stop, metadata] });
    const { seen, error } = await drain(adapter().stream(ask(true)));
    expect(error).toBeUndefined();
    expect(seen.filter((e) => e.type === 'text.delta').map((e) => e.text)).toEqual(['Hel', 'lo']);
    const complete = seen.at(-1);
    expect(complete?.type).toBe('message.complete');
    if (complete?.type !== 'message.complete') return;
    expect(complete.stop_reason).toBe('end_turn');
    expect(complete.final_content).toEqual([{ type: 'text', text: 'Hello' }]);
    expect(complete.usage.input_tokens).toBe(7);
    expect(complete.usage.output_tokens).toBe(2);
  });
});

describe('the stream error contract', () => {
  it('throttling in the stream: message.complete with stop_reason error, then RateLimitError', async () => {
    server.enqueue({
      frames: [
        start,
        text('partial'),
        { exception: 'throttlingException', payload: { message: 'slow down' } },
      ],
    });
    const { seen, error } = await drain(adapter().stream(ask(true)));
    const complete = seen.at(-1);
    expect(complete?.type).toBe('message.complete');
    if (complete?.type === 'message.complete') {
      expect(complete.stop_reason).toBe('error');
      expect(complete.final_content).toEqual([{ type: 'text', text: 'partial' }]);
    }
    expect(error).toBeInstanceOf(RateLimitError);
    expect((error as RateLimitError).provider_message).toBe('slow down');
  });

  it('a stream that ends before messageStop and metadata is a network error', async () => {
    server.enqueue({ frames: [start, text('cut')] });
    const { seen, error } = await drain(adapter().stream(ask(true)));
    expect(seen.at(-1)?.type).toBe('message.complete');
    expect(error).toBeInstanceOf(NetworkError);
    expect((error as NetworkError).message).toMatch(/ended before the message was complete/);
  });

  it('throttling in the first frame is retried like any failed open', async () => {
    server.enqueue(
      { frames: [{ exception: 'throttlingException', payload: { message: 'slow down' } }] },
      { frames: [start, text('ok'), stop, metadata] },
    );
    const { seen, error } = await drain(adapter({ max_retries: 1 }).stream(ask(true)));
    expect(error).toBeUndefined();
    expect(seen.at(-1)).toMatchObject({ type: 'message.complete', stop_reason: 'end_turn' });
    expect(server.requests).toHaveLength(2);
  });
});

describe('retries', () => {
  it("the SDK's own retries are off: max_retries 0 makes exactly one request", async () => {
    server.always({
      status: 503,
      errorType: 'ServiceUnavailableException',
      json: { message: 'busy' },
    });
    await expect(adapter().complete(ask())).rejects.toMatchObject({ error_class: 'server_error' });
    expect(server.requests).toHaveLength(1);
  });

  it('core retries a throttled call max_retries times', async () => {
    server.always({
      status: 429,
      errorType: 'ThrottlingException',
      json: { message: 'slow down' },
    });
    await expect(adapter({ max_retries: 2 }).complete(ask())).rejects.toMatchObject({
      error_class: 'rate_limit',
      attempts: 3,
    });
    expect(server.requests).toHaveLength(3);
  });
});

describe('deadlines and cancellation', () => {
  it('a reply that never comes fails network at timeout_seconds and its stream is closed', async () => {
    server.enqueue({ stall: true });
    const started = Date.now();
    await expect(adapter({ timeout_seconds: 0.5 }).complete(ask())).rejects.toBeInstanceOf(
      NetworkError,
    );
    expect(Date.now() - started).toBeLessThan(5_000);
    await vi.waitFor(() => expect(server.closedByClient()).toBe(1));
  });

  it('a stream silent past idle_timeout_seconds fails network and is closed', async () => {
    server.enqueue({ frames: [start, text('thinking')], hold: true });
    const { seen, error } = await drain(adapter({ idle_timeout_seconds: 0.3 }).stream(ask(true)));
    expect(seen.at(-1)).toMatchObject({ type: 'message.complete', stop_reason: 'error' });
    expect(error).toBeInstanceOf(NetworkError);
    await vi.waitFor(() => expect(server.closedByClient()).toBe(1));
  });

  it('cancel(request_id) mid-stream: message.complete cancelled, the HTTP/2 stream closed', async () => {
    server.enqueue({ frames: [start, text('partial')], hold: true });
    const bedrock = adapter();
    const request = ask(true);
    const seen: StreamEvent[] = [];
    for await (const event of bedrock.stream(request)) {
      seen.push(event);
      if (event.type === 'text.delta') await bedrock.cancel(request.request_id);
    }
    expect(seen.at(-1)).toMatchObject({ type: 'message.complete', stop_reason: 'cancelled' });
    await vi.waitFor(() => expect(server.closedByClient()).toBe(1));
  });
});

describe('setup', () => {
  it('with no credential anywhere: setupProblem says so, and a call fails auth before any request', async () => {
    const bedrock = new BedrockAdapter({
      base_url: server.h2Url,
      options: { region: 'us-east-1' },
    });
    expect(bedrock.setupProblem()).toMatch(/^no AWS credentials/);
    await expect(bedrock.complete(ask())).rejects.toBeInstanceOf(AuthError);
    expect(server.requests).toHaveLength(0);
  });

  it('an unknown option is refused at construction, named', () => {
    expect(() => new BedrockAdapter({ options: { regoin: 'us-east-1' } })).toThrow(/regoin/);
  });
});

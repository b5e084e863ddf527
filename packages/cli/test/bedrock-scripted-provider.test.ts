import { BedrockAdapter } from '@yourtool/bedrock';
import {
  type AdapterError,
  assertStreamInvariants,
  type CallOptions,
  type CanonicalRequestInput,
  createMessage,
  newRequestId,
  newSessionId,
  type StreamEvent,
} from '@yourtool/core';
import {
  chunkDelay,
  contextOverflow,
  httpError,
  overloaded,
  redactedThinking,
  reset,
  type ScriptedProvider,
  stall,
  startScriptedProvider,
  stopReason,
  text,
  thinking,
  toolCall,
  usage,
} from '@yourtool/testing';
import {
  afterAll,
  afterEach,
  beforeAll,
  beforeEach,
  describe,
  expect,
  it,
  onTestFinished,
  vi,
} from 'vitest';

/**
 * `@yourtool/testing`'s scripted provider in its Bedrock format (JSON replies, binary
 * event-stream frames, `x-amzn-errortype` errors) through the real BedrockAdapter and SDK, the
 * scenarios testing's wire-formats.test.ts runs for the other formats. It lives in the CLI's
 * tests, which may use every package: in testing's ADAPTERS table or in the bedrock package it
 * would close a build cycle (runtime peers on bedrock, testing depends on runtime).
 */

const MODEL = 'bedrock:us.anthropic.claude-sonnet-4-5-20250929-v1:0';
const KEY = 'ABSKc2NyaXB0ZWQtcHJvdmlkZXItdGVzdC1rZXk=';
const READ_FILE = {
  name: 'read_file',
  description: 'Read a file of the workspace.',
  input_schema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
  side_effects: 'read' as const,
};

let provider: ScriptedProvider;
let adapter: BedrockAdapter;
beforeAll(async () => {
  provider = await startScriptedProvider();
});
afterAll(() => provider.close());
beforeEach(() => {
  // the ambient AWS environment must not pick the credentials or the endpoint
  for (const name of [
    'AWS_BEARER_TOKEN_BEDROCK',
    'AWS_ENDPOINT_URL',
    'AWS_ENDPOINT_URL_BEDROCK_RUNTIME',
    'AWS_PROFILE',
  ]) {
    vi.stubEnv(name, undefined);
  }
  adapter = create({ idle_timeout_seconds: 10, timeout_seconds: 30 });
});
afterEach(async () => {
  await adapter.close();
  provider.clear();
  vi.unstubAllEnvs();
});

/** The adapter on the scripted provider (which speaks HTTP/1.1), with these deadlines. */
function create(deadlines: { idle_timeout_seconds: number; timeout_seconds: number }) {
  return new BedrockAdapter({
    api_key: KEY,
    base_url: provider.url,
    max_retries: 0,
    ...deadlines,
    options: { region: 'us-east-1', http_version: '1.1' },
  });
}

/** A one-message request. */
function request(question: string, extra: Partial<CanonicalRequestInput> = {}) {
  return {
    request_id: newRequestId(),
    model: MODEL,
    max_output_tokens: 1024,
    messages: [
      createMessage({
        session_id: newSessionId(),
        role: 'user',
        content: [{ type: 'text', text: question }],
      }),
    ],
    ...extra,
  };
}

/** Every event of a stream, and what it threw. */
async function collect(
  input: CanonicalRequestInput,
  options: CallOptions = {},
  onEvent: (event: StreamEvent) => void = () => {},
  on: BedrockAdapter = adapter,
): Promise<{ events: StreamEvent[]; error: unknown }> {
  const events: StreamEvent[] = [];
  try {
    for await (const event of on.stream({ ...input, stream: true }, options)) {
      events.push(event);
      onEvent(event);
    }
    return { events, error: undefined };
  } catch (error) {
    return { events, error };
  }
}

/** The `message.complete` event of a stream. */
function completion(events: readonly StreamEvent[]) {
  const last = events.find((e) => e.type === 'message.complete');
  if (last?.type !== 'message.complete') throw new Error('no message.complete event');
  return last;
}

describe('the scripted provider (format bedrock) through the real BedrockAdapter', () => {
  it('text: streamed in the scripted chunks, whole when not streamed, with its usage', async () => {
    provider.reply(
      text('Hello there, friend!', { chunks: 3 }),
      usage({ input_tokens: 12, output_tokens: 4, cached_input_tokens: 30 }),
    );
    const { events, error } = await collect(request('Say hello.'));
    expect(error).toBeUndefined();
    assertStreamInvariants(events);
    const deltas = events.flatMap((e) => (e.type === 'text.delta' ? [e.text] : []));
    expect(deltas).toEqual(['Hello t', 'here, f', 'riend!']);
    const done = completion(events);
    expect(done.final_content).toEqual([{ type: 'text', text: 'Hello there, friend!' }]);
    expect(done.stop_reason).toBe('end_turn');
    expect(done.usage).toMatchObject({
      input_tokens: 12,
      output_tokens: 4,
      cached_input_tokens: 30,
    });

    provider.reply(text('Whole.'));
    const whole = await adapter.complete(request('Again.'));
    expect(whole.content).toEqual([{ type: 'text', text: 'Whole.' }]);
    const [streamed, complete] = provider.requests;
    expect([streamed?.format, streamed?.stream, complete?.stream]).toEqual([
      'bedrock',
      true,
      false,
    ]);
    expect(complete?.lastUserText).toBe('Again.');
  });

  it('tool call: name and input arrive, the input in fragments', async () => {
    const input = { path: 'README.md', options: { lines: [1, 2], deep: { ok: true, n: null } } };
    provider.reply(text("I'll read it."), toolCall('read_file', input, { chunks: 3 }));
    const { events, error } = await collect(request('Read the README.', { tools: [READ_FILE] }));
    expect(error).toBeUndefined();
    assertStreamInvariants(events);
    const done = completion(events);
    expect(done.stop_reason).toBe('tool_use');
    expect(done.final_content).toMatchObject([
      { type: 'text', text: "I'll read it." },
      { type: 'tool_use', name: 'read_file', input },
    ]);
    expect(events.filter((e) => e.type === 'tool.use_input_delta')).toHaveLength(3);
    expect(provider.requests[0]?.tools).toEqual(['read_file']);
  });

  it('thinking: reasoning text with its signature, redacted reasoning as base64 bytes', async () => {
    provider.reply(
      thinking('The user wants a greeting.', { chunks: 2, signature: 'sig-Testing-0001' }),
      redactedThinking('AAECAwQ='),
      text('Hi!'),
    );
    const { events, error } = await collect(request('Greet me.'));
    expect(error).toBeUndefined();
    assertStreamInvariants(events);
    const thoughts = events.flatMap((e) => (e.type === 'thinking.delta' ? [e.text] : []));
    expect(thoughts.join('')).toBe('The user wants a greeting.');
    expect(completion(events).final_content).toEqual([
      { type: 'thinking', text: 'The user wants a greeting.', signature: 'sig-Testing-0001' },
      { type: 'redacted_thinking', data: 'AAECAwQ=' },
      { type: 'text', text: 'Hi!' },
    ]);
  });

  it('error status: 429 with its retry hint, 401, 500, overload and context overflow', async () => {
    const failure = async () => {
      const caught = await adapter.complete(request('Hello?')).catch((e: unknown) => e);
      return caught as AdapterError & { retry_after_seconds?: number | null };
    };
    provider.reply(httpError(429, { retryAfterSeconds: 2 }));
    const limited = await failure();
    expect([limited.error_class, limited.provider_status]).toEqual(['rate_limit', 429]);
    expect(limited.retry_after_seconds).toBe(2);
    provider.reply(httpError(401));
    expect((await failure()).error_class).toBe('auth');
    provider.reply(httpError(500));
    expect((await failure()).error_class).toBe('server_error');
    provider.reply(overloaded());
    const busy = await failure();
    expect([busy.retryable, busy.provider_status]).toEqual([true, 503]);
    provider.reply(contextOverflow());
    expect((await failure()).error_class).toBe('context_overflow');
  });

  it('stall: silence ends on the overall deadline, mid-stream on the idle one, or by cancelling', async () => {
    // the deadlines are what this test waits for: short ones keep it quick
    const short = create({ idle_timeout_seconds: 0.5, timeout_seconds: 2 });
    onTestFinished(() => short.close());
    provider.reply(stall());
    const silent = await collect(request('Hello?'), {}, () => {}, short);
    expect(silent.events).toEqual([]);
    expect((silent.error as AdapterError).error_class).toBe('network');

    provider.reply(stall(text('Hel')));
    const idle = await collect(request('Hello?'), {}, () => {}, short);
    expect((idle.error as AdapterError).error_class).toBe('network');
    expect(completion(idle.events)).toMatchObject({
      stop_reason: 'error',
      final_content: [{ type: 'text', text: 'Hel' }],
    });

    provider.reply(stall(text('Hel')));
    const controller = new AbortController();
    const abortOnText = (event: StreamEvent) => {
      if (event.type === 'text.delta') controller.abort();
    };
    const options = { signal: controller.signal };
    const cancelled = await collect(request('Hello?'), options, abortOnText, short);
    expect(cancelled.error).toBeUndefined();
    expect(completion(cancelled.events)).toMatchObject({
      stop_reason: 'cancelled',
      final_content: [{ type: 'text', text: 'Hel' }],
    });
    await expect.poll(() => provider.requests[2]?.aborted).toBe(true);
  });

  it('stop reason and pacing: a reply cut at max_tokens, its chunks spaced out', async () => {
    provider.reply(text('Cut short', { chunks: 2 }), stopReason('max_tokens'), chunkDelay(20));
    const started = Date.now();
    const { events, error } = await collect(request('Go on.'));
    expect(error).toBeUndefined();
    expect(Date.now() - started).toBeGreaterThanOrEqual(20);
    expect(completion(events)).toMatchObject({
      stop_reason: 'max_tokens',
      final_content: [{ type: 'text', text: 'Cut short' }],
    });
  });

  it('reset: before any answer, and mid-stream after partial text', async () => {
    provider.reply(reset());
    const before = await collect(request('Hello?'));
    expect(before.events).toEqual([]);
    expect((before.error as AdapterError).error_class).toBe('network');

    provider.reply(reset(text('Partial ', { chunks: 1 })));
    const mid = await collect(request('Hello?'));
    expect((mid.error as AdapterError).error_class).toBe('network');
    const done = completion(mid.events);
    expect(done.stop_reason).toBe('error');
    expect(done.final_content).toEqual([{ type: 'text', text: 'Partial ' }]);
  });
});

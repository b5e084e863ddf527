import { context, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { AlwaysOffSampler } from '@opentelemetry/sdk-trace';
import { type InstalledOtel, installOtel, parentOf, spanText } from '@yourtool/testkit/otel';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  type AdapterCallSetup,
  type CallEnd,
  type CanonicalResponse,
  collectStream,
  errorTypeOf,
  genAiProviderName,
  getTelemetry,
  InflightCalls,
  inputMessagesJson,
  NetworkError,
  OtherAdapterError,
  openCallTrace,
  otelApi,
  outputMessagesJson,
  resetOtelApiForTests,
  responseIdOf,
  runCompleteCall,
  runStreamCall,
  ServerError,
  type StreamBuilder,
  type StreamEvent,
  toolResultJson,
  YourtoolError,
} from './exports.js';
import { msg, PNG_1PX, SESSION } from './helpers.js';

type Chunk = { text?: string; done?: boolean; fail?: boolean };

const setup = (overrides: Partial<AdapterCallSetup> = {}): AdapterCallSetup => ({
  provider: 'fake',
  inflight: new InflightCalls(),
  maxRetries: 1,
  retry: { baseDelayMs: 1, maxDelayMs: 1 },
  toAdapterError: (error) =>
    error instanceof ServerError || error instanceof NetworkError
      ? error
      : new NetworkError(String(error)),
  ...overrides,
});

const request = (overrides: Record<string, unknown> = {}) => ({
  request_id: `req_${Math.random().toString(36).slice(2)}`,
  model: 'fake:model',
  max_output_tokens: 100,
  messages: [msg('user', [{ type: 'text', text: 'the secret question' }])],
  ...overrides,
});

const response = (overrides: Partial<CanonicalResponse> = {}): CanonicalResponse => ({
  request_id: 'req_x',
  model: 'fake:model',
  provider: 'fake',
  content: [{ type: 'text', text: 'the secret answer' }],
  stop_reason: 'end_turn',
  usage: {
    input_tokens: 10,
    output_tokens: 5,
    cached_input_tokens: 100,
    cache_creation_input_tokens: 20,
    reasoning_tokens: 2,
  },
  latency_ms: 12,
  provider_raw: { fake: { id: 'resp_123' } },
  served_model: 'fake:model-2026-01-01',
  ...overrides,
});

function chunks(list: Chunk[]): AsyncIterable<Chunk> {
  return {
    async *[Symbol.asyncIterator]() {
      for (const chunk of list) {
        await new Promise((resolve) => setTimeout(resolve, 1));
        if (chunk.fail) throw new Error('socket hang up');
        yield chunk;
      }
    },
  };
}

const onChunk = (chunk: Chunk, builder: StreamBuilder): StreamEvent[] => {
  if (!chunk.done) return builder.text(0, chunk.text ?? '');
  builder.updateUsage({ input_tokens: 7, output_tokens: 3 });
  builder.servedModel('fake:model-v2');
  return builder.complete('end_turn', { fake: { id: 'stream_9' } });
};

let otel: InstalledOtel | null = null;
afterEach(async () => {
  await otel?.uninstall();
  otel = null;
  resetOtelApiForTests();
  delete process.env.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT;
});

describe('the call span and metrics', () => {
  beforeEach(() => {
    otel = installOtel();
  });

  it('a complete call: one CLIENT span with the request and reply attributes', async () => {
    const got = await runCompleteCall(
      setup({ wireName: () => 'model-wire' }),
      request({ temperature: 0.3, stop_sequences: ['END'], output_schema: { type: 'object' } }),
      {},
      async () => response(),
    );
    expect(got.stop_reason).toBe('end_turn');
    const [span] = otel?.spans() ?? [];
    expect(span?.name).toBe('chat model-wire');
    expect(span?.kind).toBe(SpanKind.CLIENT);
    expect(span?.attributes).toEqual({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'fake',
      'gen_ai.request.model': 'model-wire',
      'gen_ai.conversation.id': SESSION,
      'gen_ai.request.max_tokens': 100,
      'gen_ai.request.temperature': 0.3,
      'gen_ai.request.stop_sequences': ['END'],
      'gen_ai.output.type': 'json',
      'yourtool.request_id': expect.stringMatching(/^req_/),
      'yourtool.model_id': 'fake:model',
      'gen_ai.response.model': 'model-2026-01-01',
      'gen_ai.response.id': 'resp_123',
      'gen_ai.response.finish_reasons': ['end_turn'],
      'yourtool.stop_reason': 'end_turn',
      'gen_ai.usage.input_tokens': 130,
      'gen_ai.usage.output_tokens': 5,
      'gen_ai.usage.cache_read.input_tokens': 100,
      'gen_ai.usage.cache_creation.input_tokens': 20,
      'gen_ai.usage.reasoning.output_tokens': 2,
      'yourtool.attempts': 1,
    });
    expect(span?.status.code).toBe(SpanStatusCode.UNSET);
    expect(spanText(span as never)).not.toContain('secret');

    const attrs = {
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'fake',
      'gen_ai.request.model': 'model-wire',
      'gen_ai.response.model': 'model-2026-01-01',
    };
    const durations = (await otel?.histogram('gen_ai.client.operation.duration')) ?? [];
    expect(durations.map((p) => [p.attributes, p.count])).toEqual([[attrs, 1]]);
    const tokens = (await otel?.histogram('gen_ai.client.token.usage')) ?? [];
    expect(tokens.map((p) => [p.attributes['gen_ai.token.type'], p.sum])).toEqual([
      ['input', 130],
      ['output', 5],
    ]);
    expect(await otel?.histogram('gen_ai.client.operation.time_to_first_chunk')).toEqual([]);
  });

  it('each retried attempt is a span event; the transport runs with the call span active', async () => {
    let attempts = 0;
    const active: Array<string | undefined> = [];
    const seen: string[] = [];
    await runCompleteCall(setup(), request(), { onAttempt: (e) => seen.push(e.type) }, async () => {
      active.push(trace.getActiveSpan()?.spanContext().spanId);
      attempts++;
      if (attempts === 1) throw new ServerError('busy', { provider_status: 529 });
      return response();
    });
    const [span] = otel?.spans() ?? [];
    expect(seen, "the caller's onAttempt still sees every attempt").toEqual([
      'attempt.start',
      'attempt.failed',
      'attempt.start',
      'attempt.succeeded',
    ]);
    expect(active).toEqual([span?.spanContext().spanId, span?.spanContext().spanId]);
    expect(span?.attributes['yourtool.attempts']).toBe(2);
    expect(span?.events.map((e) => [e.name, e.attributes])).toEqual([
      [
        'yourtool.retry',
        {
          'yourtool.attempt': 1,
          'error.type': 'server_error',
          'yourtool.provider_status': 529,
          'yourtool.retry.delay_ms': expect.any(Number),
        },
      ],
    ]);
    expect(span?.status.code).toBe(SpanStatusCode.UNSET);
  });

  it('a failed call: error.type and an ERROR status, described by the class only', async () => {
    await expect(
      runCompleteCall(setup({ maxRetries: 0 }), request(), {}, async () => {
        throw new ServerError('upstream said: the secret question was too long', {
          provider_status: 500,
        });
      }),
    ).rejects.toBeInstanceOf(ServerError);
    const [span] = otel?.spans() ?? [];
    expect(span?.attributes).toMatchObject({
      'error.type': 'server_error',
      'yourtool.provider_status': 500,
    });
    expect(span?.status).toEqual({ code: SpanStatusCode.ERROR, message: 'server_error' });
    expect(spanText(span as never)).not.toContain('secret');
    const durations = (await otel?.histogram('gen_ai.client.operation.duration')) ?? [];
    expect(durations.map((p) => p.attributes['error.type'])).toEqual(['server_error']);
    expect(await otel?.histogram('gen_ai.client.token.usage')).toEqual([]);
  });

  it('a stream: time to first chunk, the reply from message.complete, the onEnd hook', async () => {
    const ends: CallEnd[] = [];
    const { error } = await collectStream(
      runStreamCall(
        setup(),
        request({ stream: true }),
        {
          telemetry: {
            attributes: { 'app.tenant': 'acme' },
            onEnd: (end) => {
              ends.push(end);
              return { 'yourtool.cost_usd': '0.0001' };
            },
          },
        },
        { open: async () => chunks([{ text: 'a' }, { text: 'b' }, { done: true }]), onChunk },
      ),
    );
    expect(error).toBeUndefined();
    const [span] = otel?.spans() ?? [];
    expect(span?.attributes).toMatchObject({
      'app.tenant': 'acme',
      'gen_ai.request.stream': true,
      'gen_ai.response.model': 'model-v2',
      'gen_ai.response.id': 'stream_9',
      'gen_ai.response.finish_reasons': ['end_turn'],
      'gen_ai.usage.input_tokens': 7,
      'gen_ai.usage.output_tokens': 3,
      'yourtool.cost_usd': '0.0001',
    });
    expect(span?.attributes['gen_ai.response.time_to_first_chunk']).toBeGreaterThan(0);
    expect(ends).toEqual([
      {
        usage: expect.objectContaining({ input_tokens: 7, output_tokens: 3 }),
        served_model: 'fake:model-v2',
        stop_reason: 'end_turn',
        latency_ms: expect.any(Number),
        error: null,
      },
    ]);
    const first = (await otel?.histogram('gen_ai.client.operation.time_to_first_chunk')) ?? [];
    expect(first).toHaveLength(1);
    expect(first[0]?.attributes).toEqual({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'fake',
      'gen_ai.request.model': 'model',
      'gen_ai.response.model': 'model-v2',
    });
  });

  it('a stream that fails mid-way: error.type with the partial usage', async () => {
    const { error } = await collectStream(
      runStreamCall(
        setup(),
        request({ stream: true }),
        {},
        {
          open: async () => chunks([{ text: 'a' }, { fail: true }]),
          onChunk,
        },
      ),
    );
    expect(error).toBeInstanceOf(NetworkError);
    const [span] = otel?.spans() ?? [];
    expect(span?.attributes).toMatchObject({
      'error.type': 'network',
      'gen_ai.response.finish_reasons': ['error'],
    });
    expect(span?.status.code).toBe(SpanStatusCode.ERROR);
  });

  it('a cancelled stream is named cancelled and its status stays unset', async () => {
    const controller = new AbortController();
    const events: StreamEvent[] = [];
    for await (const event of runStreamCall(
      setup(),
      request({ stream: true }),
      { signal: controller.signal },
      {
        open: async () => chunks([{ text: 'a' }, { text: 'b' }, { text: 'c' }, { done: true }]),
        onChunk,
      },
    )) {
      events.push(event);
      if (event.type === 'text.delta') controller.abort();
    }
    expect(events.at(-1)).toMatchObject({ type: 'message.complete', stop_reason: 'cancelled' });
    const [span] = otel?.spans() ?? [];
    expect(span?.attributes).toMatchObject({
      'error.type': 'cancelled',
      'gen_ai.response.finish_reasons': ['cancelled'],
    });
    expect(span?.status.code).toBe(SpanStatusCode.UNSET);
    const durations = (await otel?.histogram('gen_ai.client.operation.duration')) ?? [];
    expect(durations.map((p) => p.attributes['error.type'])).toEqual(['cancelled']);
  });

  it('an explicit parent context places the span; a failing onEnd hook costs nothing else', async () => {
    const tracer = trace.getTracer('app');
    const parent = tracer.startSpan('turn');
    await runCompleteCall(
      setup(),
      request(),
      {
        telemetry: {
          parent: trace.setSpan(context.active(), parent),
          onEnd: () => {
            throw new Error('hook broke');
          },
        },
      },
      async () => response(),
    );
    parent.end();
    const call = otel?.spans().find((s) => s.name === 'chat model');
    expect(parentOf(call as never)).toBe(parent.spanContext().spanId);
    expect(call?.attributes['gen_ai.response.id']).toBe('resp_123');
  });

  it('content is recorded only when opted in, per call or by the environment variable', async () => {
    const run = (captureContent?: boolean) =>
      runCompleteCall(
        setup(),
        request({ system_prompt: 'be brief, secret system' }),
        captureContent === undefined ? {} : { telemetry: { captureContent } },
        async () => response(),
      );
    await run();
    await run(true);
    process.env.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT = 'true';
    await run();
    await run(false);
    const spans = otel?.spans() ?? [];
    expect(spans.map((s) => spanText(s).includes('the secret question'))).toEqual([
      false,
      true,
      true,
      false,
    ]);
    const captured = spans[1];
    expect(JSON.parse(String(captured?.attributes['gen_ai.input.messages']))).toEqual([
      { role: 'user', parts: [{ type: 'text', content: 'the secret question' }] },
    ]);
    expect(JSON.parse(String(captured?.attributes['gen_ai.output.messages']))).toEqual([
      {
        role: 'assistant',
        parts: [{ type: 'text', content: 'the secret answer' }],
        finish_reason: 'end_turn',
      },
    ]);
    expect(JSON.parse(String(captured?.attributes['gen_ai.system_instructions']))).toEqual([
      { type: 'text', content: 'be brief, secret system' },
    ]);
  });

  it('usage the adapter estimated is on the span, flagged, but not a token metric point', async () => {
    await runCompleteCall(setup(), request(), {}, async () =>
      response({
        usage: {
          input_tokens: 10,
          output_tokens: 5,
          cached_input_tokens: 0,
          cache_creation_input_tokens: 0,
          estimated: true,
        },
      }),
    );
    const [span] = otel?.spans() ?? [];
    expect(span?.attributes).toMatchObject({
      'gen_ai.usage.input_tokens': 10,
      'yourtool.usage.estimated': true,
    });
    expect(await otel?.histogram('gen_ai.client.token.usage')).toEqual([]);
  });
});

describe('when nothing records', () => {
  it('with no SDK registered, no trace is opened and nothing is built', async () => {
    const api = await otelApi();
    expect(api).not.toBeNull();
    expect(openCallTrace(setup(), request() as never, undefined, false)).toBeNull();
    const lib = await getTelemetry();
    expect(
      lib?.startSpan('@yourtool/session', 'invoke_agent', {
        attributes: () => {
          throw new Error('attributes built with nothing registered');
        },
      }),
    ).toBeNull();
    const onEnd = vi.fn();
    const got = await runCompleteCall(setup(), request(), { telemetry: { onEnd } }, async () =>
      response(),
    );
    expect(got.stop_reason).toBe('end_turn');
    expect(onEnd).not.toHaveBeenCalled();
  });

  it('a sampled-out call skips its attributes and hook; its metrics are still recorded', async () => {
    otel = installOtel({ sampler: new AlwaysOffSampler() });
    const onEnd = vi.fn();
    await runCompleteCall(setup(), request(), { telemetry: { onEnd } }, async () => response());
    expect(otel.spans()).toEqual([]);
    expect(onEnd).not.toHaveBeenCalled();
    expect(await otel.histogram('gen_ai.client.operation.duration')).toHaveLength(1);
  });
});

describe('without @opentelemetry/api', () => {
  const missing = () => Promise.reject(new Error("Cannot find module '@opentelemetry/api'"));

  it('calls work and nothing is attempted again once the import failed', async () => {
    const importer = vi.fn(missing);
    resetOtelApiForTests(importer);
    const got = await runCompleteCall(setup(), request(), {}, async () => response());
    expect(got.content).toEqual([{ type: 'text', text: 'the secret answer' }]);
    const { events, error } = await collectStream(
      runStreamCall(
        setup(),
        request({ stream: true }),
        {},
        {
          open: async () => chunks([{ text: 'a' }, { done: true }]),
          onChunk,
        },
      ),
    );
    expect(error).toBeUndefined();
    expect(events.at(-1)?.type).toBe('message.complete');
    expect(otelApi()).toBeNull();
    expect(getTelemetry()).toBeNull();
    expect(importer).toHaveBeenCalledTimes(1);
  });

  it('a module system that cannot load the package: the real import path degrades too', async () => {
    vi.resetModules();
    vi.doMock('@opentelemetry/api', () => {
      throw new Error("Cannot find package '@opentelemetry/api'");
    });
    try {
      const fresh = await import('../src/call-complete.js');
      const { InflightCalls: FreshInflight } = await import('../src/adapter.js');
      const got = await fresh.runCompleteCall(
        { ...setup(), inflight: new FreshInflight() },
        request(),
        {},
        async () => response(),
      );
      expect(got.stop_reason).toBe('end_turn');
      const { otelApi: freshApi } = await import('../src/telemetry/api.js');
      expect(freshApi()).toBeNull();
    } finally {
      vi.doUnmock('@opentelemetry/api');
      vi.resetModules();
    }
  });
});

describe('conventions mapping', () => {
  it('provider names: the well-known values, else the adapter name', () => {
    expect(
      ['anthropic', 'openai', 'google', 'azure', 'mistral', 'ollama', 'openrouter', 'acme'].map(
        genAiProviderName,
      ),
    ).toEqual([
      'anthropic',
      'openai',
      'gcp.gen_ai',
      'azure.ai.openai',
      'mistral_ai',
      'ollama',
      'openrouter',
      'acme',
    ]);
  });

  it("a reply's id from provider_raw, Gemini's response_id included", () => {
    expect(responseIdOf({ anthropic: { id: 'msg_1' } }, 'anthropic')).toBe('msg_1');
    expect(responseIdOf({ google: { response_id: 'r_2' } }, 'google')).toBe('r_2');
    expect(responseIdOf({ openrouter: { id: 'gen-3' } }, 'openai-compatible')).toBe('gen-3');
    expect(responseIdOf({ ollama: { model: 'qwen3' } }, 'ollama')).toBeUndefined();
    expect(responseIdOf(null, 'x')).toBeUndefined();
  });

  it('error.type: an adapter error class, another library error code, else _OTHER', () => {
    expect(errorTypeOf(new OtherAdapterError('x'))).toBe('other');
    expect(errorTypeOf(new YourtoolError('no_route', 'x'))).toBe('no_route');
    expect(errorTypeOf(new TypeError('x'))).toBe('_OTHER');
  });

  it('every block type as the conventions message parts; inline image bytes are not copied', () => {
    const user = msg('user', [
      { type: 'text', text: 'look' },
      { type: 'image', media_type: 'image/png', source: { kind: 'base64', data: PNG_1PX } },
      {
        type: 'image',
        media_type: 'image/jpeg',
        source: { kind: 'url', data: 'https://example.com/a.jpg' },
      },
    ]);
    const assistant = msg('assistant', [
      { type: 'thinking', text: 'hmm', signature: 'sig' },
      { type: 'redacted_thinking', data: 'opaque' },
      { type: 'tool_use', id: 'tu_1', name: 'read_file', input: { path: 'a' } },
    ]);
    const tool = msg('tool', [
      {
        type: 'tool_result',
        tool_use_id: 'tu_1',
        content: [{ type: 'text', text: 'A' }],
        is_error: true,
      },
    ]);
    const parsed = JSON.parse(inputMessagesJson([user, assistant, tool]));
    expect(parsed).toEqual([
      {
        role: 'user',
        parts: [
          { type: 'text', content: 'look' },
          { type: 'image', mime_type: 'image/png', source: 'base64', base64_chars: PNG_1PX.length },
          {
            type: 'uri',
            modality: 'image',
            mime_type: 'image/jpeg',
            uri: 'https://example.com/a.jpg',
          },
        ],
      },
      {
        role: 'assistant',
        parts: [
          { type: 'reasoning', content: 'hmm' },
          { type: 'redacted_reasoning' },
          { type: 'tool_call', id: 'tu_1', name: 'read_file', arguments: { path: 'a' } },
        ],
      },
      {
        role: 'tool',
        parts: [{ type: 'tool_call_response', id: 'tu_1', response: 'A', is_error: true }],
      },
    ]);
    expect(JSON.stringify(parsed)).not.toContain(PNG_1PX);
    expect(JSON.parse(outputMessagesJson([{ type: 'text', text: 'x' }], 'max_tokens'))).toEqual([
      { role: 'assistant', parts: [{ type: 'text', content: 'x' }], finish_reason: 'max_tokens' },
    ]);
    expect(
      JSON.parse(
        toolResultJson([
          { type: 'text', text: 'chart:' },
          { type: 'image', media_type: 'image/png', source: { kind: 'base64', data: PNG_1PX } },
        ]),
      ),
    ).toEqual([
      { type: 'text', content: 'chart:' },
      { type: 'image', mime_type: 'image/png', source: 'base64', base64_chars: PNG_1PX.length },
    ]);
  });
});

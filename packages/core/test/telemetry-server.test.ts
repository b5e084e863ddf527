// Issue 38, telemetry: where a call goes (server.address, server.port), the provider's finish
// reason beside the canonical stop reason, and tracer and meter providers handed in by the
// caller instead of the global ones.
import { MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import {
  InMemorySpanExporter,
  SimpleSpanProcessor,
  TracerProvider,
} from '@opentelemetry/sdk-trace';
import { type InstalledOtel, installOtel } from '@yourtool/testkit/otel';
import { afterEach, describe, expect, it } from 'vitest';
import { serverAddressOf } from '../src/telemetry/server.js';
import {
  type AdapterCallSetup,
  type CanonicalResponse,
  collectStream,
  InflightCalls,
  NetworkError,
  resetOtelApiForTests,
  runCompleteCall,
  runStreamCall,
  type StreamBuilder,
  type StreamEvent,
} from './exports.js';
import { msg } from './helpers.js';

const setup = (overrides: Partial<AdapterCallSetup> = {}): AdapterCallSetup => ({
  provider: 'fake',
  inflight: new InflightCalls(),
  maxRetries: 0,
  toAdapterError: (error) => new NetworkError(String(error)),
  server: { address: 'api.example.test', port: 8443 },
  wireFinishReason: (raw) => (raw.fake as { finish?: string } | undefined)?.finish,
  ...overrides,
});

const request = () => ({
  request_id: `req_${Math.random().toString(36).slice(2)}`,
  model: 'fake:model',
  max_output_tokens: 100,
  messages: [msg('user', [{ type: 'text', text: 'hi' }])],
});

const response = (overrides: Partial<CanonicalResponse> = {}): CanonicalResponse => ({
  request_id: 'req_x',
  model: 'fake:model',
  provider: 'fake',
  content: [{ type: 'text', text: 'hello' }],
  stop_reason: 'max_tokens',
  usage: {
    input_tokens: 10,
    output_tokens: 5,
    cached_input_tokens: 0,
    cache_creation_input_tokens: 0,
  },
  latency_ms: 3,
  provider_raw: { fake: { id: 'resp_1', finish: 'length' } },
  ...overrides,
});

class Reader extends MetricReader {
  protected async onForceFlush(): Promise<void> {}
  protected async onShutdown(): Promise<void> {}
}

let otel: InstalledOtel | null = null;
afterEach(async () => {
  await otel?.uninstall();
  otel = null;
  resetOtelApiForTests();
});

describe('server.address and server.port', () => {
  it('a base URL names its host and port; a scheme gives the default port', () => {
    expect(serverAddressOf('https://api.openai.com/v1')).toEqual({
      address: 'api.openai.com',
      port: 443,
    });
    expect(serverAddressOf('http://127.0.0.1:11434')).toEqual({
      address: '127.0.0.1',
      port: 11434,
    });
    expect(serverAddressOf('http://[::1]:8080/x')).toEqual({ address: '::1', port: 8080 });
    expect(serverAddressOf('http://ollama.lan')).toEqual({ address: 'ollama.lan', port: 80 });
    expect(serverAddressOf('not a url')).toBeNull();
    expect(serverAddressOf(undefined)).toBeNull();
  });

  it('are on the call span from its start and on every client metric point', async () => {
    otel = installOtel();
    await runCompleteCall(setup(), request(), {}, async () => response());
    const [span] = otel.spans();
    expect(span?.attributes).toMatchObject({
      'server.address': 'api.example.test',
      'server.port': 8443,
    });
    const points = await otel.allMetricPoints();
    expect(points.length).toBeGreaterThanOrEqual(3);
    for (const point of points) {
      expect(point.attributes, point.name).toMatchObject({
        'server.address': 'api.example.test',
        'server.port': 8443,
      });
    }
  });

  it('an adapter that does not know where it sends leaves them out', async () => {
    otel = installOtel();
    await runCompleteCall(setup({ server: null }), request(), {}, async () => response());
    const [span] = otel.spans();
    expect(span?.attributes['server.address']).toBeUndefined();
    expect(span?.attributes['server.port']).toBeUndefined();
  });
});

describe('finish reasons', () => {
  it("gen_ai.response.finish_reasons is the provider's value; yourtool.stop_reason the canonical one", async () => {
    otel = installOtel();
    await runCompleteCall(setup(), request(), {}, async () => response());
    const [span] = otel.spans();
    expect(span?.attributes['gen_ai.response.finish_reasons']).toEqual(['length']);
    expect(span?.attributes['yourtool.stop_reason']).toBe('max_tokens');
  });

  it('a stream: the value the adapter reads from message.complete', async () => {
    otel = installOtel();
    const onChunk = (chunk: { done?: boolean }, builder: StreamBuilder): StreamEvent[] =>
      chunk.done
        ? builder.complete('tool_use', { fake: { finish: 'tool_calls' } })
        : builder.text(0, 'x');
    const events = runStreamCall(
      setup(),
      request(),
      {},
      {
        open: async () => ({
          async *[Symbol.asyncIterator]() {
            yield {};
            yield { done: true };
          },
        }),
        onChunk,
      },
    );
    await collectStream(events);
    const [span] = otel.spans();
    expect(span?.attributes['gen_ai.response.finish_reasons']).toEqual(['tool_calls']);
    expect(span?.attributes['yourtool.stop_reason']).toBe('tool_use');
  });

  it('an adapter that reads no provider value: the canonical stop reason stands in', async () => {
    otel = installOtel();
    await runCompleteCall(setup({ wireFinishReason: undefined }), request(), {}, async () =>
      response(),
    );
    const [span] = otel.spans();
    expect(span?.attributes['gen_ai.response.finish_reasons']).toEqual(['max_tokens']);
  });
});

describe('tracer and meter providers handed in', () => {
  it('record the call with nothing registered globally', async () => {
    const exporter = new InMemorySpanExporter();
    const tracerProvider = new TracerProvider({
      spanProcessors: [new SimpleSpanProcessor({ exporter })],
    });
    const reader = new Reader();
    const meterProvider = new MeterProvider({ readers: [reader] });
    await runCompleteCall(
      setup(),
      request(),
      { telemetry: { tracerProvider, meterProvider } },
      async () => response(),
    );
    const spans = exporter.getFinishedSpans();
    expect(spans.map((s) => s.name)).toEqual(['chat model']);
    expect(spans[0]?.attributes['server.address']).toBe('api.example.test');
    const { resourceMetrics } = await reader.collect();
    const names = resourceMetrics.scopeMetrics.flatMap((s) =>
      s.metrics.map((m) => m.descriptor.name),
    );
    expect(names).toContain('gen_ai.client.operation.duration');
    expect(names).toContain('gen_ai.client.token.usage');
    await tracerProvider.shutdown();
    await meterProvider.shutdown();
  });
});

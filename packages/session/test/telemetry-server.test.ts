// Issue 38, telemetry, through a session turn on real adapters (Anthropic and OpenAI, their
// SDKs against the conformance loopback server): where each call went, the provider's finish
// reason beside the canonical one, the provider's tool call id beside ours, the turn's model at
// the start of its span, and tracer and meter providers handed to the manager.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Attributes } from '@opentelemetry/api';
import { MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import {
  InMemorySpanExporter,
  type ReadableSpan,
  type Sampler,
  SamplingDecision,
  SimpleSpanProcessor,
  TracerProvider,
} from '@opentelemetry/sdk-trace';
import { AnthropicAdapter } from '@yourtool/anthropic';
import { type LoopbackServer, startLoopbackServer } from '@yourtool/conformance';
import { createMemoryLogger } from '@yourtool/core';
import { OpenAIAdapter } from '@yourtool/openai';
import { defaultPriceTable } from '@yourtool/pricing';
import { ModelRegistry, parseRoutingConfig, Router } from '@yourtool/router';
import { openStore, type SqlSessionStore } from '@yourtool/store';
import { type InstalledOtel, installOtel } from '@yourtool/testkit/otel';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SessionManager, type SessionManagerOptions, ToolRegistry } from '../src/index.js';
import { collect, fixturesOf, requireFixture } from './helpers.js';

const anthropic = fixturesOf('anthropic');
const openai = fixturesOf('openai');

let server: LoopbackServer;
let port: number;
beforeAll(async () => {
  server = await startLoopbackServer({});
  port = Number(new URL(server.url).port);
});
afterAll(() => server.close());

const stores: SqlSessionStore[] = [];
let otel: InstalledOtel | null = null;
beforeEach(() => server.reset());
afterEach(async () => {
  await otel?.uninstall();
  otel = null;
  await Promise.all(stores.splice(0).map((s) => s.close()));
});

/** Records the attributes each span was started with (what a sampler sees). */
function startRecorder() {
  const started: Array<{ name: string; attributes: Attributes }> = [];
  const sampler: Sampler = {
    shouldSample: (_context, _traceId, name, _kind, attributes) => {
      started.push({ name, attributes: { ...attributes } });
      return { decision: SamplingDecision.RECORD_AND_SAMPLED };
    },
    toString: () => 'recorder',
  };
  return { started, sampler };
}

async function manager(options: Partial<SessionManagerOptions> = {}) {
  const store = await openStore(`sqlite:${join(mkdtempSync(join(tmpdir(), 'otel-srv-')), 's.db')}`);
  stores.push(store);
  const registry = ModelRegistry.fromYaml(
    `
adapters:
  anthropic: { type: anthropic, api_key: sk-ant-test-0123456789, base_url: ${server.url}, max_retries: 0 }
  openai: { type: openai, api_key: sk-test-abcdefghijklmnop, base_url: ${server.url}, max_retries: 0 }
models:
  openai:gpt-5: { adapter: openai, wire_name: gpt-5, aliases: [gpt5] }
  anthropic:claude-sonnet-4-6: { adapter: anthropic, wire_name: claude-sonnet-4-6, aliases: [sonnet] }
`,
    {
      factories: {
        anthropic: (config, runtime) => new AnthropicAdapter(config, runtime),
        openai: (config, runtime) => new OpenAIAdapter(config, runtime),
      },
      logger: createMemoryLogger(),
    },
  );
  return new SessionManager({
    store,
    router: new Router({ registry, config: parseRoutingConfig('global_default: sonnet') }),
    pricing: defaultPriceTable(),
    tools: new ToolRegistry([
      {
        definition: {
          name: 'read_file',
          description: 'Read a file.',
          input_schema: { type: 'object', properties: { path: { type: 'string' } } },
          side_effects: 'read',
        },
        run: async () => 'contents',
      },
    ]),
    ...options,
  });
}

const named = (spans: readonly ReadableSpan[], name: string) => {
  const found = spans.filter((s) => s.name === name);
  if (found.length === 0) throw new Error(`no span ${name}`);
  return found;
};
const byStep = (spans: ReadableSpan[]) =>
  spans.sort(
    (a, b) => Number(a.attributes['yourtool.step']) - Number(b.attributes['yourtool.step']),
  );

describe('a tool loop, traced', () => {
  it('on OpenAI (chosen for the turn): server, wire finish reasons, the call_ id, the model at the start', async () => {
    const recorder = startRecorder();
    otel = installOtel({ sampler: recorder.sampler });
    const sessions = await manager();
    server.enqueue(
      ...requireFixture(openai, 'tool-call-stream'),
      ...requireFixture(openai, 'text-stream'),
    );
    const session = await sessions.createSession({ workspace_path: '/w' });
    const { error } = await collect(sessions.send(session.id, 'Read it.', { model: 'gpt5' }));
    expect(error).toBeUndefined();
    const spans = otel.spans();

    const turnStart = recorder.started.find((s) => s.name === 'invoke_agent');
    expect(turnStart?.attributes).toMatchObject({
      'gen_ai.provider.name': 'openai',
      'gen_ai.request.model': 'gpt-5',
      'yourtool.model_id': 'openai:gpt-5',
    });
    const chatStarts = recorder.started.filter((s) => s.name === 'chat gpt-5');
    expect(chatStarts).toHaveLength(2);
    for (const start of chatStarts) {
      expect(start.attributes).toMatchObject({
        'server.address': '127.0.0.1',
        'server.port': port,
      });
    }

    const [first, second] = byStep(named(spans, 'chat gpt-5'));
    expect(first?.attributes).toMatchObject({
      'server.address': '127.0.0.1',
      'server.port': port,
      'gen_ai.response.finish_reasons': ['tool_calls'],
      'yourtool.stop_reason': 'tool_use',
    });
    expect(second?.attributes).toMatchObject({
      'gen_ai.response.finish_reasons': ['stop'],
      'yourtool.stop_reason': 'end_turn',
    });

    const [tool] = named(spans, 'execute_tool read_file');
    expect(tool?.attributes['gen_ai.tool.call.id']).toMatch(/^tu_/);
    expect(tool?.attributes['yourtool.tool.provider_call_id']).toBe(
      'call_Conformance0ToolCall0002',
    );

    const points = await otel.allMetricPoints();
    expect(points.length).toBeGreaterThan(0);
    for (const point of points) {
      expect(point.attributes, point.name).toMatchObject({
        'server.address': '127.0.0.1',
        'server.port': port,
      });
    }
  });

  it("on Claude (the session's active model): the same, with Anthropic's values", async () => {
    const recorder = startRecorder();
    otel = installOtel({ sampler: recorder.sampler });
    const sessions = await manager();
    server.enqueue(
      ...requireFixture(anthropic, 'tool-call-stream'),
      ...requireFixture(anthropic, 'text-stream'),
    );
    const session = await sessions.createSession({ workspace_path: '/w' });
    await sessions.swapModel(session.id, 'sonnet');
    const { error } = await collect(sessions.send(session.id, 'Read it.'));
    expect(error).toBeUndefined();
    const spans = otel.spans();

    expect(recorder.started.find((s) => s.name === 'invoke_agent')?.attributes).toMatchObject({
      'gen_ai.provider.name': 'anthropic',
      'gen_ai.request.model': 'claude-sonnet-4-6',
    });
    const [first, second] = byStep(named(spans, 'chat claude-sonnet-4-6'));
    expect(first?.attributes).toMatchObject({
      'server.address': '127.0.0.1',
      'server.port': port,
      'gen_ai.response.finish_reasons': ['tool_use'],
      'yourtool.stop_reason': 'tool_use',
    });
    expect(second?.attributes['gen_ai.response.finish_reasons']).toEqual(['end_turn']);
    const [tool] = named(spans, 'execute_tool read_file');
    expect(tool?.attributes['yourtool.tool.provider_call_id']).toBe(
      'toolu_01T1x1fJ34qAmk2tNTrN7Up6',
    );
  });
});

class Reader extends MetricReader {
  protected async onForceFlush(): Promise<void> {}
  protected async onShutdown(): Promise<void> {}
}

describe('tracer and meter providers given to the manager', () => {
  it('receive every span and metric point of the turn, with nothing registered globally', async () => {
    const exporter = new InMemorySpanExporter();
    const tracerProvider = new TracerProvider({
      spanProcessors: [new SimpleSpanProcessor({ exporter })],
    });
    const reader = new Reader();
    const meterProvider = new MeterProvider({ readers: [reader] });
    const sessions = await manager({
      telemetry: { tracerProvider, meterProvider, agentName: 'helper' },
    });
    server.enqueue(
      ...requireFixture(anthropic, 'tool-call-stream'),
      ...requireFixture(anthropic, 'text-stream'),
    );
    const session = await sessions.createSession({ workspace_path: '/w' });
    const { error } = await collect(sessions.send(session.id, 'Read it.'));
    expect(error).toBeUndefined();
    const spans = exporter.getFinishedSpans();
    expect(spans.map((s) => s.name).sort()).toEqual(
      [
        'chat claude-sonnet-4-6',
        'chat claude-sonnet-4-6',
        'execute_tool read_file',
        'invoke_agent helper',
      ].sort(),
    );
    const turn = named(spans, 'invoke_agent helper')[0];
    for (const span of spans.filter((s) => s !== turn)) {
      expect(span.parentSpanContext?.spanId, span.name).toBe(turn?.spanContext().spanId);
    }
    const { resourceMetrics } = await reader.collect();
    const names = resourceMetrics.scopeMetrics.flatMap((s) =>
      s.metrics.map((m) => m.descriptor.name),
    );
    expect(names).toEqual(
      expect.arrayContaining(['gen_ai.client.operation.duration', 'gen_ai.client.token.usage']),
    );
    await tracerProvider.shutdown();
    await meterProvider.shutdown();
  });

  it('are refused when they are not providers', async () => {
    await expect(manager({ telemetry: { tracerProvider: {} as never } })).rejects.toThrow(
      /telemetry\.tracerProvider must be an OpenTelemetry TracerProvider/,
    );
    await expect(manager({ telemetry: { meterProvider: 'm' as never } })).rejects.toThrow(
      /telemetry\.meterProvider must be an OpenTelemetry MeterProvider/,
    );
  });
});

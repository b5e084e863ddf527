// The whole telemetry of one tool-loop turn, listed: every span (name, kind, parent, status),
// every attribute key with its value's type, every span event, and every metric point (name,
// unit, attribute keys). Written down before the tracing overhead was cut (decision 0190) so
// that the cut could not change what an application sees; a change to the telemetry shows here.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Attributes, SpanKind, SpanStatusCode } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace';
import { AnthropicAdapter } from '@yourtool/anthropic';
import { type LoopbackServer, startLoopbackServer } from '@yourtool/conformance';
import { createMemoryLogger } from '@yourtool/core';
import { OpenAIAdapter } from '@yourtool/openai';
import { defaultPriceTable } from '@yourtool/pricing';
import { ModelRegistry, parseRoutingConfig, Router } from '@yourtool/router';
import { openStore } from '@yourtool/store';
import { installOtel } from '@yourtool/testkit/otel';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { SessionManager, ToolRegistry } from '../src/index.js';
import { collect, fixturesOf, requireFixture, unavailable } from './helpers.js';

let server: LoopbackServer;
beforeAll(async () => {
  server = await startLoopbackServer();
});
afterAll(() => server.close());

/** `key: type` of each attribute, sorted and joined (values vary run to run; their keys and types do not). */
function keysOf(attributes: Attributes | undefined): string {
  return Object.entries(attributes ?? {})
    .map(([key, value]) => {
      const type = Array.isArray(value) ? `${typeof value[0]}[]` : typeof value;
      return `${key}: ${type}`;
    })
    .sort()
    .join(', ');
}

const KIND: Record<number, string> = {
  [SpanKind.INTERNAL]: 'internal',
  [SpanKind.CLIENT]: 'client',
};
const STATUS: Record<number, string> = {
  [SpanStatusCode.UNSET]: 'unset',
  [SpanStatusCode.OK]: 'ok',
  [SpanStatusCode.ERROR]: 'error',
};

/** A span as the list shows it: its parent by name, its attributes and events by key and type. */
function listed(span: ReadableSpan, spans: ReadableSpan[]) {
  const parentId = span.parentSpanContext?.spanId;
  const parent = spans.find((s) => s.spanContext().spanId === parentId);
  return {
    name: span.name,
    kind: KIND[span.kind],
    parent: parent?.name ?? null,
    status: STATUS[span.status.code],
    attributes: keysOf(span.attributes),
    events: span.events.map((e) => ({ name: e.name, attributes: keysOf(e.attributes) })),
  };
}

/** A tool loop on Claude, then a 503 (retried once) and a fallback to GPT-5, content captured. */
async function tracedTurn() {
  const otel = installOtel();
  const store = await openStore(
    `sqlite:${join(mkdtempSync(join(tmpdir(), 'otel-list-')), 's.db')}`,
  );
  try {
    const registry = ModelRegistry.fromYaml(
      `
adapters:
  anthropic: { type: anthropic, api_key: sk-ant-list, base_url: ${server.url}, max_retries: 1 }
  openai: { type: openai, api_key: sk-list, base_url: ${server.url}, max_retries: 0 }
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
        retry: { baseDelayMs: 1, maxDelayMs: 2 },
      },
    );
    const router = new Router({
      registry,
      config: parseRoutingConfig('global_default: sonnet\nfallbacks:\n  sonnet: [gpt5]\n'),
    });
    const manager = new SessionManager({
      store,
      router,
      pricing: defaultPriceTable(),
      systemPrompt: ['You are terse.'],
      telemetry: { captureContent: true },
      tools: new ToolRegistry([
        {
          definition: {
            name: 'read_file',
            description: 'Read a file.',
            input_schema: {
              type: 'object',
              properties: { path: { type: 'string' } },
              required: ['path'],
            },
            side_effects: 'read',
          },
          run: async () => '# notes',
        },
      ]),
    });
    server.enqueue(
      ...requireFixture(fixturesOf('anthropic'), 'tool-call-stream'),
      unavailable(),
      unavailable(),
      ...requireFixture(fixturesOf('openai'), 'text-stream'),
    );
    const session = await manager.createSession({ workspace_path: '/w' });
    const { error } = await collect(manager.send(session.id, 'Summarize README.md'));
    expect(error).toBeUndefined();
    const spans = otel.spans();
    const points = (await otel.allMetricPoints()).map((p) => ({
      ...p,
      attributes: keysOf(p.attributes as Attributes),
    }));
    return { spans, points };
  } finally {
    await store.close();
    await otel.uninstall();
  }
}

const sortedBy = <T>(items: T[]) =>
  [...items].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));

it('a traced tool-loop turn produces exactly these spans, attributes, events and metrics', async () => {
  const { spans, points } = await tracedTurn();
  const list = sortedBy(spans.map((s) => listed(s, spans)));
  expect(list).toEqual(SPANS);
  expect(sortedBy(points)).toEqual(METRICS);
});

/** The spans, sorted by their JSON text. */
const SPANS: unknown[] = [
  {
    name: 'chat claude-sonnet-4-6',
    kind: 'client',
    parent: 'invoke_agent',
    status: 'error',
    attributes:
      'error.type: string, gen_ai.conversation.id: string, gen_ai.input.messages: string, gen_ai.operation.name: string, gen_ai.provider.name: string, gen_ai.request.max_tokens: number, gen_ai.request.model: string, gen_ai.request.stream: boolean, gen_ai.system_instructions: string, gen_ai.tool.definitions: string, server.address: string, server.port: number, yourtool.attempts: number, yourtool.model_id: string, yourtool.provider_status: number, yourtool.request_id: string, yourtool.routing.mode: string, yourtool.step: number',
    events: [
      {
        name: 'yourtool.retry',
        attributes:
          'error.type: string, yourtool.attempt: number, yourtool.provider_status: number, yourtool.retry.delay_ms: number',
      },
    ],
  },
  {
    name: 'chat claude-sonnet-4-6',
    kind: 'client',
    parent: 'invoke_agent',
    status: 'unset',
    attributes:
      'gen_ai.conversation.id: string, gen_ai.input.messages: string, gen_ai.operation.name: string, gen_ai.output.messages: string, gen_ai.provider.name: string, gen_ai.request.max_tokens: number, gen_ai.request.model: string, gen_ai.request.stream: boolean, gen_ai.response.finish_reasons: string[], gen_ai.response.id: string, gen_ai.response.model: string, gen_ai.response.time_to_first_chunk: number, gen_ai.system_instructions: string, gen_ai.tool.definitions: string, gen_ai.usage.input_tokens: number, gen_ai.usage.output_tokens: number, server.address: string, server.port: number, yourtool.attempts: number, yourtool.cost_usd: string, yourtool.model_id: string, yourtool.pricing_version: string, yourtool.request_id: string, yourtool.routing.mode: string, yourtool.step: number, yourtool.stop_reason: string',
    events: [],
  },
  {
    name: 'chat gpt-5',
    kind: 'client',
    parent: 'invoke_agent',
    status: 'unset',
    attributes:
      'gen_ai.conversation.id: string, gen_ai.input.messages: string, gen_ai.operation.name: string, gen_ai.output.messages: string, gen_ai.provider.name: string, gen_ai.request.max_tokens: number, gen_ai.request.model: string, gen_ai.request.stream: boolean, gen_ai.response.finish_reasons: string[], gen_ai.response.id: string, gen_ai.response.model: string, gen_ai.response.time_to_first_chunk: number, gen_ai.system_instructions: string, gen_ai.tool.definitions: string, gen_ai.usage.input_tokens: number, gen_ai.usage.output_tokens: number, gen_ai.usage.reasoning.output_tokens: number, server.address: string, server.port: number, yourtool.attempts: number, yourtool.cost_usd: string, yourtool.fallback.error_type: string, yourtool.fallback.from_model: string, yourtool.model_id: string, yourtool.pricing_version: string, yourtool.request_id: string, yourtool.routing.mode: string, yourtool.step: number, yourtool.stop_reason: string',
    events: [],
  },
  {
    name: 'execute_tool read_file',
    kind: 'internal',
    parent: 'invoke_agent',
    status: 'unset',
    attributes:
      'gen_ai.conversation.id: string, gen_ai.operation.name: string, gen_ai.tool.call.arguments: string, gen_ai.tool.call.id: string, gen_ai.tool.call.result: string, gen_ai.tool.description: string, gen_ai.tool.name: string, gen_ai.tool.type: string, yourtool.tool.provider_call_id: string, yourtool.tool.side_effects: string',
    events: [],
  },
  {
    name: 'invoke_agent',
    kind: 'internal',
    parent: null,
    status: 'unset',
    attributes:
      'gen_ai.conversation.id: string, gen_ai.input.messages: string, gen_ai.operation.name: string, gen_ai.output.messages: string, gen_ai.provider.name: string, gen_ai.request.model: string, gen_ai.usage.input_tokens: number, gen_ai.usage.output_tokens: number, yourtool.cost_usd: string, yourtool.model_id: string, yourtool.pricing_version: string, yourtool.routing.mode: string, yourtool.turn.end: string, yourtool.turn.fallbacks: number, yourtool.turn.steps: number',
    events: [
      {
        name: 'yourtool.fallback',
        attributes:
          'error.type: string, yourtool.fallback.from_model: string, yourtool.fallback.to_model: string',
      },
    ],
  },
];

/** The metric points (one per distinct attribute set), sorted by their JSON text. */
const METRICS: unknown[] = [
  {
    scope: '@yourtool/core',
    name: 'gen_ai.client.operation.duration',
    unit: 's',
    attributes:
      'error.type: string, gen_ai.operation.name: string, gen_ai.provider.name: string, gen_ai.request.model: string, server.address: string, server.port: number',
  },
  {
    scope: '@yourtool/core',
    name: 'gen_ai.client.operation.duration',
    unit: 's',
    attributes:
      'gen_ai.operation.name: string, gen_ai.provider.name: string, gen_ai.request.model: string, gen_ai.response.model: string, server.address: string, server.port: number',
  },
  {
    scope: '@yourtool/core',
    name: 'gen_ai.client.operation.duration',
    unit: 's',
    attributes:
      'gen_ai.operation.name: string, gen_ai.provider.name: string, gen_ai.request.model: string, gen_ai.response.model: string, server.address: string, server.port: number',
  },
  {
    scope: '@yourtool/core',
    name: 'gen_ai.client.operation.time_to_first_chunk',
    unit: 's',
    attributes:
      'gen_ai.operation.name: string, gen_ai.provider.name: string, gen_ai.request.model: string, gen_ai.response.model: string, server.address: string, server.port: number',
  },
  {
    scope: '@yourtool/core',
    name: 'gen_ai.client.operation.time_to_first_chunk',
    unit: 's',
    attributes:
      'gen_ai.operation.name: string, gen_ai.provider.name: string, gen_ai.request.model: string, gen_ai.response.model: string, server.address: string, server.port: number',
  },
  {
    scope: '@yourtool/core',
    name: 'gen_ai.client.token.usage',
    unit: '{token}',
    attributes:
      'gen_ai.operation.name: string, gen_ai.provider.name: string, gen_ai.request.model: string, gen_ai.response.model: string, gen_ai.token.type: string, server.address: string, server.port: number',
  },
  {
    scope: '@yourtool/core',
    name: 'gen_ai.client.token.usage',
    unit: '{token}',
    attributes:
      'gen_ai.operation.name: string, gen_ai.provider.name: string, gen_ai.request.model: string, gen_ai.response.model: string, gen_ai.token.type: string, server.address: string, server.port: number',
  },
  {
    scope: '@yourtool/core',
    name: 'gen_ai.client.token.usage',
    unit: '{token}',
    attributes:
      'gen_ai.operation.name: string, gen_ai.provider.name: string, gen_ai.request.model: string, gen_ai.response.model: string, gen_ai.token.type: string, server.address: string, server.port: number',
  },
  {
    scope: '@yourtool/core',
    name: 'gen_ai.client.token.usage',
    unit: '{token}',
    attributes:
      'gen_ai.operation.name: string, gen_ai.provider.name: string, gen_ai.request.model: string, gen_ai.response.model: string, gen_ai.token.type: string, server.address: string, server.port: number',
  },
];

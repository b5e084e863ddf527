import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { context, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { AlwaysOffSampler, type ReadableSpan } from '@opentelemetry/sdk-trace';
import { AnthropicAdapter } from '@yourtool/anthropic';
import { type LoopbackServer, startLoopbackServer } from '@yourtool/conformance';
import {
  createMemoryLogger,
  createMessage,
  newRequestId,
  newSessionId,
  type StreamEvent,
} from '@yourtool/core';
import { OpenAIAdapter } from '@yourtool/openai';
import { defaultPriceTable } from '@yourtool/pricing';
import { ModelRegistry, parseRoutingConfig, Router } from '@yourtool/router';
import { openStore, SqlBudgetLedger, type SqlSessionStore } from '@yourtool/store';
import { type InstalledOtel, installOtel, parentOf, spanText } from '@yourtool/testkit/otel';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  type CompactionHook,
  SessionManager,
  type SessionManagerOptions,
  ToolRegistry,
} from '../src/index.js';
import { collect, fixturesOf, requireFixture, unavailable } from './helpers.js';

const anthropic = fixturesOf('anthropic');
const openai = fixturesOf('openai');
const fixture = requireFixture;

const ANTHROPIC_KEY = 'sk-ant-otel-test-key-0123456789';
const OPENAI_KEY = 'sk-otel-test-key-abcdefghijklmnop';
/** Strings of the conversation that must not reach telemetry unless content capture is on. */
const USER_TEXT = 'Summarize README.md for the zebra-otter project';
const SYSTEM_TEXT = 'You are the quokka-marmot assistant.';
const TOOL_RESULT = '# Project Foo — wombat-heron notes';

let server: LoopbackServer;
beforeAll(async () => {
  server = await startLoopbackServer({ secrets: [ANTHROPIC_KEY, OPENAI_KEY] });
});
afterAll(() => server.close());

const stores: SqlSessionStore[] = [];
let otel: InstalledOtel | null = null;
beforeEach(() => {
  server.reset();
  otel = installOtel();
});
afterEach(async () => {
  await otel?.uninstall();
  otel = null;
  await Promise.all(stores.splice(0).map((s) => s.close()));
  delete process.env.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT;
});

interface Setup {
  routing?: string;
  anthropicRetries?: number;
  manager?: Partial<SessionManagerOptions>;
}

async function harness(setup: Setup = {}) {
  const store = await openStore(`sqlite:${join(mkdtempSync(join(tmpdir(), 'otel-')), 's.db')}`);
  stores.push(store);
  const registry = ModelRegistry.fromYaml(
    `
adapters:
  anthropic: { type: anthropic, api_key: ${ANTHROPIC_KEY}, base_url: ${server.url}, max_retries: ${setup.anthropicRetries ?? 0} }
  openai: { type: openai, api_key: ${OPENAI_KEY}, base_url: ${server.url}, max_retries: 0 }
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
    config: parseRoutingConfig(setup.routing ?? 'global_default: sonnet'),
  });
  const manager = new SessionManager({
    store,
    router,
    pricing: defaultPriceTable(),
    systemPrompt: [SYSTEM_TEXT],
    tools: new ToolRegistry([
      {
        definition: {
          name: 'read_file',
          description: 'Read a UTF-8 text file from the workspace.',
          input_schema: {
            type: 'object',
            properties: { path: { type: 'string' } },
            required: ['path'],
          },
          side_effects: 'read',
        },
        run: async () => TOOL_RESULT,
      },
    ]),
    ...setup.manager,
  });
  return { manager, store };
}

const byName = (spans: ReadableSpan[], name: string) => spans.filter((s) => s.name === name);
/** A span's start as one number of nanoseconds (an HrTime is [seconds, nanoseconds within them]). */
const startNs = (span: ReadableSpan | undefined) =>
  span === undefined ? Number.NaN : span.startTime[0] * 1e9 + span.startTime[1];
const one = (spans: ReadableSpan[], name: string) => {
  const found = byName(spans, name);
  expect(found, name).toHaveLength(1);
  return found[0] as ReadableSpan;
};

/** A turn: a tool loop on Claude, then a 503 storm on Claude (retried once) and GPT-5 as fallback. */
async function toolLoopWithFallback(manager: Partial<SessionManagerOptions> = {}) {
  const h = await harness({
    routing: 'global_default: sonnet\nfallbacks:\n  sonnet: [gpt5]\n',
    anthropicRetries: 1,
    manager,
  });
  server.enqueue(
    ...fixture(anthropic, 'tool-call-stream'),
    unavailable(),
    unavailable(),
    ...fixture(openai, 'text-stream'),
  );
  const session = await h.manager.createSession({ workspace_path: '/w' });
  const { events, error } = await collect(h.manager.send(session.id, USER_TEXT));
  expect(error).toBeUndefined();
  return { ...h, session, events };
}

describe('a turn with a tool loop and a fallback', () => {
  it('produces the span tree: invoke_agent over its chat and execute_tool spans', async () => {
    const { session, events } = await toolLoopWithFallback();
    const spans = otel?.spans() ?? [];
    expect(spans.map((s) => s.name).sort()).toEqual(
      [
        'invoke_agent',
        'chat claude-sonnet-4-6',
        'execute_tool read_file',
        'chat claude-sonnet-4-6',
        'chat gpt-5',
      ].sort(),
    );
    const turn = one(spans, 'invoke_agent');
    const [toolCall, failed] = byName(spans, 'chat claude-sonnet-4-6').sort(
      (a, b) => Number(a.attributes['yourtool.step']) - Number(b.attributes['yourtool.step']),
    ) as [ReadableSpan, ReadableSpan];
    const tool = one(spans, 'execute_tool read_file');
    const fallback = one(spans, 'chat gpt-5');

    // the tree and the kinds
    expect(parentOf(turn)).toBeUndefined();
    expect(turn.kind).toBe(SpanKind.INTERNAL);
    for (const child of [toolCall, failed, tool, fallback]) {
      expect(parentOf(child), child.name).toBe(turn.spanContext().spanId);
      expect(child.spanContext().traceId).toBe(turn.spanContext().traceId);
    }
    expect([toolCall, failed, fallback].map((s) => s.kind)).toEqual([
      SpanKind.CLIENT,
      SpanKind.CLIENT,
      SpanKind.CLIENT,
    ]);
    expect(tool.kind).toBe(SpanKind.INTERNAL);

    // the turn
    const done = events.at(-1);
    if (done?.type !== 'session.turn_complete') throw new Error('no result');
    expect(turn.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.conversation.id': session.id,
      'gen_ai.provider.name': 'anthropic',
      'gen_ai.request.model': 'claude-sonnet-4-6',
      'yourtool.routing.mode': 'default',
      'yourtool.turn.steps': 2,
      'yourtool.turn.end': 'end_turn',
      'yourtool.turn.fallbacks': 1,
      'yourtool.cost_usd': done.result.cost_usd,
      'yourtool.pricing_version': defaultPriceTable().pricing_version,
    });
    expect(turn.status.code).toBe(SpanStatusCode.UNSET);
    expect(turn.events.map((e) => [e.name, e.attributes])).toEqual([
      [
        'yourtool.fallback',
        {
          'yourtool.fallback.from_model': 'anthropic:claude-sonnet-4-6',
          'yourtool.fallback.to_model': 'openai:gpt-5',
          'error.type': 'server_error',
        },
      ],
    ]);

    // the first call: a tool use on Claude, priced
    const first = done.result.messages.find((m) => m.role === 'assistant');
    expect(toolCall.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'anthropic',
      'gen_ai.request.model': 'claude-sonnet-4-6',
      'gen_ai.response.model': 'claude-sonnet-4-6',
      'gen_ai.response.id': 'msg_01ConformanceFixture0012',
      'gen_ai.response.finish_reasons': ['tool_use'],
      'gen_ai.conversation.id': session.id,
      'gen_ai.request.max_tokens': 4096,
      'gen_ai.request.stream': true,
      'gen_ai.usage.input_tokens': first?.metadata.usage?.input_tokens,
      'gen_ai.usage.output_tokens': first?.metadata.usage?.output_tokens,
      'yourtool.cost_usd': first?.metadata.usage?.cost_usd,
      'yourtool.pricing_version': first?.metadata.usage?.pricing_version,
      'yourtool.model_id': 'anthropic:claude-sonnet-4-6',
      'yourtool.step': 1,
      'yourtool.attempts': 1,
    });
    expect(toolCall.attributes['gen_ai.response.time_to_first_chunk']).toBeGreaterThan(0);
    expect(toolCall.attributes['error.type']).toBeUndefined();

    // the tool run
    const use = first?.content.find((b) => b.type === 'tool_use');
    expect(tool.attributes).toMatchObject({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'read_file',
      'gen_ai.tool.call.id': use?.type === 'tool_use' ? use.id : 'missing',
      'gen_ai.tool.type': 'function',
      'gen_ai.tool.description': 'Read a UTF-8 text file from the workspace.',
    });
    expect(tool.status.code).toBe(SpanStatusCode.UNSET);

    // the failed call: retried once (a span event), then failed with its error class
    expect(failed.attributes).toMatchObject({
      'error.type': 'server_error',
      'yourtool.attempts': 2,
      'yourtool.provider_status': 503,
      'yourtool.step': 2,
    });
    expect(failed.status).toMatchObject({ code: SpanStatusCode.ERROR, message: 'server_error' });
    expect(failed.events.map((e) => [e.name, e.attributes])).toEqual([
      [
        'yourtool.retry',
        {
          'yourtool.attempt': 1,
          'error.type': 'server_error',
          'yourtool.provider_status': 503,
          'yourtool.retry.delay_ms': expect.any(Number),
        },
      ],
    ]);
    expect(failed.attributes['gen_ai.usage.input_tokens']).toBeUndefined();

    // the fallback: a new call span under the same turn, carrying the failed attempt's class
    expect(fallback.attributes).toMatchObject({
      'gen_ai.provider.name': 'openai',
      'gen_ai.request.model': 'gpt-5',
      'gen_ai.response.model': 'gpt-5-2025-08-07',
      'gen_ai.response.id': 'chatcmpl-Conformance0016',
      'gen_ai.response.finish_reasons': ['stop'],
      'yourtool.stop_reason': 'end_turn',
      'yourtool.fallback.from_model': 'anthropic:claude-sonnet-4-6',
      'yourtool.fallback.error_type': 'server_error',
      'yourtool.step': 2,
    });
    expect(fallback.status.code).toBe(SpanStatusCode.UNSET);
    expect(fallback.attributes['yourtool.cost_usd']).toBe(
      done.result.messages.at(-1)?.metadata.usage?.cost_usd,
    );
  });

  it('records the client metrics with the conventions attributes', async () => {
    const { events } = await toolLoopWithFallback();
    const done = events.at(-1);
    if (done?.type !== 'session.turn_complete') throw new Error('no result');
    const [claude, gpt] = done.result.messages.filter((m) => m.role === 'assistant');
    const common = {
      'gen_ai.operation.name': 'chat',
      'server.address': '127.0.0.1',
      'server.port': Number(new URL(server.url).port),
    };
    const claudeAttrs = {
      ...common,
      'gen_ai.provider.name': 'anthropic',
      'gen_ai.request.model': 'claude-sonnet-4-6',
      'gen_ai.response.model': 'claude-sonnet-4-6',
    };
    const gptAttrs = {
      ...common,
      'gen_ai.provider.name': 'openai',
      'gen_ai.request.model': 'gpt-5',
      'gen_ai.response.model': 'gpt-5-2025-08-07',
    };
    const sortByText = <T>(points: T[]) =>
      [...points].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));

    const durations = await otel?.histogram('gen_ai.client.operation.duration');
    expect(
      sortByText((durations ?? []).map((p) => ({ attributes: p.attributes, count: p.count }))),
    ).toEqual(
      sortByText([
        { attributes: claudeAttrs, count: 1 },
        {
          attributes: {
            ...common,
            'gen_ai.provider.name': 'anthropic',
            'gen_ai.request.model': 'claude-sonnet-4-6',
            'error.type': 'server_error',
          },
          count: 1,
        },
        { attributes: gptAttrs, count: 1 },
      ]),
    );
    for (const point of durations ?? []) expect(point.sum).toBeGreaterThan(0);

    const tokens = await otel?.histogram('gen_ai.client.token.usage');
    const inputOf = (u = claude?.metadata.usage) =>
      (u?.input_tokens ?? 0) +
      (u?.cached_input_tokens ?? 0) +
      (u?.cache_creation_input_tokens ?? 0);
    expect(sortByText(tokens ?? [])).toEqual(
      sortByText([
        { attributes: { ...claudeAttrs, 'gen_ai.token.type': 'input' }, count: 1, sum: inputOf() },
        {
          attributes: { ...claudeAttrs, 'gen_ai.token.type': 'output' },
          count: 1,
          sum: claude?.metadata.usage?.output_tokens,
        },
        {
          attributes: { ...gptAttrs, 'gen_ai.token.type': 'input' },
          count: 1,
          sum: inputOf(gpt?.metadata.usage),
        },
        {
          attributes: { ...gptAttrs, 'gen_ai.token.type': 'output' },
          count: 1,
          sum: gpt?.metadata.usage?.output_tokens,
        },
      ]),
    );

    // streams only, and only calls whose first chunk arrived
    const firstChunk = await otel?.histogram('gen_ai.client.operation.time_to_first_chunk');
    expect(sortByText((firstChunk ?? []).map((p) => [p.attributes, p.count]))).toEqual(
      sortByText([
        [claudeAttrs, 1],
        [gptAttrs, 1],
      ]),
    );
  });
});

describe('message content and keys', () => {
  const contentStrings = [
    USER_TEXT,
    SYSTEM_TEXT,
    TOOL_RESULT,
    "I'll read the file.", // the model's text
    'README.md', // the tool's argument
    'How can I help', // the fallback's reply
  ];

  async function everything(): Promise<string> {
    const spans = (otel?.spans() ?? []).map(spanText);
    const points = JSON.stringify(await otel?.allMetricPoints());
    return [...spans, points].join('\n');
  }

  it('no message content and no key appears in any span, event or metric by default', async () => {
    await toolLoopWithFallback();
    const text = await everything();
    expect(otel?.spans().length).toBe(5);
    for (const s of [...contentStrings, ANTHROPIC_KEY, OPENAI_KEY]) {
      expect(text, s).not.toContain(s);
    }
  });

  it('with content capture opted in, the conventions message attributes carry it (keys still never)', async () => {
    await toolLoopWithFallback({ telemetry: { captureContent: true } });
    const text = await everything();
    for (const s of contentStrings) expect(text, s).toContain(s);
    for (const key of [ANTHROPIC_KEY, OPENAI_KEY]) expect(text).not.toContain(key);

    const spans = otel?.spans() ?? [];
    const turn = one(spans, 'invoke_agent');
    expect(JSON.parse(String(turn.attributes['gen_ai.input.messages']))).toEqual([
      { role: 'user', parts: [{ type: 'text', content: USER_TEXT }] },
    ]);
    expect(JSON.parse(String(turn.attributes['gen_ai.output.messages']))).toEqual([
      {
        role: 'assistant',
        parts: [{ type: 'text', content: 'Hello! How can I help you today?' }],
        finish_reason: 'end_turn',
      },
    ]);
    const call = byName(spans, 'chat claude-sonnet-4-6').find(
      (s) => s.attributes['yourtool.step'] === 1,
    );
    expect(JSON.parse(String(call?.attributes['gen_ai.system_instructions']))).toEqual([
      { type: 'text', content: SYSTEM_TEXT },
    ]);
    expect(JSON.parse(String(call?.attributes['gen_ai.input.messages']))).toEqual([
      { role: 'user', parts: [{ type: 'text', content: USER_TEXT }] },
    ]);
    const output = JSON.parse(String(call?.attributes['gen_ai.output.messages']));
    expect(output[0]).toMatchObject({
      role: 'assistant',
      finish_reason: 'tool_use',
      parts: [
        { type: 'text', content: "I'll read the file." },
        { type: 'tool_call', name: 'read_file', arguments: { path: 'README.md' } },
      ],
    });
    expect(JSON.parse(String(call?.attributes['gen_ai.tool.definitions']))).toEqual([
      expect.objectContaining({ type: 'function', name: 'read_file' }),
    ]);
    const tool = one(spans, 'execute_tool read_file');
    expect(JSON.parse(String(tool.attributes['gen_ai.tool.call.arguments']))).toEqual({
      path: 'README.md',
    });
    expect(tool.attributes['gen_ai.tool.call.result']).toBe(TOOL_RESULT);
    // the fallback's request carries the tool loop, as the conventions' parts
    const fallback = one(spans, 'chat gpt-5');
    const input = JSON.parse(String(fallback.attributes['gen_ai.input.messages']));
    expect(input.map((m: { role: string }) => m.role)).toEqual(['user', 'assistant', 'tool']);
    expect(input[2].parts[0]).toMatchObject({ type: 'tool_call_response', response: TOOL_RESULT });
  });

  it('the environment variable opts in too, and an explicit false wins over it', async () => {
    process.env.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT = 'true';
    await toolLoopWithFallback();
    expect(await everything()).toContain(USER_TEXT);

    await otel?.uninstall();
    otel = installOtel();
    server.reset();
    await toolLoopWithFallback({ telemetry: { captureContent: false } });
    const text = await everything();
    for (const s of contentStrings) expect(text, s).not.toContain(s);
  });
});

describe('calls outside a session', () => {
  const adapter = () =>
    new AnthropicAdapter({ api_key: ANTHROPIC_KEY, base_url: server.url, max_retries: 0 });
  const request = (text: string, session_id = newSessionId()) => ({
    request_id: newRequestId(),
    model: 'anthropic:claude-sonnet-4-6',
    max_output_tokens: 512,
    temperature: 0.2,
    messages: [createMessage({ session_id, role: 'user', content: [{ type: 'text', text }] })],
  });

  it('an adapter call gets its call span, under the active context', async () => {
    server.enqueue(...fixture(anthropic, 'usage-cached'));
    const claude = adapter();
    const session_id = newSessionId();
    const app = trace.getTracer('app');
    const response = await app.startActiveSpan('handle request', async (parent) => {
      try {
        return await claude.complete(request('Hello there', session_id));
      } finally {
        parent.end();
      }
    });
    const spans = otel?.spans() ?? [];
    const parent = one(spans, 'handle request');
    const call = one(spans, 'chat claude-sonnet-4-6');
    expect(parentOf(call)).toBe(parent.spanContext().spanId);
    expect(call.kind).toBe(SpanKind.CLIENT);
    const { usage } = response;
    expect(usage.cached_input_tokens).toBeGreaterThan(0);
    expect(call.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'anthropic',
      'gen_ai.request.model': 'claude-sonnet-4-6',
      'gen_ai.request.max_tokens': 512,
      'gen_ai.request.temperature': 0.2,
      'gen_ai.conversation.id': session_id,
      'gen_ai.response.finish_reasons': [response.stop_reason],
      // the conventions count cache reads and writes in the input tokens
      'gen_ai.usage.input_tokens':
        usage.input_tokens + usage.cached_input_tokens + usage.cache_creation_input_tokens,
      'gen_ai.usage.output_tokens': usage.output_tokens,
      'gen_ai.usage.cache_read.input_tokens': usage.cached_input_tokens,
      'yourtool.request_id': expect.any(String),
    });
    // no session: no cost (the session prices), no stream
    expect(call.attributes['yourtool.cost_usd']).toBeUndefined();
    expect(call.attributes['gen_ai.request.stream']).toBeUndefined();
    expect(call.attributes['gen_ai.response.time_to_first_chunk']).toBeUndefined();
    expect(await otel?.histogram('gen_ai.client.operation.time_to_first_chunk')).toEqual([]);
    expect(spanText(call)).not.toContain('Hello there');
  });

  it('a stream the consumer stops reading is a cancellation, not a failure', async () => {
    server.enqueue(...fixture(anthropic, 'text-stream'));
    const seen: StreamEvent[] = [];
    for await (const event of adapter().stream({ ...request('Hi'), stream: true })) {
      seen.push(event);
      if (event.type === 'text.delta') break;
    }
    const call = one(otel?.spans() ?? [], 'chat claude-sonnet-4-6');
    expect(call.attributes).toMatchObject({
      'gen_ai.response.finish_reasons': ['cancelled'],
      'error.type': 'cancelled',
      'gen_ai.request.stream': true,
    });
    expect(call.status.code).toBe(SpanStatusCode.UNSET);
    expect(call.attributes['gen_ai.response.time_to_first_chunk']).toBeGreaterThan(0);
  });

  it('a call the provider refuses ends its span in error with the class', async () => {
    server.enqueue(...fixture(anthropic, 'error-auth'));
    await expect(adapter().complete(request('Hi'))).rejects.toMatchObject({ error_class: 'auth' });
    const call = one(otel?.spans() ?? [], 'chat claude-sonnet-4-6');
    expect(call.attributes).toMatchObject({
      'error.type': 'auth',
      'yourtool.provider_status': 401,
    });
    expect(call.status).toMatchObject({ code: SpanStatusCode.ERROR, message: 'auth' });
    const durations = await otel?.histogram('gen_ai.client.operation.duration');
    expect(durations?.map((p) => p.attributes['error.type'])).toEqual(['auth']);
  });
});

describe('compaction', () => {
  it('a compaction is a span under the turn, with its summary call under it', async () => {
    // a hook that summarizes everything before the turn with one call to GPT-5
    const hook: CompactionHook = async (request) => {
      const before = request.messages.slice(0, request.turn_start);
      const last = before.at(-1);
      if (!last) return null;
      const summary = await request.complete({
        model: 'gpt5',
        system_prompt: 'Summarize.',
        prompt: 'The conversation so far.',
        max_output_tokens: 128,
      });
      return { through_message_id: last.id, summary, strategy: 'test-summary' };
    };
    const h = await harness({ manager: { compaction: hook } });
    const session = await h.manager.createSession({ workspace_path: '/w' });
    server.enqueue(...fixture(anthropic, 'text-stream'));
    await h.manager.sendAndWait(session.id, 'First.');
    await otel?.uninstall();
    otel = installOtel();
    // the provider refuses the history as too long: compact, then retry the same model
    server.enqueue(
      ...fixture(anthropic, 'error-context_overflow'),
      ...fixture(openai, 'text'),
      ...fixture(anthropic, 'text-stream'),
    );
    const { error } = await collect(h.manager.send(session.id, 'Second.'));
    expect(error).toBeUndefined();
    const spans = otel?.spans() ?? [];
    const turn = one(spans, 'invoke_agent');
    const compaction = one(spans, 'compact_history');
    const summary = one(spans, 'chat gpt-5');
    const claude = byName(spans, 'chat claude-sonnet-4-6');
    expect(parentOf(compaction)).toBe(turn.spanContext().spanId);
    expect(parentOf(summary)).toBe(compaction.spanContext().spanId);
    expect(claude.map(parentOf)).toEqual([turn.spanContext().spanId, turn.spanContext().spanId]);
    expect(compaction.kind).toBe(SpanKind.INTERNAL);
    expect(compaction.attributes).toMatchObject({
      'gen_ai.conversation.id': session.id,
      'yourtool.compaction.reason': 'context_overflow',
      'yourtool.compaction.target_model': 'anthropic:claude-sonnet-4-6',
      'yourtool.compaction.applied': true,
      'yourtool.compaction.strategy': 'test-summary',
      'yourtool.compaction.replaced_messages': 2,
      'yourtool.cost_usd': expect.stringMatching(/^0\.\d+$/),
    });
    expect(summary.attributes['gen_ai.request.stream']).toBeUndefined();
    // found by what they are, not by start order: the two calls may start in different seconds
    const overflowed = claude.find((span) => span.attributes['error.type'] !== undefined);
    const retried = claude.find((span) => span.attributes['error.type'] === undefined);
    expect(overflowed?.attributes['error.type']).toBe('context_overflow');
    expect(retried?.attributes['yourtool.fallback.error_type']).toBe('context_overflow');
    expect(startNs(overflowed)).toBeLessThanOrEqual(startNs(retried));
    // the turn's cost counts the summary call too
    expect(turn.attributes['yourtool.cost_usd']).toEqual(expect.stringMatching(/^0\.\d+$/));
  });
});

describe('without an SDK', () => {
  it('records nothing when no SDK is registered, and the turn works as before', async () => {
    await otel?.uninstall();
    otel = null;
    // a provider registered and removed again: the API falls back to its no-op providers
    const probe = installOtel();
    await probe.uninstall();
    const { events } = await toolLoopWithFallback();
    expect(events.at(-1)?.type).toBe('session.turn_complete');
    expect(probe.spans()).toEqual([]);
    expect(trace.getSpan(context.active())).toBeUndefined();
  });

  it('a sampled-out turn builds no attributes and records nothing', async () => {
    await otel?.uninstall();
    otel = installOtel({ sampler: new AlwaysOffSampler() });
    const { events } = await toolLoopWithFallback();
    expect(events.at(-1)?.type).toBe('session.turn_complete');
    expect(otel.spans()).toEqual([]);
    // metrics do not depend on sampling
    expect((await otel.histogram('gen_ai.client.operation.duration')).length).toBe(3);
  });
});

/** Budget reservations, settlements, refusals and soft-limit crossings on the turn span (0181). */
describe('budget telemetry', () => {
  it('records each budget event of a call on the turn span', async () => {
    const store = await openStore(`sqlite:${join(mkdtempSync(join(tmpdir(), 'otel-b-')), 's.db')}`);
    const ledger = new SqlBudgetLedger(store);
    const { manager } = await harness({ manager: { store, budgets: { ledger } } });
    stores.push(store);
    await ledger.setBudget({ scope: 'global', limit_micros: 1_000_000n, soft_limit_micros: 1n });
    await ledger.setBudget({ scope: 'tenant:acme', limit_micros: 10n });
    server.enqueue(...fixture(anthropic, 'text-stream'));
    const session = await manager.createSession({ workspace_path: '/w' });
    expect((await collect(manager.send(session.id, 'hello'))).error).toBeUndefined();
    const refusedSession = await manager.createSession({ workspace_path: '/w', tenant: 'acme' });
    expect((await collect(manager.send(refusedSession.id, 'hello'))).error).toBeDefined();

    const turns = byName(otel?.spans() ?? [], 'invoke_agent');
    expect(turns).toHaveLength(2);
    const names = (span: ReadableSpan | undefined) =>
      (span?.events ?? []).map((e) => e.name).filter((n) => n.startsWith('yourtool.budget.'));
    expect(names(turns[0])).toEqual([
      'yourtool.budget.reserved',
      'yourtool.budget.soft_limit_crossed',
      'yourtool.budget.settled',
    ]);
    expect(names(turns[1])).toEqual(['yourtool.budget.refused']);
    const refused = turns[1]?.events.find((e) => e.name === 'yourtool.budget.refused');
    expect(refused?.attributes).toMatchObject({
      'yourtool.budget.scope': 'tenant:acme',
      'yourtool.budget.reason': 'exceeded',
    });
    const settled = turns[0]?.events.find((e) => e.name === 'yourtool.budget.settled');
    expect(settled?.attributes?.['yourtool.budget.actual_usd']).toMatch(/^\d+\.\d+$/);
  });
});

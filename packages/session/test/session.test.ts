import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AnthropicAdapter } from '@yourtool/anthropic';
import {
  type ConformanceFixtures,
  type LoopbackServer,
  startLoopbackServer,
} from '@yourtool/conformance';
import {
  type BusEvent,
  createEventBus,
  createMemoryLogger,
  type Message,
  ServerError,
  type StreamEvent,
  validateHistory,
  validateMessage,
} from '@yourtool/core';
import { OpenAIAdapter } from '@yourtool/openai';
import { defaultPriceTable } from '@yourtool/pricing';
import {
  AvailabilityTracker,
  ModelRegistry,
  parseRoutingConfig,
  Router,
  SwapRefusedError,
} from '@yourtool/router';
import { openStore, type SqlSessionStore } from '@yourtool/store';
import { PNG_1PX_BASE64 } from '@yourtool/testkit';
import { chatChunkEvent } from '@yourtool/testkit/chat-chunks';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  type ConfirmationRequest,
  type SessionEvent,
  SessionManager,
  type SessionManagerOptions,
  type ToolHandler,
  ToolRegistry,
  TurnInProgressError,
} from '../src/index.js';
import { collect, fixturesOf, requireFixture, servedAs } from './helpers.js';

const fixtures = fixturesOf('anthropic');
const openaiFixtures = fixturesOf('openai');
const fixture = (name: string, from: ConformanceFixtures = fixtures) => requireFixture(from, name);

let server: LoopbackServer;
beforeAll(async () => {
  server = await startLoopbackServer();
});
afterAll(() => server.close());

const registryYaml = (url: string) => `
adapters:
  anthropic:
    type: anthropic
    api_key: sk-ant-session-test-000000
    base_url: ${url}
    max_retries: 0
  openai:
    type: openai
    api_key: sk-session-test-0000000000
    base_url: ${url}
    max_retries: 0
models:
  openai:gpt-5: { adapter: openai, wire_name: gpt-5, tier: balanced, aliases: [gpt5] }
  anthropic:claude-sonnet-4-6: { adapter: anthropic, wire_name: claude-sonnet-4-6, tier: balanced, aliases: [sonnet] }
  anthropic:claude-haiku-4-5: { adapter: anthropic, wire_name: claude-haiku-4-5, tier: fast, aliases: [haiku] }
  anthropic:claude-haiku-4-5-text-only:
    adapter: anthropic
    wire_name: claude-haiku-4-5
    display_name: Haiku-text-only
    capabilities: { supports_images: false }
  anthropic:claude-sonnet-4-6-unpriced: { adapter: anthropic, wire_name: claude-sonnet-4-6, aliases: [unpriced] }
`;

interface Harness {
  manager: SessionManager;
  store: SqlSessionStore;
  bus: ReturnType<typeof createEventBus>;
  events: BusEvent[];
  logger: ReturnType<typeof createMemoryLogger>;
  dbPath: string;
}

const harnesses: Harness[] = [];
async function harness(
  overrides: Partial<SessionManagerOptions> = {},
  routing = 'global_default: sonnet',
): Promise<Harness> {
  const dbPath = join(mkdtempSync(join(tmpdir(), 'session-')), 'sessions.db');
  const store = await openStore(`sqlite:${dbPath}`);
  const logger = createMemoryLogger();
  const bus = createEventBus();
  const events: BusEvent[] = [];
  bus.onAny((e) => events.push(e));
  const registry = ModelRegistry.fromYaml(registryYaml(server.url), {
    factories: {
      anthropic: (config, runtime) => new AnthropicAdapter(config, runtime),
      openai: (config, runtime) => new OpenAIAdapter(config, runtime),
    },
    logger,
  });
  const availability = new AvailabilityTracker();
  availability.connect(bus);
  const router = new Router({
    registry,
    config: parseRoutingConfig(routing),
    availability,
    bus,
  });
  const tools = new ToolRegistry([
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
      run: async ({ path }) =>
        path === 'README.md'
          ? '# Project Foo\n\nA tool for testing sessions.'
          : `no such file: ${String(path)}`,
    },
  ]);
  const manager = new SessionManager({
    store,
    router,
    pricing: defaultPriceTable(),
    bus,
    tools,
    logger,
    systemPrompt: [
      'You are a careful assistant.',
      ({ session }) => `Workspace: ${session.workspace_path}`,
    ],
    ...overrides,
  });
  const h = { manager, store, bus, events, logger, dbPath };
  harnesses.push(h);
  return h;
}

beforeEach(() => server.reset());
afterEach(async () => {
  await Promise.all(harnesses.splice(0).map((h) => h.store.close()));
});

describe('SessionManager', () => {
  it('runs a full tool loop through the real adapter, stores it, and reloads it intact', async () => {
    const h = await harness();
    server.enqueue(...fixture('tool-call-stream'), ...fixture('text-stream'));
    const session = await h.manager.createSession({ workspace_path: '/work/foo' });
    const { events, error } = await collect(h.manager.send(session.id, 'Summarize README.md'));
    expect(error).toBeUndefined();

    // The per-attempt and tool-start events are covered by ui-events.test.ts.
    const kinds = events
      .filter((e) => e.type.startsWith('session.'))
      .map((e) => e.type)
      .filter((t) => t !== 'session.attempt' && t !== 'session.tool_started');
    expect(kinds).toEqual([
      'session.user_message',
      'session.routed',
      'session.assistant_message',
      'session.tool_result',
      'session.routed',
      'session.assistant_message',
      'session.turn_complete',
    ]);
    expect(events.filter((e) => e.type === 'text.delta').length).toBeGreaterThan(2);
    const done = events.at(-1);
    expect(done?.type === 'session.turn_complete' && done.result).toMatchObject({
      end: 'end_turn',
      steps: 2,
      error: null,
    });

    // what went on the wire
    expect(server.requests).toHaveLength(2);
    const second = server.requests[1]?.body as {
      system: Array<{ text: string }>;
      messages: Array<{ role: string; content: Array<Record<string, unknown>> }>;
    };
    expect(second.system[0]?.text).toBe('You are a careful assistant.\n\nWorkspace: /work/foo');
    expect(second.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect(second.messages[2]?.content[0]).toMatchObject({
      type: 'tool_result',
      tool_use_id: 'toolu_01T1x1fJ34qAmk2tNTrN7Up6',
      content: [{ type: 'text', text: '# Project Foo\n\nA tool for testing sessions.' }],
    });

    // what the store holds, read back through a fresh connection
    const reopened = await openStore(`sqlite:${h.dbPath}`);
    const { messages, errors } = await reopened.loadMessages(session.id);
    expect(errors).toEqual([]);
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    expect(validateHistory(messages).ok).toBe(true);
    for (const message of messages) expect(validateMessage(message).violations).toEqual([]);
    const [, call, , answer] = messages;
    expect(call?.content).toEqual([
      { type: 'text', text: "I'll read the file." },
      {
        type: 'tool_use',
        id: expect.stringMatching(/^tu_/),
        name: 'read_file',
        input: { path: 'README.md' },
      },
    ]);
    expect(answer?.content).toEqual([{ type: 'text', text: 'Hello! How can I help you today?' }]);
    // cost on every assistant message, computed locally: 380 in, 52 out at $3/$15 per MTok
    expect(call?.metadata.usage).toMatchObject({
      input_tokens: 380,
      output_tokens: 52,
      cost_usd: '0.00192',
      pricing_version: '2026-11-22',
    });
    expect(answer?.metadata.usage).toMatchObject({
      input_tokens: 12,
      output_tokens: 9,
      cost_usd: '0.000171',
    });
    expect(call?.metadata).toMatchObject({
      model: 'anthropic:claude-sonnet-4-6',
      provider: 'anthropic',
      status: 'complete',
      routing: {
        mode: 'default',
        chosen_model: 'anthropic:claude-sonnet-4-6',
        reason: 'global default',
      },
      provider_raw: { anthropic: { stop_reason: 'tool_use' } },
    });
    const toolCalls = await reopened.listToolCalls(session.id);
    expect(toolCalls).toMatchObject([
      {
        name: 'read_file',
        status: 'succeeded',
        provider: 'anthropic',
        provider_id: 'toolu_01T1x1fJ34qAmk2tNTrN7Up6',
      },
    ]);
    const map = await reopened.loadToolIdMap(session.id);
    const toolUseId = (call!.content[1] as { id: string }).id;
    expect(map.getProviderId('anthropic', toolUseId)).toBe('toolu_01T1x1fJ34qAmk2tNTrN7Up6');
    await reopened.close();

    // bus: one started and one completed per call, and the router's decisions
    expect(h.events.map((e) => e.type)).toEqual([
      'route.decided',
      'llm.call_started',
      'llm.call_completed',
      'route.decided',
      'llm.call_started',
      'llm.call_completed',
    ]);
    expect(done?.type === 'session.turn_complete' && done.result.cost_usd).toBe('0.002091');
  });

  it('swaps the model mid-session and replays the whole history on it', async () => {
    const h = await harness();
    server.enqueue(...fixture('tool-call-stream'), ...fixture('text-stream'));
    const session = await h.manager.createSession({ workspace_path: '/work/foo' });
    await h.manager.sendAndWait(session.id, 'Summarize README.md');

    const swapped = await h.manager.swapModel(session.id, 'haiku');
    expect(swapped.active_model).toBe('anthropic:claude-haiku-4-5');
    server.reset();
    // Haiku serves the reply (a reply is priced by the model that served it)
    server.enqueue(...servedAs(fixture('text-stream'), 'claude-haiku-4-5'));
    const result = await h.manager.sendAndWait(session.id, 'Say hello again.');
    expect(result.end).toBe('end_turn');
    const body = server.requests[0]?.body as {
      model: string;
      messages: Array<{ role: string; content: Array<{ type: string }> }>;
    };
    expect(body.model).toBe('claude-haiku-4-5');
    expect(body.messages.map((m) => m.role)).toEqual([
      'user',
      'assistant',
      'user',
      'assistant',
      'user',
    ]);
    expect(body.messages[1]?.content.map((b) => b.type)).toEqual(['text', 'tool_use']);
    const last = result.messages.at(-1);
    expect(last?.metadata).toMatchObject({
      model: 'anthropic:claude-haiku-4-5',
      routing: { mode: 'manual', reason: 'session model chosen with /model' },
    });
    // Haiku 4.5: 12 in, 9 out at $1/$5 per MTok
    expect(last?.metadata.usage?.cost_usd).toBe('0.000057');
  });

  it('swaps to another provider and replays a Claude tool loop as valid Chat Completions', async () => {
    const h = await harness();
    server.enqueue(
      ...fixture('tool-call-stream'),
      ...fixture('text-stream'),
      ...fixture('text-stream', openaiFixtures),
    );
    const session = await h.manager.createSession({ workspace_path: '/work/foo' });
    await h.manager.sendAndWait(session.id, 'Summarize README.md');
    await h.manager.swapModel(session.id, 'gpt5');
    const result = await h.manager.sendAndWait(session.id, 'Say hello.');
    expect(result.end).toBe('end_turn');
    const body = server.requests[2]?.body as {
      model: string;
      messages: Array<{
        role: string;
        content: unknown;
        tool_calls?: Array<{ id: string; function: { name: string; arguments: string } }>;
        tool_call_id?: string;
      }>;
    };
    expect(body.model).toBe('gpt-5');
    expect(body.messages.map((m) => m.role)).toEqual([
      'system',
      'user',
      'assistant',
      'tool',
      'assistant',
      'user',
    ]);
    const call = body.messages[2]?.tool_calls?.[0];
    expect(call?.function).toEqual({ name: 'read_file', arguments: '{"path":"README.md"}' });
    expect(call?.id.length).toBeLessThanOrEqual(40);
    expect(body.messages[3]?.tool_call_id, 'the tool result answers the re-mapped call id').toBe(
      call?.id,
    );
    const last = result.messages.at(-1);
    expect(last?.metadata).toMatchObject({
      model: 'openai:gpt-5',
      provider: 'openai',
      routing: { mode: 'manual' },
    });
    // GPT-5: 12 uncached in, 9 out at $1.25/$10 per MTok
    expect(last?.metadata.usage).toMatchObject({
      input_tokens: 12,
      output_tokens: 9,
      cost_usd: '0.000105',
    });
    const stored = await h.store.loadMessages(session.id);
    expect(validateHistory(stored.messages).ok).toBe(true);
  });

  it('refuses a swap the history cannot survive and keeps the active model', async () => {
    const h = await harness();
    server.enqueue(...fixture('text-stream'));
    const session = await h.manager.createSession({
      workspace_path: '/work/foo',
      active_model: 'anthropic:claude-sonnet-4-6',
    });
    await h.manager.sendAndWait(session.id, [
      { type: 'text', text: 'What is in these images?' },
      {
        type: 'image',
        source: {
          kind: 'base64',
          data: PNG_1PX_BASE64,
        },
        media_type: 'image/png',
      },
    ]);
    await expect(
      h.manager.swapModel(session.id, 'anthropic:claude-haiku-4-5-text-only'),
    ).rejects.toThrowError(SwapRefusedError);
    await expect(
      h.manager.swapModel(session.id, 'anthropic:claude-haiku-4-5-text-only'),
    ).rejects.toThrow(
      "Cannot swap to Haiku-text-only: session contains images that this model can't process. Active model unchanged.",
    );
    expect((await h.store.getSession(session.id))?.active_model).toBe(
      'anthropic:claude-sonnet-4-6',
    );
  });

  it('cancels mid-stream and stores the partial assistant message as cancelled', async () => {
    const h = await harness();
    server.enqueue(...fixture('cancel-mid-text'));
    const session = await h.manager.createSession({ workspace_path: '/work/foo' });
    const events: SessionEvent[] = [];
    const started = performance.now();
    for await (const event of h.manager.send(session.id, 'Say hello.')) {
      events.push(event);
      if (event.type === 'text.delta') expect(h.manager.cancel(session.id)).toBe(true);
    }
    expect(performance.now() - started).toBeLessThan(3000);
    const complete = events.find(
      (e): e is Extract<StreamEvent, { type: 'message.complete' }> => e.type === 'message.complete',
    );
    expect(complete?.stop_reason).toBe('cancelled');
    const done = events.at(-1);
    expect(done?.type === 'session.turn_complete' && done.result.end).toBe('cancelled');
    const { messages } = await h.store.loadMessages(session.id);
    expect(messages.map((m) => [m.role, m.metadata.status])).toEqual([
      ['user', 'complete'],
      ['assistant', 'cancelled'],
    ]);
    expect(messages[1]?.content).toEqual([{ type: 'text', text: 'Hello' }]);
    expect(messages[1]?.metadata.usage?.cost_usd).toMatch(/^\d/);
    expect(h.events.filter((e) => e.type === 'llm.call_failed')).toMatchObject([
      { error_class: 'cancelled', final: true },
    ]);
    expect(h.manager.cancel(session.id), 'nothing left to cancel').toBe(false);
  });

  it('a cancelled turn never falls back: the partial reply is stored cancelled with its usage, though its stream then failed', async () => {
    const h = await harness({}, 'global_default: gpt5\nfallbacks:\n  gpt5: [sonnet]\n');
    // text, an open tool call, then 400 text deltas held behind it (decision 0137), in one write,
    // closed without the finish: uncancelled, a network failure that falls back to Claude
    const chunk = chatChunkEvent;
    const call = { index: 0, id: 'call_burst', type: 'function', function: { name: 'read_file' } };
    server.enqueue(
      {
        type: 'stream',
        contentType: 'text/event-stream',
        chunks: [
          [
            chunk({ role: 'assistant', content: 'Reading.' }),
            chunk({ tool_calls: [{ ...call, function: { ...call.function, arguments: '' } }] }),
            ...Array.from({ length: 400 }, (_, i) => chunk({ content: ` w${i}` })),
          ].join(''),
        ],
        ending: 'end',
      },
      ...fixture('text-stream'),
    );
    const session = await h.manager.createSession({ workspace_path: '/w' });
    const events: SessionEvent[] = [];
    let deltas = 0;
    const { error } = await collect(
      (async function* () {
        for await (const event of h.manager.send(session.id, 'Read it.')) {
          if (event.type === 'text.delta' && ++deltas === 5) h.manager.cancel(session.id);
          events.push(event);
          yield event;
        }
      })(),
    );
    expect(error).toBeUndefined();
    expect(server.requests, 'no fallback call after the cancel').toHaveLength(1);
    const done = events.at(-1);
    expect(done?.type === 'session.turn_complete' && done.result.end).toBe('cancelled');
    const { messages } = await h.store.loadMessages(session.id);
    // the open call is answered as cancelled (decision 0067)
    expect(messages.map((m) => [m.role, m.metadata.status])).toEqual([
      ['user', 'complete'],
      ['assistant', 'cancelled'],
      ['tool', 'complete'],
    ]);
    const reply = messages[1];
    expect(reply?.metadata.model).toBe('openai:gpt-5');
    expect(reply?.content.filter((b) => b.type === 'text')).toEqual([
      { type: 'text', text: 'Reading.' },
      { type: 'text', text: ' w0 w1 w2 w3' },
    ]);
    expect(reply?.metadata.usage?.input_tokens).toBeGreaterThan(0);
    expect(reply?.metadata.usage?.cost_usd).toMatch(/^\d/);
    expect(h.events.filter((e) => e.type === 'llm.call_failed')).toMatchObject([
      { error_class: 'cancelled', final: true },
    ]);
  });

  it('stores the user message, reports and throws an adapter failure', async () => {
    const h = await harness();
    server.enqueue(...fixture('error-server_error'));
    const session = await h.manager.createSession({ workspace_path: '/w' });
    const { events, error } = await collect(h.manager.send(session.id, 'Hi'));
    expect(error).toBeInstanceOf(ServerError);
    const done = events.at(-1);
    expect(done?.type === 'session.turn_complete' && done.result).toMatchObject({
      end: 'error',
      error: { error_class: 'server_error' },
    });
    expect((await h.store.loadMessages(session.id)).messages.map((m) => m.role)).toEqual(['user']);
    expect(h.events.filter((e) => e.type === 'llm.call_failed')).toMatchObject([
      { error_class: 'server_error', final: true, retry_count: 0 },
    ]);
  });

  it('asks for consent before write tools, and refuses them without a confirmation hook', async () => {
    const writes: string[] = [];
    const writeTool = {
      definition: {
        name: 'read_file',
        description: 'Pretend reading is a write, to test consent.',
        input_schema: { type: 'object', properties: { path: { type: 'string' } } },
        side_effects: 'write' as const,
      },
      run: async ({ path }: Record<string, unknown>) => {
        writes.push(String(path));
        return 'written';
      },
    };
    const refused = await harness({ tools: new ToolRegistry([writeTool]) });
    server.enqueue(...fixture('tool-call-stream'), ...fixture('text-stream'));
    const s1 = await refused.manager.createSession({ workspace_path: '/w' });
    const r1 = await refused.manager.sendAndWait(s1.id, 'Summarize README.md');
    const tool1 = r1.messages.find((m) => m.role === 'tool');
    expect(tool1?.content[0]).toMatchObject({
      is_error: true,
      content: [{ text: expect.stringContaining('no confirmation handler') }],
    });
    expect(writes).toEqual([]);

    const asked: string[] = [];
    const allowed = await harness({
      tools: new ToolRegistry([writeTool]),
      confirm: (request) => {
        asked.push(`${request.tool}:${request.side_effects}`);
        return true;
      },
    });
    server.reset();
    server.enqueue(...fixture('tool-call-stream'), ...fixture('text-stream'));
    const s2 = await allowed.manager.createSession({ workspace_path: '/w' });
    await allowed.manager.sendAndWait(s2.id, 'Summarize README.md');
    expect(asked).toEqual(['read_file:write']);
    expect(writes).toEqual(['README.md']);
  });

  it('stops a tool loop at the step limit', async () => {
    const h = await harness({ maxSteps: 2 });
    server.enqueue(...fixture('tool-call-stream'), ...fixture('tool-call-stream'));
    const session = await h.manager.createSession({ workspace_path: '/w' });
    const result = await h.manager.sendAndWait(session.id, 'Summarize README.md');
    expect(result).toMatchObject({ end: 'max_steps', steps: 2 });
    expect(h.logger.warnings().some((w) => w.obj.event === 'max_steps')).toBe(true);
    // the fixture replays the same provider tool id: the second call still gets its own id
    const uses = result.messages.flatMap((m) => m.content.filter((b) => b.type === 'tool_use'));
    expect(new Set(uses.map((u) => u.type === 'tool_use' && u.id)).size).toBe(2);
    expect(h.logger.warnings().some((w) => w.obj.event === 'provider_reused_tool_id')).toBe(true);
  });

  it('records an unpriced model as unpriced, never as free', async () => {
    const h = await harness();
    // served by a model the price table does not know either
    server.enqueue(...servedAs(fixture('text-stream'), 'claude-sonnet-4-6-unpriced'));
    const session = await h.manager.createSession({
      workspace_path: '/w',
      active_model: 'anthropic:claude-sonnet-4-6-unpriced',
    });
    const result = await h.manager.sendAndWait(session.id, 'Say hello.');
    const assistant = result.messages.at(-1);
    expect(assistant?.metadata.usage).toMatchObject({
      input_tokens: 12,
      cost_usd: null,
      pricing_version: null,
    });
    expect(result.cost_usd).toBeNull();
    expect(h.logger.warnings().some((w) => w.obj.event === 'usage_unpriced')).toBe(true);
  });

  it('refuses a second turn while one is running', async () => {
    const h = await harness();
    server.enqueue(...fixture('cancel-mid-text'));
    const session = await h.manager.createSession({ workspace_path: '/w' });
    const first = h.manager.send(session.id, 'Say hello.')[Symbol.asyncIterator]();
    await first.next();
    await expect(h.manager.send(session.id, 'again').next()).rejects.toThrowError(
      TurnInProgressError,
    );
    h.manager.cancel(session.id);
    while (!(await first.next()).done) {}
  });
});

describe('SessionManager reliability: cancel and abandon', () => {
  // nothing of ours (nor the SDKs below) writes to the console, even on these paths
  const consoleMethods = ['log', 'info', 'warn', 'error', 'debug', 'trace'] as const;
  let consoleSpies: Array<ReturnType<typeof vi.spyOn>> = [];
  beforeEach(() => {
    consoleSpies = consoleMethods.map((method) => vi.spyOn(console, method));
  });
  afterEach(() => {
    for (const spy of consoleSpies) {
      expect(spy.mock.calls, 'console output').toEqual([]);
      spy.mockRestore();
    }
  });

  const writeTool = (run: ToolHandler['run']): ToolHandler => ({
    definition: {
      name: 'read_file',
      description: 'Pretend reading is a write, to test consent and cancellation.',
      input_schema: { type: 'object', properties: { path: { type: 'string' } } },
      side_effects: 'write',
    },
    run,
  });
  const toolResults = (messages: readonly Message[]) =>
    messages.flatMap((m) =>
      m.content.flatMap((b) =>
        b.type === 'tool_result'
          ? [
              {
                tool_use_id: b.tool_use_id,
                is_error: b.is_error,
                text: b.content.map((c) => (c.type === 'text' ? c.text : '')).join(''),
              },
            ]
          : [],
      ),
    );
  const toolUseIds = (messages: readonly Message[]) =>
    messages.flatMap((m) => m.content.flatMap((b) => (b.type === 'tool_use' ? [b.id] : [])));
  /** A later turn works (no TurnInProgressError) and sends every stored tool result. */
  async function nextTurnWorks(h: Harness, sessionId: string): Promise<void> {
    server.reset();
    server.enqueue(...fixture('text-stream'));
    const result = await h.manager.sendAndWait(sessionId, 'Say hello.');
    expect(result.end).toBe('end_turn');
    const body = server.requests[0]?.body as {
      messages: Array<{ role: string; content: Array<{ type: string; tool_use_id?: string }> }>;
    };
    const sentUses = body.messages.flatMap((m) => m.content.filter((b) => b.type === 'tool_use'));
    const sentResults = body.messages.flatMap((m) =>
      m.content.filter((b) => b.type === 'tool_result'),
    );
    expect(sentResults).toHaveLength(sentUses.length);
    // none of them is core's replay repair: the session stored a result for each
    expect(h.logger.warnings().filter((w) => w.obj.kind === 'synthetic_tool_result')).toEqual([]);
  }

  it('a cancel while the confirmation is unanswered ends the turn, runs nothing and unlocks the session', async () => {
    const runs: string[] = [];
    const requests: ConfirmationRequest[] = [];
    let asked!: () => void;
    const askedOnce = new Promise<void>((resolve) => {
      asked = resolve;
    });
    const h = await harness({
      tools: new ToolRegistry([
        writeTool(({ path }) => {
          runs.push(String(path));
          return 'written';
        }),
      ]),
      confirm: (request) => {
        requests.push(request);
        asked();
        return new Promise<boolean>(() => {}); // the user never answers
      },
    });
    server.enqueue(...fixture('tool-call-stream'));
    const session = await h.manager.createSession({ workspace_path: '/w' });
    const turn = collect(h.manager.send(session.id, 'Summarize README.md'));
    await askedOnce;
    expect(requests[0]?.signal.aborted).toBe(false);
    expect(h.manager.cancel(session.id)).toBe(true);
    const { events, error } = await turn;
    expect(error).toBeUndefined();
    expect(requests[0]?.signal.aborted, 'the hook was given the turn signal').toBe(true);
    const done = events.at(-1);
    expect(done?.type === 'session.turn_complete' && done.result.end).toBe('cancelled');
    expect(runs).toEqual([]);
    expect(h.manager.cancel(session.id), 'the session is unlocked').toBe(false);

    const { messages } = await h.store.loadMessages(session.id);
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool']);
    expect(toolResults(messages)).toEqual([
      {
        tool_use_id: toolUseIds(messages)[0],
        is_error: true,
        text: 'The turn was cancelled while read_file waited for confirmation, so it was not run.',
      },
    ]);
    expect(validateHistory(messages).ok).toBe(true);
    expect(
      events.filter((e) => e.type === 'session.tool_result').map((e) => e.type),
      'the stored result was reported',
    ).toHaveLength(1);
    await nextTurnWorks(h, session.id);
  });

  it('a cancel during the first of two tool calls runs nothing more, and tools get the turn signal', async () => {
    const runs: Array<{ path: string; abortedAtStart: boolean }> = [];
    const confirmed: string[] = [];
    let started!: () => void;
    const firstStarted = new Promise<void>((resolve) => {
      started = resolve;
    });
    let firstSignal: AbortSignal | undefined;
    const h = await harness({
      tools: new ToolRegistry([
        writeTool(({ path }, context) => {
          runs.push({ path: String(path), abortedAtStart: context.signal.aborted });
          firstSignal ??= context.signal;
          started();
          // a well-behaved tool: stops when the turn is cancelled
          return new Promise((resolve) => {
            context.signal.addEventListener('abort', () => resolve('stopped'), { once: true });
          });
        }),
      ]),
      confirm: (request) => {
        confirmed.push(String(request.input.path));
        return true;
      },
    });
    server.enqueue(...fixture('parallel-tool-calls'));
    const session = await h.manager.createSession({ workspace_path: '/w' });
    const turn = collect(h.manager.send(session.id, 'Read README.md and LICENSE'));
    await firstStarted;
    expect(h.manager.cancel(session.id)).toBe(true);
    const { events, error } = await turn;
    expect(error).toBeUndefined();
    expect(firstSignal?.aborted, 'the running tool got the turn signal').toBe(true);
    expect(runs).toEqual([{ path: 'README.md', abortedAtStart: false }]);
    expect(confirmed, 'no confirmation is asked after the cancel').toEqual(['README.md']);
    const done = events.at(-1);
    expect(done?.type === 'session.turn_complete' && done.result).toMatchObject({
      end: 'cancelled',
      steps: 1,
    });

    const { messages } = await h.store.loadMessages(session.id);
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'tool']);
    const [first, second] = toolUseIds(messages);
    expect(toolResults(messages)).toEqual([
      {
        tool_use_id: first,
        is_error: true,
        text: 'The turn was cancelled while read_file was running; it was told to stop, and what it did before stopping is unknown.',
      },
      {
        tool_use_id: second,
        is_error: true,
        text: 'The turn was cancelled before read_file ran, so it was not run.',
      },
    ]);
    expect(validateHistory(messages).ok).toBe(true);
    expect(server.requests, 'no model call after the cancel').toHaveLength(1);
    await nextTurnWorks(h, session.id);
  });

  it('a consumer that stops iterating leaves a finished, priced row and an unlocked session', async () => {
    const h = await harness();
    server.enqueue(...fixture('cancel-mid-text'));
    const session = await h.manager.createSession({ workspace_path: '/w' });
    let deltas = 0;
    for await (const event of h.manager.send(session.id, 'Say hello.')) {
      if (event.type === 'text.delta') {
        deltas++;
        break; // the UI's client went away
      }
    }
    expect(deltas).toBe(1);
    expect(h.manager.cancel(session.id), 'the session is unlocked').toBe(false);

    // read the row back through a fresh connection to the SQLite file
    const reopened = await openStore(`sqlite:${h.dbPath}`);
    const { messages } = await reopened.loadMessages(session.id);
    await reopened.close();
    expect(messages.map((m) => [m.role, m.metadata.status])).toEqual([
      ['user', 'complete'],
      ['assistant', 'cancelled'],
    ]);
    expect(messages[1]?.content).toEqual([{ type: 'text', text: 'Hello' }]);
    // message_start reported 12 input tokens and 1 output token: billed at $3/$15 per MTok
    expect(messages[1]?.metadata.usage).toMatchObject({
      input_tokens: 12,
      output_tokens: 1,
      cost_usd: '0.000051',
      pricing_version: '2026-11-22',
    });
    expect(h.events.filter((e) => e.type === 'llm.call_failed')).toMatchObject([
      { error_class: 'cancelled', final: true },
    ]);
    // the provider request was closed (the server notices the client going away on its own time)
    await vi.waitFor(() => expect(server.requests[0]?.aborted).toBe(true));
    await nextTurnWorks(h, session.id);
  });

  it('a consumer that stops iterating before the tools ran leaves every tool use answered', async () => {
    const runs: string[] = [];
    const h = await harness({
      tools: new ToolRegistry([
        {
          definition: {
            name: 'read_file',
            description: 'Read a file.',
            input_schema: { type: 'object', properties: { path: { type: 'string' } } },
            side_effects: 'read',
          },
          run: ({ path }) => {
            runs.push(String(path));
            return 'contents';
          },
        },
      ]),
    });
    server.enqueue(...fixture('parallel-tool-calls'));
    const session = await h.manager.createSession({ workspace_path: '/w' });
    for await (const event of h.manager.send(session.id, 'Read README.md and LICENSE')) {
      if (event.type === 'session.tool_result') break; // gone after the first result
    }
    expect(runs).toEqual(['README.md']);
    const { messages } = await h.store.loadMessages(session.id);
    expect(messages.map((m) => [m.role, m.metadata.status])).toEqual([
      ['user', 'complete'],
      ['assistant', 'complete'],
      ['tool', 'complete'],
      ['tool', 'complete'],
    ]);
    expect(toolResults(messages).map((r) => [r.is_error, r.text])).toEqual([
      [false, 'contents'],
      [true, 'The turn was cancelled before read_file ran, so it was not run.'],
    ]);
    expect(validateHistory(messages).ok).toBe(true);
    await nextTurnWorks(h, session.id);
  });

  it('a confirmation hook that throws refuses the tool and keeps the turn going', async () => {
    const runs: string[] = [];
    const h = await harness({
      tools: new ToolRegistry([
        writeTool(({ path }) => {
          runs.push(String(path));
          return 'written';
        }),
      ]),
      confirm: () => {
        throw new Error('the confirmation dialog could not be shown');
      },
    });
    server.enqueue(...fixture('tool-call-stream'), ...fixture('text-stream'));
    const session = await h.manager.createSession({ workspace_path: '/w' });
    const result = await h.manager.sendAndWait(session.id, 'Summarize README.md');
    expect(result.end).toBe('end_turn');
    expect(runs).toEqual([]);
    expect(toolResults(result.messages).map((r) => [r.is_error, r.text])).toEqual([
      [
        true,
        'The confirmation for read_file failed (the confirmation dialog could not be shown), so it was not run.',
      ],
    ]);
    expect(h.manager.cancel(session.id)).toBe(false);
  });
});

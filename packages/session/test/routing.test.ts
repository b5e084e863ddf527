import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AnthropicAdapter } from '@yourtool/anthropic';
import {
  type LoopbackServer,
  type ScriptedResponse,
  startLoopbackServer,
} from '@yourtool/conformance';
import {
  AuthError,
  type BusEvent,
  createEventBus,
  createMemoryLogger,
  ServerError,
  validateHistory,
} from '@yourtool/core';
import { OllamaAdapter } from '@yourtool/ollama';
import { OpenAIAdapter } from '@yourtool/openai';
import { defaultPriceTable } from '@yourtool/pricing';
import {
  AvailabilityTracker,
  ChoiceUnavailableError,
  ModelRegistry,
  NoRouteError,
  parseRoutingConfig,
  Router,
  StrictRuleError,
} from '@yourtool/router';
import { openStore, type SqlSessionStore } from '@yourtool/store';
import { PNG_1PX_BASE64 } from '@yourtool/testkit';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  CompactionError,
  type CompactionHook,
  compactionOf,
  dropOldestTurns,
  type SessionEvent,
  SessionManager,
  summarizeOlderTurns,
  ToolRegistry,
} from '../src/index.js';
import { collect, fixturesOf, requireFixture, unavailable } from './helpers.js';

const anthropic = fixturesOf('anthropic');
const openai = fixturesOf('openai');
const ollama = fixturesOf('ollama');
const fixture = requireFixture;
/** `/api/show` of qwen3:8b, recorded (tools and thinking, 4096-token default window). */
const showQwen = (): ScriptedResponse => ({
  type: 'json',
  body: JSON.parse(
    readFileSync(new URL('../../ollama/test/show/qwen3_8b.json', import.meta.url), 'utf8'),
  ) as unknown,
});

let server: LoopbackServer;
beforeAll(async () => {
  server = await startLoopbackServer();
});
afterAll(() => server.close());

interface Setup {
  /** routing.yaml. */
  routing?: string;
  /** `max_retries` of the Anthropic adapter. */
  anthropicRetries?: number;
  /** Overrides every model's context window. */
  contextTokens?: number;
  /** Registers an Ollama adapter and `ollama:qwen3:8b` (alias `qwen`). */
  withOllama?: boolean;
  maxOutputTokens?: number;
  /** The manager's compaction hook. */
  compaction?: CompactionHook;
}

interface Harness {
  manager: SessionManager;
  store: SqlSessionStore;
  events: BusEvent[];
  dbPath: string;
}

function registryYaml(setup: Setup): string {
  const caps = setup.contextTokens
    ? `, capabilities: { max_context_tokens: ${setup.contextTokens} }`
    : '';
  return `
adapters:
  anthropic:
    type: anthropic
    api_key: sk-ant-session-test-000000
    base_url: ${server.url}
    max_retries: ${setup.anthropicRetries ?? 0}
  openai:
    type: openai
    api_key: sk-session-test-0000000000
    base_url: ${server.url}
    max_retries: 0
${
  setup.withOllama
    ? `  ollama:
    type: ollama
    base_url: ${server.url}
    max_retries: 0
`
    : ''
}models:
  openai:gpt-5: { adapter: openai, wire_name: gpt-5, tier: balanced, aliases: [gpt5]${caps} }
  anthropic:claude-sonnet-4-6: { adapter: anthropic, wire_name: claude-sonnet-4-6, tier: balanced, aliases: [sonnet]${caps} }
  anthropic:claude-haiku-4-5-text-only:
    adapter: anthropic
    wire_name: claude-haiku-4-5
    aliases: [texthaiku]
    capabilities: { supports_images: false }
${setup.withOllama ? '  ollama:qwen3:8b: { adapter: ollama, wire_name: "qwen3:8b", aliases: [qwen] }\n' : ''}`;
}

const harnesses: Harness[] = [];
async function harness(setup: Setup = {}): Promise<Harness> {
  const dbPath = join(mkdtempSync(join(tmpdir(), 'session-routing-')), 'sessions.db');
  const store = await openStore(`sqlite:${dbPath}`);
  const logger = createMemoryLogger();
  const bus = createEventBus();
  const events: BusEvent[] = [];
  bus.onAny((e) => events.push(e));
  const registry = ModelRegistry.fromYaml(registryYaml(setup), {
    factories: {
      anthropic: (config, runtime) => new AnthropicAdapter(config, runtime),
      openai: (config, runtime) => new OpenAIAdapter(config, runtime),
      ollama: (config, runtime) => new OllamaAdapter(config, runtime),
    },
    logger,
    retry: { baseDelayMs: 1, maxDelayMs: 2 },
  });
  const availability = new AvailabilityTracker();
  availability.connect(bus);
  const router = new Router({
    registry,
    config: parseRoutingConfig(setup.routing ?? 'global_default: sonnet'),
    availability,
    bus,
  });
  const manager = new SessionManager({
    store,
    router,
    pricing: defaultPriceTable(),
    bus,
    logger,
    ...(setup.maxOutputTokens ? { maxOutputTokens: setup.maxOutputTokens } : {}),
    ...(setup.compaction ? { compaction: setup.compaction } : {}),
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
        run: async () => '# Project Foo\n\nA tool for testing sessions.',
      },
    ]),
  });
  const h = { manager, store, events, dbPath };
  harnesses.push(h);
  return h;
}

beforeEach(() => server.reset());
afterEach(async () => {
  await Promise.all(harnesses.splice(0).map((h) => h.store.close()));
});

/** The session's rows, read back through a fresh connection to the SQLite file. */
async function storedRows(h: Harness, sessionId: string) {
  const reopened = await openStore(`sqlite:${h.dbPath}`);
  try {
    const { messages, errors } = await reopened.loadMessages(sessionId);
    expect(errors).toEqual([]);
    return messages;
  } finally {
    await reopened.close();
  }
}

const sessionKinds = (events: SessionEvent[]) =>
  events
    .filter((e) => e.type.startsWith('session.'))
    .map((e) => e.type)
    // The per-attempt and tool-start events are covered by ui-events.test.ts.
    .filter((t) => t !== 'session.attempt' && t !== 'session.tool_started');

describe('route before storing', () => {
  it('a message larger than every context is refused with nothing stored; the next turn works', async () => {
    const h = await harness({ contextTokens: 6000, maxOutputTokens: 1024 });
    const session = await h.manager.createSession({ workspace_path: '/w' });
    const huge = 'lorem ipsum dolor sit amet '.repeat(2000);
    const { events, error } = await collect(h.manager.send(session.id, huge));
    expect(error).toBeInstanceOf(NoRouteError);
    expect(events, 'nothing is reported as stored').toEqual([]);
    expect(server.requests).toHaveLength(0);
    expect(await storedRows(h, session.id)).toEqual([]);

    server.enqueue(...fixture(anthropic, 'text-stream'));
    const result = await h.manager.sendAndWait(session.id, 'Say hello.');
    expect(result.end).toBe('end_turn');
    const rows = await storedRows(h, session.id);
    expect(rows.map((m) => m.role)).toEqual(['user', 'assistant']);
    expect(rows[0]?.content).toEqual([{ type: 'text', text: 'Say hello.' }]);
    expect(validateHistory(rows).ok).toBe(true);
  });

  it('a typo in @model throws ChoiceUnavailableError with suggestions and stores nothing; fallthrough lets routing choose', async () => {
    const h = await harness();
    const session = await h.manager.createSession({ workspace_path: '/w' });
    const { events, error } = await collect(
      h.manager.send(session.id, 'Say hello.', { model: 'gtp5' }),
    );
    expect(error).toBeInstanceOf(ChoiceUnavailableError);
    const refused = error as ChoiceUnavailableError;
    expect(refused.choice).toBe('gtp5');
    expect(refused.policy).toBe('PER_MESSAGE_OVERRIDE');
    expect(refused.suggestions).toContain('gpt5');
    expect(events).toEqual([]);
    expect(server.requests).toHaveLength(0);
    expect(await storedRows(h, session.id)).toEqual([]);

    server.enqueue(...fixture(anthropic, 'text-stream'));
    const result = await h.manager.sendAndWait(session.id, 'Say hello.', {
      model: 'gtp5',
      fallthrough: true,
    });
    expect(result.end).toBe('end_turn');
    expect(result.messages.at(-1)?.metadata.model).toBe('anthropic:claude-sonnet-4-6');
    expect((await storedRows(h, session.id)).map((m) => m.role)).toEqual(['user', 'assistant']);
  });

  it('a strict rule that cannot be honoured refuses the turn with nothing stored', async () => {
    const h = await harness({
      routing: `
global_default: sonnet
rules:
  - { name: confidential, when: { message_matches: confidential }, use: texthaiku, strict: true }
`,
    });
    const session = await h.manager.createSession({ workspace_path: '/w' });
    const { events, error } = await collect(
      h.manager.send(session.id, [
        { type: 'text', text: 'Describe this confidential scan.' },
        {
          type: 'image',
          media_type: 'image/png',
          source: { kind: 'base64', data: PNG_1PX_BASE64 },
        },
      ]),
    );
    expect(error).toBeInstanceOf(StrictRuleError);
    expect((error as StrictRuleError).rule).toBe('confidential');
    expect(events).toEqual([]);
    expect(server.requests, 'nothing went to a cloud model').toHaveLength(0);
    expect(await storedRows(h, session.id)).toEqual([]);

    server.enqueue(...fixture(anthropic, 'text-stream'));
    const result = await h.manager.sendAndWait(session.id, 'Say hello.');
    expect(result.end).toBe('end_turn');
    expect((await storedRows(h, session.id)).map((m) => m.role)).toEqual(['user', 'assistant']);
  });
});

describe('prepare', () => {
  it('detects capabilities before the first routing decision, once', async () => {
    const h = await harness({
      withOllama: true,
      maxOutputTokens: 1024,
      routing: `
global_default: sonnet
rules:
  - { name: local, when: { tier: local }, use: qwen }
`,
    });
    server.enqueue(
      showQwen(),
      ...fixture(ollama, 'text-stream'),
      ...fixture(ollama, 'text-stream'),
    );
    const session = await h.manager.createSession({ workspace_path: '/w' });
    const first = await h.manager.sendAndWait(session.id, 'Say hello.', { tier: 'local' });
    expect(first.messages.at(-1)?.metadata).toMatchObject({
      model: 'ollama:qwen3:8b',
      routing: { rule_name: 'local' },
    });
    const second = await h.manager.sendAndWait(session.id, 'Again.', { tier: 'local' });
    expect(second.messages.at(-1)?.metadata.model).toBe('ollama:qwen3:8b');
    expect(server.requests.map((r) => r.path)).toEqual(['/api/show', '/api/chat', '/api/chat']);
  });
});

describe('fallback within a turn', () => {
  const fallbackRouting = `
global_default: sonnet
fallbacks:
  sonnet: [gpt5]
`;

  it('a 503 storm on Anthropic falls back to OpenAI, and the record shows it', async () => {
    const h = await harness({ routing: fallbackRouting, anthropicRetries: 2 });
    server.enqueue(unavailable(), unavailable(), unavailable(), ...fixture(openai, 'text-stream'));
    const session = await h.manager.createSession({ workspace_path: '/w' });
    const { events, error } = await collect(h.manager.send(session.id, 'Say hello.'));
    expect(error).toBeUndefined();
    expect(sessionKinds(events)).toEqual([
      'session.user_message',
      'session.routed',
      'session.fallback',
      'session.routed',
      'session.assistant_message',
      'session.turn_complete',
    ]);
    expect(events.find((e) => e.type === 'session.fallback')).toMatchObject({
      step: 1,
      from: 'anthropic:claude-sonnet-4-6',
      to: 'openai:gpt-5',
      error_class: 'server_error',
      discarded_message_id: null,
    });
    const done = events.at(-1);
    expect(done?.type === 'session.turn_complete' && done.result).toMatchObject({
      end: 'end_turn',
      error: null,
    });

    // three attempts on Anthropic (max_retries 2), then OpenAI
    expect(server.requests).toHaveLength(4);
    expect(server.requests[3]?.body).toMatchObject({ model: 'gpt-5' });

    const rows = await storedRows(h, session.id);
    expect(rows.map((m) => [m.role, m.metadata.status])).toEqual([
      ['user', 'complete'],
      ['assistant', 'complete'],
    ]);
    expect(validateHistory(rows).ok).toBe(true);
    const routing = rows[1]?.metadata.routing;
    expect(rows[1]?.metadata.model).toBe('openai:gpt-5');
    expect(routing?.chosen_model).toBe('openai:gpt-5');
    expect(routing?.fallback_from).toMatchObject([
      { model: 'anthropic:claude-sonnet-4-6', error_class: 'server_error' },
    ]);

    const types = h.events.map((e) => e.type);
    expect(types.filter((t) => t === 'route.decided')).toHaveLength(2);
    expect(h.events.filter((e) => e.type === 'llm.call_failed')).toMatchObject([
      { model: 'anthropic:claude-sonnet-4-6', final: false },
      { model: 'anthropic:claude-sonnet-4-6', final: false },
      { model: 'anthropic:claude-sonnet-4-6', error_class: 'server_error', final: true },
    ]);
    expect(types.at(-1)).toBe('llm.call_completed');
  });

  it('without a fallback configured, the original error is thrown as before', async () => {
    const h = await harness({ anthropicRetries: 2 });
    server.enqueue(unavailable(), unavailable(), unavailable());
    const session = await h.manager.createSession({ workspace_path: '/w' });
    const { events, error } = await collect(h.manager.send(session.id, 'Say hello.'));
    expect(error).toBeInstanceOf(ServerError);
    expect(sessionKinds(events)).not.toContain('session.fallback');
    const done = events.at(-1);
    expect(done?.type === 'session.turn_complete' && done.result).toMatchObject({
      end: 'error',
      error: { error_class: 'server_error' },
    });
    expect(server.requests).toHaveLength(3);
    expect((await storedRows(h, session.id)).map((m) => m.role)).toEqual(['user']);
  });

  it("falls back on an auth failure (one provider's key revoked), and fails without a fallback", async () => {
    const h = await harness({ routing: fallbackRouting });
    server.enqueue(...fixture(anthropic, 'error-auth'), ...fixture(openai, 'text-stream'));
    const session = await h.manager.createSession({ workspace_path: '/w' });
    const { events, error } = await collect(h.manager.send(session.id, 'Say hello.'));
    expect(error).toBeUndefined();
    expect(events.find((e) => e.type === 'session.fallback')).toMatchObject({
      from: 'anthropic:claude-sonnet-4-6',
      to: 'openai:gpt-5',
      error_class: 'auth',
    });
    expect(server.requests).toHaveLength(2);

    const alone = await harness({ routing: 'global_default: sonnet' });
    server.enqueue(...fixture(anthropic, 'error-auth'));
    const other = await alone.manager.createSession({ workspace_path: '/w' });
    const failed = await collect(alone.manager.send(other.id, 'Say hello.'));
    expect(failed.error).toBeInstanceOf(AuthError);
    expect(sessionKinds(failed.events)).not.toContain('session.fallback');
  });

  it('falls back on a context overflow', async () => {
    const h = await harness({ routing: fallbackRouting });
    server.enqueue(
      ...fixture(anthropic, 'error-context_overflow'),
      ...fixture(openai, 'text-stream'),
    );
    const session = await h.manager.createSession({ workspace_path: '/w' });
    const result = await h.manager.sendAndWait(session.id, 'Say hello.');
    expect(result.end).toBe('end_turn');
    expect(result.messages.at(-1)?.metadata.routing?.fallback_from).toMatchObject([
      { model: 'anthropic:claude-sonnet-4-6', error_class: 'context_overflow' },
    ]);
  });

  it('after text was streamed: falls back, keeps the partial row as error, and never replays it', async () => {
    const h = await harness({ routing: fallbackRouting });
    server.enqueue(
      ...fixture(anthropic, 'stream-error-mid-stream'),
      ...fixture(openai, 'text-stream'),
    );
    const session = await h.manager.createSession({ workspace_path: '/w' });
    const { events, error } = await collect(h.manager.send(session.id, 'Say hello.'));
    expect(error).toBeUndefined();
    const fallbackAt = events.findIndex((e) => e.type === 'session.fallback');
    expect(
      events.slice(0, fallbackAt).some((e) => e.type === 'text.delta' && e.text === 'Hello'),
      'the partial reply was streamed before the fallback',
    ).toBe(true);
    const rows = await storedRows(h, session.id);
    expect(rows.map((m) => [m.role, m.metadata.status, m.metadata.model ?? null])).toEqual([
      ['user', 'complete', null],
      ['assistant', 'error', 'anthropic:claude-sonnet-4-6'],
      ['assistant', 'complete', 'openai:gpt-5'],
    ]);
    expect(rows[1]?.content).toEqual([{ type: 'text', text: 'Hello' }]);
    expect(events[fallbackAt]).toMatchObject({
      error_class: 'network',
      discarded_message_id: rows[1]?.id,
    });
    expect(validateHistory(rows).ok).toBe(true);
    const openaiBody = server.requests[1]?.body as { messages: Array<{ role: string }> };
    expect(openaiBody.messages.map((m) => m.role)).toEqual(['user']);

    // the next turn replays the conversation without the replaced attempt
    server.enqueue(...fixture(anthropic, 'text-stream'));
    await h.manager.sendAndWait(session.id, 'Again.');
    const next = server.requests[2]?.body as {
      messages: Array<{ role: string; content: Array<{ type: string; text?: string }> }>;
    };
    expect(next.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    const fallbackText = rows[2]?.content.map((b) => (b.type === 'text' ? b.text : '')).join('');
    expect(fallbackText).toBe('Hello! How can I help you today?');
    expect(
      next.messages[1]?.content.map((b) => b.text).join(''),
      'only the fallback reply, not "Hello" in front of it',
    ).toBe(fallbackText);
  });

  it('after a partial tool call was streamed: falls back, runs no tool, and never replays the partial call', async () => {
    const h = await harness({ routing: fallbackRouting });
    const [whole] = fixture(anthropic, 'tool-call-stream');
    if (whole?.type !== 'stream') throw new Error('tool-call-stream is not a stream fixture');
    const cut = whole.chunks.findIndex((c) => c.includes('{\\"pa'));
    expect(cut, 'the fixture streams the tool input in pieces').toBeGreaterThan(0);
    server.enqueue(
      { ...whole, chunks: whole.chunks.slice(0, cut + 1), ending: 'destroy' },
      ...fixture(openai, 'text-stream'),
    );
    const session = await h.manager.createSession({ workspace_path: '/w' });
    const { events, error } = await collect(h.manager.send(session.id, 'Read README.md.'));
    expect(error).toBeUndefined();
    expect(events.find((e) => e.type === 'session.fallback')).toMatchObject({
      from: 'anthropic:claude-sonnet-4-6',
      to: 'openai:gpt-5',
      error_class: 'network',
    });
    expect(
      events.some((e) => e.type === 'session.tool_started' || e.type === 'session.tool_result'),
    ).toBe(false);
    const rows = await storedRows(h, session.id);
    expect(rows.map((m) => [m.role, m.metadata.status])).toEqual([
      ['user', 'complete'],
      ['assistant', 'error'],
      ['assistant', 'complete'],
    ]);
    expect(validateHistory(rows).ok).toBe(true);
    const openaiBody = server.requests[1]?.body as {
      messages: Array<{ role: string; tool_calls?: unknown }>;
    };
    expect(openaiBody.messages.map((m) => m.role)).toEqual(['user']);

    server.enqueue(...fixture(anthropic, 'text-stream'));
    await h.manager.sendAndWait(session.id, 'Again.');
    const next = JSON.stringify(server.requests[2]?.body);
    expect(next).not.toContain('tool_use');
    expect(next).not.toContain('toolu_01T1x1fJ34qAmk2tNTrN7Up6');
  });

  it('falls back in a later step of the tool loop and replays the tool call on the fallback', async () => {
    const h = await harness({ routing: fallbackRouting, anthropicRetries: 1 });
    server.enqueue(
      ...fixture(anthropic, 'tool-call-stream'),
      unavailable(),
      unavailable(),
      ...fixture(openai, 'text-stream'),
    );
    const session = await h.manager.createSession({ workspace_path: '/w' });
    const { events, error } = await collect(h.manager.send(session.id, 'Summarize README.md'));
    expect(error).toBeUndefined();
    expect(sessionKinds(events)).toEqual([
      'session.user_message',
      'session.routed',
      'session.assistant_message',
      'session.tool_result',
      'session.routed',
      'session.fallback',
      'session.routed',
      'session.assistant_message',
      'session.turn_complete',
    ]);
    expect(events.find((e) => e.type === 'session.fallback')).toMatchObject({ step: 2 });
    const body = server.requests[3]?.body as {
      model: string;
      messages: Array<{ role: string; tool_call_id?: string }>;
    };
    expect(body.model).toBe('gpt-5');
    expect(body.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool']);
    const rows = await storedRows(h, session.id);
    expect(rows.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    expect(validateHistory(rows).ok).toBe(true);
    expect(rows[3]?.metadata.routing?.fallback_from).toMatchObject([
      { model: 'anthropic:claude-sonnet-4-6', error_class: 'server_error' },
    ]);
  });
});

describe('compaction (decision 0101)', () => {
  // about 1,000 tokens a message: four turns fill a 6,000-token window with 1,024 for output
  const paragraph = (n: number) => `Paragraph ${n}. ${'lorem ipsum dolor sit amet '.repeat(150)}`;
  const setupCompaction = (compaction?: CompactionHook) =>
    harness({
      contextTokens: 6000,
      maxOutputTokens: 1024,
      ...(compaction ? { compaction } : {}),
    });
  /** Sends turns until routing refuses one for its length; returns how many were taken. */
  async function fill(h: Harness, sessionId: string): Promise<number> {
    for (let n = 1; n <= 10; n++) {
      server.enqueue(...fixture(anthropic, 'text-stream'));
      const { error } = await collect(h.manager.send(sessionId, paragraph(n)));
      if (error) {
        expect(error).toBeInstanceOf(NoRouteError);
        expect((error as NoRouteError).trace.some((t) => t.context_limited)).toBe(true);
        server.reset();
        return n - 1;
      }
    }
    throw new Error('the history never outgrew the window');
  }
  /** How many turns a session takes before routing refuses one for its length (no hook). */
  async function capacity(): Promise<number> {
    const baseline = await setupCompaction();
    const session = await baseline.manager.createSession({ workspace_path: '/w' });
    return fill(baseline, session.id);
  }
  const lastBody = () =>
    (server.requests.at(-1)?.body ?? {}) as {
      system?: Array<{ text: string }> | string;
      messages: Array<{ role: string; content: unknown }>;
    };
  const systemText = (body: ReturnType<typeof lastBody>) =>
    typeof body.system === 'string' ? body.system : (body.system ?? []).map((b) => b.text).join('');

  it('without a hook, a history that outgrew every window is refused (the baseline)', async () => {
    const h = await setupCompaction();
    const session = await h.manager.createSession({ workspace_path: '/w' });
    const taken = await fill(h, session.id);
    expect(taken).toBeGreaterThanOrEqual(2);
    expect((await storedRows(h, session.id)).length).toBe(taken * 2);
  });

  it('dropOldestTurns drops whole old turns into a stored note; nothing stored is deleted; later turns replay the compacted view', async () => {
    const h = await setupCompaction(dropOldestTurns());
    const session = await h.manager.createSession({ workspace_path: '/w' });
    // the same growth that the baseline refuses
    const taken = await capacity();
    let compacted: SessionEvent | undefined;
    for (let n = 1; n <= taken + 2; n++) {
      server.enqueue(...fixture(anthropic, 'text-stream'));
      const { events, error } = await collect(h.manager.send(session.id, paragraph(n)));
      expect(error, `turn ${n}`).toBeUndefined();
      compacted ??= events.find((e) => e.type === 'session.compacted');
    }
    if (compacted?.type !== 'session.compacted') throw new Error('no compaction happened');
    expect(compacted.compaction).toMatchObject({
      strategy: 'drop_oldest',
      reason: 'context_window',
    });
    expect(compacted.compaction.tokens_after).toBeLessThan(compacted.compaction.tokens_before);
    expect(compacted.cost_usd).toBeNull();

    const rows = await storedRows(h, session.id);
    expect(rows.filter((m) => m.role === 'user')).toHaveLength(taken + 2);
    const summaries = rows.filter((m) => compactionOf(m));
    expect(summaries.length).toBeGreaterThanOrEqual(1);
    expect(validateHistory(rows).ok).toBe(true);

    // the last request: the note in the system prompt, the oldest paragraphs gone, the newest there
    const body = lastBody();
    expect(systemText(body)).toMatch(/earlier messages of this conversation were removed/);
    const sent = JSON.stringify(body.messages);
    expect(sent).not.toContain('Paragraph 1.');
    expect(sent).toContain(`Paragraph ${taken + 2}.`);
    expect(body.messages[0]?.role).toBe('user');
  });

  it('summarizeOlderTurns writes the summary with the chosen model, prices it, and the next turn carries it', async () => {
    const h = await setupCompaction(summarizeOlderTurns({ model: 'gpt5', maxSummaryTokens: 256 }));
    const session = await h.manager.createSession({ workspace_path: '/w' });
    const taken = await capacity();
    for (let n = 1; n <= taken; n++) {
      server.enqueue(...fixture(anthropic, 'text-stream'));
      await h.manager.sendAndWait(session.id, paragraph(n));
    }
    // the turn that does not fit: one summary call to GPT-5, then the turn on Claude
    server.enqueue(...fixture(openai, 'text'), ...fixture(anthropic, 'text-stream'));
    const { events, error } = await collect(h.manager.send(session.id, paragraph(taken + 1)));
    expect(error).toBeUndefined();
    const kinds = sessionKinds(events);
    expect(kinds.slice(0, 3)).toEqual([
      'session.compacted',
      'session.user_message',
      'session.routed',
    ]);
    const event = events.find((e) => e.type === 'session.compacted');
    if (event?.type !== 'session.compacted') throw new Error('no compaction');
    expect(event.compaction.strategy).toBe('summarize');
    expect(event.message.metadata.model).toBe('openai:gpt-5');
    expect(event.cost_usd).toMatch(/^0\.\d+$/);

    const summaryCall = (server.requests.at(-2)?.body ?? {}) as {
      model: string;
      messages: Array<{ role: string; content: string }>;
    };
    expect(summaryCall.model).toBe('gpt-5');
    expect(JSON.stringify(summaryCall.messages)).toContain('Paragraph 1.');
    expect(systemText(lastBody())).toContain('Hello! How can I help you today?');
    expect(JSON.stringify(lastBody().messages)).not.toContain('Paragraph 1.');

    const done = events.find((e) => e.type === 'session.turn_complete');
    if (done?.type !== 'session.turn_complete') throw new Error('no result');
    const claudeCost = done.result.messages.find((m) => m.role === 'assistant')?.metadata.usage
      ?.cost_usd;
    expect(Number(done.result.cost_usd)).toBeCloseTo(
      Number(claudeCost) + Number(event.cost_usd),
      9,
    );
    const stats = await h.store.sessionStats(session.id);
    expect(Number(stats.total_cost_usd)).toBeGreaterThan(Number(claudeCost) * (taken + 1));
    expect(stats.last_model).toBe('anthropic:claude-sonnet-4-6');
  });

  it('a provider context overflow with no fallback compacts and retries the same model once', async () => {
    const h = await setupCompaction(dropOldestTurns());
    const session = await h.manager.createSession({ workspace_path: '/w' });
    for (let n = 1; n <= 2; n++) {
      server.enqueue(...fixture(anthropic, 'text-stream'));
      await h.manager.sendAndWait(session.id, paragraph(n));
    }
    server.enqueue(
      ...fixture(anthropic, 'error-context_overflow'),
      ...fixture(anthropic, 'text-stream'),
    );
    const { events, error } = await collect(h.manager.send(session.id, paragraph(3)));
    expect(error).toBeUndefined();
    const compacted = events.find((e) => e.type === 'session.compacted');
    if (compacted?.type !== 'session.compacted') throw new Error('no compaction');
    expect(compacted.compaction).toMatchObject({
      reason: 'context_overflow',
      target_model: 'anthropic:claude-sonnet-4-6',
    });
    const rows = await storedRows(h, session.id);
    // the overflow came before any event (a 400), so no attempt row: user, summary, reply
    expect(rows.slice(-3).map((m) => [m.role, m.metadata.status])).toEqual([
      ['user', 'complete'],
      ['system', 'complete'],
      ['assistant', 'complete'],
    ]);
    expect(rows.some((m) => m.metadata.status === 'error')).toBe(false);
    expect(rows.at(-1)?.metadata.routing?.fallback_from).toMatchObject([
      { model: 'anthropic:claude-sonnet-4-6', error_class: 'context_overflow' },
    ]);
    const retried = JSON.stringify(server.requests[server.requests.length - 1]?.body);
    expect(retried).not.toContain('Paragraph 1.');
    expect(retried).toContain('Paragraph 3.');

    // reloaded: the overflowed attempt is not replayed, the compacted view is
    server.enqueue(...fixture(anthropic, 'text-stream'));
    await h.manager.sendAndWait(session.id, 'Again.');
    const next = lastBody();
    // an overflow aims at a quarter of the window: both earlier turns went
    expect(next.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect(JSON.stringify(next.messages)).toContain('Paragraph 3.');
    expect(JSON.stringify(next.messages)).not.toContain('Paragraph 1.');
  });

  it('an overflow after the stream started: the turn result lists the replaced attempt where it was stored, before the summary (decision 0162)', async () => {
    const h = await setupCompaction(dropOldestTurns());
    const session = await h.manager.createSession({ workspace_path: '/w' });
    for (let n = 1; n <= 2; n++) {
      server.enqueue(...fixture(anthropic, 'text-stream'));
      await h.manager.sendAndWait(session.id, paragraph(n));
    }
    // the prompt is refused in the stream, after its first events: the attempt has a row
    const [started] = fixture(anthropic, 'stream-error-mid-stream');
    if (started?.type !== 'stream') throw new Error('not a stream fixture');
    const overflow = {
      type: 'error',
      error: {
        type: 'invalid_request_error',
        message: 'prompt is too long: 7000 tokens > 6000 maximum',
      },
    };
    server.enqueue(
      {
        ...started,
        ending: 'end',
        chunks: [...started.chunks, `event: error\ndata: ${JSON.stringify(overflow)}\n\n`],
      },
      ...fixture(anthropic, 'text-stream'),
    );
    const { events, error } = await collect(h.manager.send(session.id, paragraph(3)));
    expect(error).toBeUndefined();
    const done = events.find((e) => e.type === 'session.turn_complete');
    if (done?.type !== 'session.turn_complete') throw new Error('no result');
    const rows = await storedRows(h, session.id);
    const turn = rows.slice(-4);
    expect(turn.map((m) => [m.role, m.metadata.status])).toEqual([
      ['user', 'complete'],
      ['assistant', 'error'],
      ['system', 'complete'],
      ['assistant', 'complete'],
    ]);
    // the turn's messages are what it stored, in the order stored
    expect(done.result.messages.map((m) => m.id)).toEqual(turn.map((m) => m.id));
  });

  it('a hook that cuts inside a turn is a CompactionError naming the problem, and nothing more is stored', async () => {
    const h = await setupCompaction(({ messages }) => ({
      through_message_id: (messages[0] as { id: string }).id, // a user message: its reply would be orphaned
      summary: 'x',
      strategy: 'bad',
    }));
    const session = await h.manager.createSession({ workspace_path: '/w' });
    const taken = await capacity();
    for (let n = 1; n <= taken; n++) {
      server.enqueue(...fixture(anthropic, 'text-stream'));
      await h.manager.sendAndWait(session.id, paragraph(n));
    }
    const before = await storedRows(h, session.id);
    const { error } = await collect(h.manager.send(session.id, paragraph(taken + 1)));
    expect(error).toBeInstanceOf(CompactionError);
    expect((error as Error).message).toMatch(/not followed by a user message/);
    expect(await storedRows(h, session.id)).toEqual(before);
  });
});

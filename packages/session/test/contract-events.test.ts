import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AnthropicAdapter } from '@yourtool/anthropic';
import { type BusEvent, createEventBus, createMemoryLogger, type ImageBlock } from '@yourtool/core';
import { defaultPriceTable } from '@yourtool/pricing';
import {
  ChoiceUnavailableError,
  ModelRegistry,
  parseRoutingConfig,
  Router,
  SwapRefusedError,
} from '@yourtool/router';
import { openStore, type SqlSessionStore } from '@yourtool/store';
import { PNG_1PX_BASE64 } from '@yourtool/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { SessionManager, type ToolHandler, ToolRegistry } from '../src/index.js';
import { collect, fixturesOf, loopbackForFile, requireFixture } from './helpers.js';

// The bus events the contracts name (issue 38, decision 0157), each from a real turn: the
// Anthropic adapter through its SDK against the loopback server playing recorded replies.

const fixtures = fixturesOf('anthropic');
const fixture = (name: string) => requireFixture(fixtures, name);
const loopback = loopbackForFile();

const stores: SqlSessionStore[] = [];
afterEach(async () => {
  await Promise.all(stores.splice(0).map((s) => s.close()));
});

/** `read_file` as the fixtures call it, but asking for a `lines` field they never send. */
const readLines: ToolHandler = {
  definition: {
    name: 'read_file',
    description: 'Read some lines of a file of the workspace.',
    input_schema: {
      type: 'object',
      properties: { path: { type: 'string' }, lines: { type: 'integer' } },
      required: ['path', 'lines'],
    },
    side_effects: 'read',
  },
  run: () => {
    throw new Error('a tool whose input its schema refuses must not run');
  },
};

const image: ImageBlock = {
  type: 'image',
  source: { kind: 'base64', data: PNG_1PX_BASE64 },
  media_type: 'image/png',
};

async function harness(): Promise<{
  manager: SessionManager;
  store: SqlSessionStore;
  events: BusEvent[];
}> {
  const store = await openStore(
    `sqlite:${join(mkdtempSync(join(tmpdir(), 'session-contract-')), 'sessions.db')}`,
  );
  stores.push(store);
  const bus = createEventBus();
  const events: BusEvent[] = [];
  bus.onAny((event) => events.push(event));
  const registry = ModelRegistry.fromYaml(
    `
adapters:
  anthropic:
    type: anthropic
    api_key: sk-ant-contract-events-0000
    base_url: ${loopback.server.url}
    max_retries: 2
models:
  anthropic:claude-sonnet-4-6: { adapter: anthropic, wire_name: claude-sonnet-4-6, aliases: [sonnet] }
  anthropic:claude-haiku-4-5-text-only:
    adapter: anthropic
    wire_name: claude-haiku-4-5
    display_name: Haiku-text-only
    capabilities: { supports_images: false }
`,
    {
      factories: { anthropic: (config, runtime) => new AnthropicAdapter(config, runtime) },
      logger: createMemoryLogger(),
      retry: { baseDelayMs: 1, maxDelayMs: 200 },
    },
  );
  const router = new Router({
    registry,
    config: parseRoutingConfig('global_default: sonnet'),
    bus,
  });
  const manager = new SessionManager({
    store,
    router,
    pricing: defaultPriceTable(),
    bus,
    tools: new ToolRegistry([readLines]),
  });
  return { manager, store, events };
}

const ofType = <T extends BusEvent['type']>(events: BusEvent[], type: T) =>
  events.filter((e): e is Extract<BusEvent, { type: T }> => e.type === type);

describe('tool_input_invalid', () => {
  it('is emitted with the tool, the call id and the violations when a reply calls a tool with input its schema refuses', async () => {
    const { manager, events } = await harness();
    loopback.server.enqueue(...fixture('tool-call-stream'), ...fixture('text-stream'));
    const session = await manager.createSession({ workspace_path: '/w' });
    const result = await manager.sendAndWait(session.id, 'Summarize README.md');
    const use = result.messages.flatMap((m) => m.content).find((b) => b.type === 'tool_use');
    expect(use?.type === 'tool_use' && use.input).toEqual({ path: 'README.md' });
    const invalid = ofType(events, 'tool_input_invalid');
    expect(invalid).toEqual([
      {
        type: 'tool_input_invalid',
        session_id: session.id,
        tool_use_id: use?.type === 'tool_use' ? use.id : 'missing',
        tool_name: 'read_file',
        model: 'anthropic:claude-sonnet-4-6',
        violations: [
          { path: expect.stringContaining('input'), message: expect.stringContaining('lines') },
        ],
        timestamp: expect.any(String),
      },
    ]);
    // the model was answered with an error result naming the same violation
    const answer = result.messages.find((m) => m.role === 'tool')?.content[0];
    expect(answer).toMatchObject({ type: 'tool_result', is_error: true });
  });
});

describe('routing_constraint_failure', () => {
  it('is emitted for a refused swap, and the active model stays', async () => {
    const { manager, store, events } = await harness();
    loopback.server.enqueue(...fixture('text-stream'));
    const session = await manager.createSession({
      workspace_path: '/w',
      active_model: 'anthropic:claude-sonnet-4-6',
    });
    await manager.sendAndWait(session.id, [{ type: 'text', text: 'What is this?' }, image]);
    await expect(
      manager.swapModel(session.id, 'anthropic:claude-haiku-4-5-text-only'),
    ).rejects.toThrowError(SwapRefusedError);
    expect(ofType(events, 'routing_constraint_failure')).toEqual([
      {
        type: 'routing_constraint_failure',
        session_id: session.id,
        kind: 'swap',
        requested_model: 'anthropic:claude-haiku-4-5-text-only',
        code: 'swap_refused',
        reasons: ["session contains images that this model can't process"],
        message:
          "Cannot swap to Haiku-text-only: session contains images that this model can't process. Active model unchanged.",
        trace: [],
        timestamp: expect.any(String),
      },
    ]);
    expect((await store.getSession(session.id))?.active_model).toBe('anthropic:claude-sonnet-4-6');
  });

  it('is emitted for a refused routed turn, with the chain that refused it', async () => {
    const { manager, events } = await harness();
    const session = await manager.createSession({ workspace_path: '/w' });
    const { error } = await collect(
      manager.send(session.id, [{ type: 'text', text: 'What is this?' }, image], {
        model: 'anthropic:claude-haiku-4-5-text-only',
      }),
    );
    expect(error).toBeInstanceOf(ChoiceUnavailableError);
    const [failure, ...more] = ofType(events, 'routing_constraint_failure');
    expect(more).toEqual([]);
    expect(failure).toMatchObject({
      session_id: session.id,
      kind: 'turn',
      requested_model: 'anthropic:claude-haiku-4-5-text-only',
      code: 'choice_unavailable',
      reasons: [expect.stringContaining('images')],
      message: (error as Error).message,
      trace: [
        {
          policy: 'PER_MESSAGE_OVERRIDE',
          model: 'anthropic:claude-haiku-4-5-text-only',
          accepted: false,
        },
      ],
    });
    expect(loopback.server.requests, 'nothing was sent').toHaveLength(0);
  });
});

describe('llm.call_completed.retry_count', () => {
  it.each([
    ['a 429 with a retry hint', 'retry-after'],
    ['a 529 overloaded', 'overloaded-then-success'],
  ])('counts the retries before success: %s, then the reply', async (_label, scenario) => {
    const { manager, events } = await harness();
    const [refusal] = fixture(scenario);
    if (!refusal) throw new Error(`${scenario} has no first response`);
    loopback.server.enqueue(refusal, ...fixture('text-stream'));
    const session = await manager.createSession({ workspace_path: '/w' });
    await manager.sendAndWait(session.id, 'Hello');
    expect(loopback.server.requests).toHaveLength(2);
    expect(
      events
        .filter((e) => e.type.startsWith('llm.'))
        .map((e) => [e.type, 'retry_count' in e ? e.retry_count : null]),
    ).toEqual([
      ['llm.call_started', null],
      ['llm.call_failed', 0],
      ['llm.call_started', null],
      ['llm.call_completed', 1],
    ]);
  });
});

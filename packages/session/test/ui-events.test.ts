import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AnthropicAdapter } from '@yourtool/anthropic';
import { type LoopbackServer, startLoopbackServer } from '@yourtool/conformance';
import { createMemoryLogger, type Message, type SessionStore } from '@yourtool/core';
import { defaultPriceTable } from '@yourtool/pricing';
import { ModelRegistry, parseRoutingConfig, Router } from '@yourtool/router';
import { openStore, type SqlSessionStore } from '@yourtool/store';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  InvalidSendOptionError,
  type SessionEvent,
  SessionManager,
  type SessionManagerOptions,
  type ToolHandler,
  ToolRegistry,
} from '../src/index.js';
import { fixturesOf, requireFixture, unavailable } from './helpers.js';

const fixtures = fixturesOf('anthropic');
const fixture = (name: string) => requireFixture(fixtures, name);

let server: LoopbackServer;
beforeAll(async () => {
  server = await startLoopbackServer();
});
afterAll(() => server.close());
beforeEach(() => server.reset());

const stores: SqlSessionStore[] = [];
afterEach(async () => {
  await Promise.all(stores.splice(0).map((s) => s.close()));
});

async function harness(
  tools: ToolHandler[],
  overrides: Partial<SessionManagerOptions> = {},
  wrap: (store: SessionStore) => SessionStore = (store) => store,
): Promise<{ manager: SessionManager; store: SqlSessionStore }> {
  const dbPath = join(mkdtempSync(join(tmpdir(), 'session-ui-')), 'sessions.db');
  const store = await openStore(`sqlite:${dbPath}`);
  stores.push(store);
  const registry = ModelRegistry.fromYaml(
    `
adapters:
  anthropic:
    type: anthropic
    api_key: sk-ant-ui-events-test-00000
    base_url: ${server.url}
    max_retries: 2
models:
  anthropic:claude-sonnet-4-6: { adapter: anthropic, wire_name: claude-sonnet-4-6, aliases: [sonnet] }
`,
    {
      factories: { anthropic: (config, runtime) => new AnthropicAdapter(config, runtime) },
      logger: createMemoryLogger(),
      retry: { baseDelayMs: 1, maxDelayMs: 2 },
    },
  );
  const router = new Router({ registry, config: parseRoutingConfig('global_default: sonnet') });
  const manager = new SessionManager({
    store: wrap(store),
    router,
    pricing: defaultPriceTable(),
    tools: new ToolRegistry(tools),
    ...overrides,
  });
  return { manager, store };
}

/** `read_file` (the tool the fixtures call) with the given side effects and body. */
function readFile(
  side_effects: 'read' | 'write',
  run: ToolHandler['run'] = () => 'contents',
): ToolHandler {
  return {
    definition: {
      name: 'read_file',
      description: 'Read a file from the workspace.',
      input_schema: { type: 'object', properties: { path: { type: 'string' } } },
      side_effects,
    },
    run,
  };
}

const uiKinds = (events: SessionEvent[]) =>
  events.filter((e) => e.type.startsWith('session.')).map((e) => e.type);

const toolResultText = (messages: Message[]) =>
  messages.flatMap((m) =>
    m.content.flatMap((b) =>
      b.type === 'tool_result' ? b.content.flatMap((c) => (c.type === 'text' ? [c.text] : [])) : [],
    ),
  );

describe('stream events a UI needs', () => {
  it('yields tool_started, then each progress() while the tool is still running, then the result', async () => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const { manager } = await harness([
      readFile('read', async (_input, context) => {
        context.progress('opening');
        context.progress({ bytes: 42 });
        // Finishes only once the consumer has seen the progress: progress is streamed live.
        await released;
        context.progress('done');
        return 'contents';
      }),
    ]);
    server.enqueue(...fixture('tool-call-stream'), ...fixture('text-stream'));
    const session = await manager.createSession({ workspace_path: '/w' });
    const events: SessionEvent[] = [];
    for await (const event of manager.send(session.id, 'Summarize README.md')) {
      events.push(event);
      if (event.type === 'session.tool_progress' && event.update === 'opening') release();
    }
    const tool = events.filter(
      (e) =>
        e.type === 'session.tool_started' ||
        e.type === 'session.tool_progress' ||
        e.type === 'session.tool_result',
    );
    const use = events.find((e) => e.type === 'session.assistant_message');
    const useId =
      use?.type === 'session.assistant_message'
        ? use.message.content.find((b) => b.type === 'tool_use')?.id
        : undefined;
    expect(useId).toMatch(/^tu_/);
    expect(tool).toMatchObject([
      {
        type: 'session.tool_started',
        step: 1,
        tool_name: 'read_file',
        tool_use_id: useId,
        input: { path: 'README.md' },
      },
      {
        type: 'session.tool_progress',
        tool_use_id: useId,
        tool_name: 'read_file',
        update: 'opening',
      },
      { type: 'session.tool_progress', tool_use_id: useId, update: { bytes: 42 } },
      { type: 'session.tool_progress', tool_use_id: useId, update: 'done' },
      { type: 'session.tool_result', tool_name: 'read_file', is_error: false },
    ]);
  });

  it('puts the final text and the running session cost on the turn result', async () => {
    const { manager } = await harness([readFile('read')]);
    server.enqueue(...fixture('tool-call-stream'), ...fixture('text-stream'));
    const session = await manager.createSession({ workspace_path: '/w' });
    const first = await manager.sendAndWait(session.id, 'Summarize README.md');
    expect(first.text).toBe('Hello! How can I help you today?');
    // 380 in / 52 out, then 12 in / 9 out, at $3/$15 per MTok
    expect(first.cost_usd).toBe('0.002091');
    expect(first.session_cost_usd).toBe('0.002091');

    server.enqueue(...fixture('text-stream'));
    const second = await manager.sendAndWait(session.id, 'Again.');
    expect(second.cost_usd).toBe('0.000171');
    expect(second.session_cost_usd, 'the running total, both turns').toBe('0.002262');
  });

  it('sums the loaded messages when the store has no sessionStats()', async () => {
    const { manager } = await harness(
      [readFile('read')],
      {},
      (store) =>
        // The same SQLite store, seen through an object without the optional method.
        new Proxy(store, {
          get(target, key) {
            if (key === 'sessionStats') return undefined;
            const value: unknown = Reflect.get(target, key, target);
            return typeof value === 'function' ? value.bind(target) : value;
          },
        }),
    );
    server.enqueue(...fixture('tool-call-stream'), ...fixture('text-stream'));
    const session = await manager.createSession({ workspace_path: '/w' });
    const first = await manager.sendAndWait(session.id, 'Summarize README.md');
    expect(first.session_cost_usd).toBe('0.002091');
    server.enqueue(...fixture('text-stream'));
    const second = await manager.sendAndWait(session.id, 'Again.');
    expect(second.session_cost_usd).toBe('0.002262');
  });

  it('sendAndWait refuses confirmFromStream at once (it could never answer), with nothing stored', async () => {
    const { manager, store } = await harness([readFile('write', () => 'written')]);
    const session = await manager.createSession({ workspace_path: '/w' });
    const refused = manager.sendAndWait(session.id, 'Summarize README.md', {
      confirmFromStream: true,
    });
    await expect(refused).rejects.toBeInstanceOf(InvalidSendOptionError);
    await expect(refused).rejects.toMatchObject({ option: 'confirmFromStream' });
    expect(server.requests).toHaveLength(0);
    expect((await store.loadMessages(session.id)).messages).toEqual([]);
  });

  it('asks for consent from the stream and runs the tool once respond(true) answers', async () => {
    const runs: string[] = [];
    const { manager, store } = await harness([
      readFile('write', ({ path }) => {
        runs.push(String(path));
        return 'written';
      }),
    ]);
    server.enqueue(...fixture('tool-call-stream'), ...fixture('text-stream'));
    const session = await manager.createSession({ workspace_path: '/w' });
    const events: SessionEvent[] = [];
    for await (const event of manager.send(session.id, 'Summarize README.md', {
      confirmFromStream: true,
    })) {
      events.push(event);
      if (event.type === 'session.confirmation_requested') {
        expect(runs, 'nothing runs before the answer').toEqual([]);
        expect(event.respond(true)).toBe(true);
        expect(event.respond(false), 'a second answer is ignored').toBe(false);
      }
    }
    const asked = events.find((e) => e.type === 'session.confirmation_requested');
    expect(asked).toMatchObject({
      step: 1,
      tool_name: 'read_file',
      side_effects: 'write',
      input: { path: 'README.md' },
    });
    expect(asked?.type === 'session.confirmation_requested' && asked.request_id).toBe(
      asked?.type === 'session.confirmation_requested' && asked.tool_use_id,
    );
    expect(uiKinds(events)).toEqual([
      'session.user_message',
      'session.routed',
      'session.attempt',
      'session.attempt',
      'session.assistant_message',
      'session.confirmation_requested',
      'session.tool_started',
      'session.tool_result',
      'session.routed',
      'session.attempt',
      'session.attempt',
      'session.assistant_message',
      'session.turn_complete',
    ]);
    expect(runs).toEqual(['README.md']);
    const { messages } = await store.loadMessages(session.id);
    expect(toolResultText(messages)).toEqual(['written']);
  });

  it('answers by id with answerConfirmation(); false refuses the tool', async () => {
    const runs: string[] = [];
    const { manager, store } = await harness([
      readFile('write', ({ path }) => {
        runs.push(String(path));
        return 'written';
      }),
    ]);
    server.enqueue(...fixture('tool-call-stream'), ...fixture('text-stream'));
    const session = await manager.createSession({ workspace_path: '/w' });
    let answered: boolean | undefined;
    for await (const event of manager.send(session.id, 'Summarize README.md', {
      confirmFromStream: true,
    })) {
      if (event.type === 'session.confirmation_requested') {
        expect(manager.answerConfirmation(session.id, 'tu_unknown', true)).toBe(false);
        answered = manager.answerConfirmation(session.id, event.tool_use_id, false);
      }
    }
    expect(answered).toBe(true);
    expect(runs).toEqual([]);
    const { messages } = await store.loadMessages(session.id);
    expect(toolResultText(messages)).toEqual(['The user declined to run read_file.']);
  });

  it('a cancel while a stream confirmation is open ends the turn cancelled and runs nothing', async () => {
    const runs: string[] = [];
    let hookCalls = 0;
    const { manager, store } = await harness(
      [
        readFile('write', ({ path }) => {
          runs.push(String(path));
          return 'written';
        }),
      ],
      {
        confirm: () => {
          hookCalls++;
          return true;
        },
      },
    );
    server.enqueue(...fixture('tool-call-stream'));
    const session = await manager.createSession({ workspace_path: '/w' });
    const events: SessionEvent[] = [];
    let toolUseId = '';
    for await (const event of manager.send(session.id, 'Summarize README.md', {
      confirmFromStream: true,
    })) {
      events.push(event);
      if (event.type === 'session.confirmation_requested') {
        toolUseId = event.tool_use_id;
        expect(manager.cancel(session.id)).toBe(true);
      }
    }
    expect(hookCalls, 'the stream, not the hook, was asked').toBe(0);
    const done = events.at(-1);
    expect(done?.type === 'session.turn_complete' && done.result.end).toBe('cancelled');
    expect(runs).toEqual([]);
    expect(manager.answerConfirmation(session.id, toolUseId, true), 'the request closed').toBe(
      false,
    );
    expect(manager.cancel(session.id), 'the session is unlocked').toBe(false);
    const { messages } = await store.loadMessages(session.id);
    expect(toolResultText(messages)).toEqual([
      'The turn was cancelled while read_file waited for confirmation, so it was not run.',
    ]);
  });

  it('reports each attempt of a retried call, with the class, the retry and its delay', async () => {
    const { manager } = await harness([]);
    server.enqueue(unavailable(), ...fixture('text-stream'));
    const session = await manager.createSession({ workspace_path: '/w' });
    const events: SessionEvent[] = [];
    for await (const event of manager.send(session.id, 'Hello')) events.push(event);
    const attempts = events.filter((e) => e.type === 'session.attempt');
    expect(attempts).toMatchObject([
      { phase: 'start', attempt: 1, step: 1, model: 'anthropic:claude-sonnet-4-6' },
      {
        phase: 'failed',
        attempt: 1,
        error_class: 'server_error',
        will_retry: true,
        delay_ms: expect.any(Number),
      },
      { phase: 'start', attempt: 2, retry_count: 1, error_class: null },
      { phase: 'succeeded', attempt: 2 },
    ]);
    const firstText = events.findIndex((e) => e.type === 'text.delta');
    const retried = events.findIndex((e) => e.type === 'session.attempt' && e.attempt === 2);
    expect(retried, 'the retry is reported before the reply streams').toBeLessThan(firstText);
    expect(server.requests).toHaveLength(2);
  });
});

import { AnthropicAdapter } from '@yourtool/anthropic';
import type { ScriptedResponse } from '@yourtool/conformance';
import {
  createMessage,
  isSealedMessage,
  type Message,
  MessageSchema,
  validateMessage,
} from '@yourtool/core';
import { defaultPriceTable } from '@yourtool/pricing';
import { ModelRegistry, parseRoutingConfig, Router } from '@yourtool/router';
import type { SqlSessionStore } from '@yourtool/store';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  InvalidManagerOptionError,
  SessionManager,
  type SessionManagerOptions,
} from '../src/index.js';
import { sealedCopy } from '../src/stored-copy.js';
import { userTextMessage } from '../src/turn-state.js';
import { fixturesOf, loopbackForFile, requireFixture } from './helpers.js';
import { disposedAfterEach, type StoreTarget, storeTargets } from './stores.js';

/**
 * What one turn writes and reads (decision 0148): the user message and the finished reply, one
 * transaction each; the reply's `partial` row only when its stream lasts `partialRowAfterMs`;
 * one read of the session row, none for the running cost when the turn's own writes show that
 * nobody else wrote meanwhile.
 */

const fixtures = fixturesOf('anthropic');
const fixture = (name: string) => requireFixture(fixtures, name);
const MODEL = 'anthropic:claude-sonnet-4-6';

/** The fixture with a pause between its chunks. */
const slowly = (responses: ScriptedResponse[], delayMs: number): ScriptedResponse[] =>
  responses.map((r) => (r.type === 'stream' ? { ...r, delayMs } : r));

const loopback = loopbackForFile();

const targets = disposedAfterEach();
afterEach(() => vi.restoreAllMocks());

function managerOn(
  store: SqlSessionStore,
  options: Partial<SessionManagerOptions> = {},
): SessionManager {
  const registry = ModelRegistry.fromYaml(
    `
adapters:
  anthropic: { type: anthropic, api_key: sk-ant-writes-0000, base_url: ${loopback.server.url}, max_retries: 0 }
models:
  ${MODEL}: { adapter: anthropic, wire_name: claude-sonnet-4-6, aliases: [sonnet] }
`,
    { factories: { anthropic: (config, runtime) => new AnthropicAdapter(config, runtime) } },
  );
  const router = new Router({ registry, config: parseRoutingConfig('global_default: sonnet') });
  return new SessionManager({ store, router, pricing: defaultPriceTable(), ...options });
}

/** The store's writes and session reads, by kind, with the status of each message written. */
function watch(store: SqlSessionStore) {
  const status = (calls: Array<[Message, ...unknown[]]>) =>
    calls.map(([m]) => `${m.role}:${m.metadata.status}`);
  const append = vi.spyOn(store, 'appendMessage');
  const update = vi.spyOn(store, 'updateMessage');
  const read = vi.spyOn(store, 'getSession');
  return {
    reset() {
      for (const spy of [append, update, read]) spy.mockClear();
    },
    seen() {
      return {
        appended: status(append.mock.calls),
        updated: status(update.mock.calls),
        sessionReads: read.mock.calls.length,
      };
    },
  };
}

describe.each(storeTargets())('what a turn writes ($name)', ({ make }) => {
  async function open(options: Partial<SessionManagerOptions> = {}) {
    const target = make();
    targets.push(target);
    const store = await target.open();
    const manager = managerOn(store, options);
    const session = await manager.createSession({ workspace_path: '/w' });
    loopback.server.enqueue(...fixture('text-stream'));
    await manager.sendAndWait(session.id, 'first'); // loaded and kept
    return { target, store, manager, session, writes: watch(store) };
  }

  it('a reply that ends before partialRowAfterMs: two appends, no update, one session read', async () => {
    const { store, manager, session, writes } = await open();
    loopback.server.enqueue(...fixture('text-stream'));
    const result = await manager.sendAndWait(session.id, 'second');
    expect(writes.seen()).toEqual({
      appended: ['user:complete', 'assistant:complete'],
      updated: [],
      sessionReads: 1,
    });
    // the running cost came from the kept history, and it is the store's figure
    expect(result.session_cost_usd).toBe((await store.sessionStats(session.id)).total_cost_usd);
    const stored = (await store.loadMessages(session.id)).messages;
    expect(stored.map((m) => `${m.role}:${m.metadata.status}`)).toEqual([
      'user:complete',
      'assistant:complete',
      'user:complete',
      'assistant:complete',
    ]);
    expect(stored.at(-1)).toEqual(result.messages.at(-1));
  });

  it('a reply that streams longer: its row is stored as partial meanwhile, then finished over it', async () => {
    const { store, manager, session, writes } = await open({ partialRowAfterMs: 40 });
    loopback.server.enqueue(...slowly(fixture('text-stream'), 60));
    const statuses: string[][] = [];
    for await (const event of manager.send(session.id, 'second')) {
      if (event.type === 'text.delta') {
        const { messages } = await store.loadMessages(session.id);
        statuses.push(messages.slice(2).map((m) => `${m.role}:${m.metadata.status}`));
      }
    }
    expect(statuses.at(-1)).toEqual(['user:complete', 'assistant:partial']);
    expect(writes.seen()).toEqual({
      appended: ['user:complete', 'assistant:partial'],
      updated: ['assistant:complete'],
      sessionReads: 1,
    });
    const last = (await store.loadMessages(session.id)).messages.at(-1);
    expect(last?.metadata.status).toBe('complete');
  });

  it('partialRowAfterMs: 0 stores the partial row at the first event', async () => {
    const { store, manager, session, writes } = await open({ partialRowAfterMs: 0 });
    loopback.server.enqueue(...fixture('text-stream'));
    let atFirstDelta: string[] | undefined;
    for await (const event of manager.send(session.id, 'second')) {
      if (event.type === 'text.delta' && !atFirstDelta) {
        const { messages } = await store.loadMessages(session.id);
        atFirstDelta = messages.slice(2).map((m) => `${m.role}:${m.metadata.status}`);
      }
    }
    expect(atFirstDelta).toEqual(['user:complete', 'assistant:partial']);
    expect(writes.seen()).toEqual({
      appended: ['user:complete', 'assistant:partial'],
      updated: ['assistant:complete'],
      sessionReads: 1,
    });
  });

  it('another writer during the turn: the running cost is read from the store', async () => {
    const { target, store, manager, session, writes } = await open();
    const other = await target.open();
    loopback.server.enqueue(...slowly(fixture('text-stream'), 20));
    let wrote = false;
    let cost: string | null | undefined;
    for await (const event of manager.send(session.id, 'second')) {
      if (event.type === 'text.delta' && !wrote) {
        wrote = true;
        const note = createMessage({
          session_id: session.id,
          role: 'user',
          content: [{ type: 'text', text: 'from elsewhere' }],
        });
        await other.appendMessage(note);
      }
      if (event.type === 'session.turn_complete') cost = event.result.session_cost_usd;
    }
    expect(writes.seen().sessionReads).toBe(2);
    expect(cost).toBe((await store.sessionStats(session.id)).total_cost_usd);
    // and the next turn reads the history again
    const loads = vi.spyOn(store, 'loadMessages');
    loopback.server.enqueue(...fixture('text-stream'));
    await manager.sendAndWait(session.id, 'third');
    expect(loads).toHaveBeenCalledTimes(1);
  });

  it('a partial row whose write failed fails the turn, and the next turn reads the store again', async () => {
    const { store, manager, session } = await open({ partialRowAfterMs: 10 });
    vi.restoreAllMocks();
    const append = store.appendMessage.bind(store);
    vi.spyOn(store, 'appendMessage').mockImplementation(async (message, options) => {
      if (message.metadata.status === 'partial') throw new Error('SQLITE_FULL');
      return append(message, options);
    });
    loopback.server.enqueue(...slowly(fixture('text-stream'), 30));
    await expect(manager.sendAndWait(session.id, 'second')).rejects.toThrow('SQLITE_FULL');
    vi.restoreAllMocks();
    const loads = vi.spyOn(store, 'loadMessages');
    loopback.server.enqueue(...fixture('text-stream'));
    await manager.sendAndWait(session.id, 'third');
    expect(loads).toHaveBeenCalledTimes(1);
    const stored = (await store.loadMessages(session.id)).messages;
    expect(stored.filter((m) => m.metadata.status === 'partial')).toEqual([]);
  });
});

/** One text turn on a SQLite store, with the schema's parses and the store's appends watched. */
async function spiedTurn(text: string) {
  const target = storeTargets()[0]?.make() as StoreTarget;
  targets.push(target);
  const store = await target.open();
  const manager = managerOn(store);
  const session = await manager.createSession({ workspace_path: '/w' });
  const safeParse = vi.spyOn(MessageSchema, 'safeParse');
  const append = vi.spyOn(store, 'appendMessage');
  loopback.server.enqueue(...fixture('text-stream'));
  const result = await manager.sendAndWait(session.id, text);
  /** The ids of the messages the schema parsed during the turn. */
  const parsedIds = () => safeParse.mock.calls.map(([value]) => (value as Message).id);
  return { store, session, result, parsedIds, append };
}

describe('the user message of a text turn', () => {
  it('is what createMessage makes of the text, built without parsing it', () => {
    const built = userTextMessage('sess_text', 'Hello there.');
    const parsed = createMessage({
      session_id: 'sess_text',
      role: 'user',
      content: [{ type: 'text', text: 'Hello there.' }],
      id: built.id,
      created_at: built.created_at,
    });
    expect(built).toEqual(parsed);
    expect(validateMessage(built)).toEqual({ ok: true, violations: [] });
  });

  it('is parsed by nobody during its turn, and the store takes it as checked', async () => {
    const { store, session, result, parsedIds, append } = await spiedTurn('Parse me not.');
    const user = result.messages[0] as Message;
    expect(parsedIds().filter((id) => id === user.id)).toEqual([]);
    expect(isSealedMessage(append.mock.calls[0]?.[0])).toBe(true);
    expect((await store.loadMessages(session.id)).messages[0]).toEqual(user);
  });
});

describe('the reply of a turn', () => {
  it('is parsed by the schema at most once (the quick check reads a well-formed one)', async () => {
    const { store, session, result, parsedIds } = await spiedTurn('Parse the reply once.');
    const reply = result.messages.find((m) => m.role === 'assistant') as Message;
    expect(parsedIds().filter((id) => id === reply.id).length).toBeLessThanOrEqual(1);
    expect((await store.loadMessages(session.id)).messages.at(-1)).toEqual(reply);
  });
});

describe('sealedCopy', () => {
  const message = (input: unknown): Message => ({
    id: '01JBQ00000000000000000000M',
    session_id: 'sess_copy',
    role: 'assistant',
    content: [{ type: 'tool_use', id: 'tu_1', name: 'read_file', input: input as never }],
    metadata: { status: 'complete', note: undefined },
    created_at: '2026-11-25T10:00:00.000000Z',
    schema_version: 1,
  });

  it('seals a deep copy and leaves the original unfrozen', () => {
    const original = message({ path: 'a', nested: [1, { deep: true }, null] });
    const copy = sealedCopy(original);
    expect(copy).toEqual(original);
    expect(copy).not.toBe(original);
    expect(isSealedMessage(copy)).toBe(true);
    expect(Object.isFrozen(original.content[0])).toBe(false);
    expect((copy.content[0] as { input: unknown }).input).not.toBe(
      (original.content[0] as { input: unknown }).input,
    );
    expect(Object.keys(copy.metadata)).toContain('note');
  });

  it('copies what is not plain JSON the way structured cloning does', () => {
    const when = new Date('2026-11-25T10:00:00Z');
    const copy = sealedCopy(message({ when }));
    expect((copy.content[0] as unknown as { input: { when: unknown } }).input.when).toEqual(when);
    expect((copy.content[0] as unknown as { input: { when: unknown } }).input.when).toBeInstanceOf(
      Date,
    );
  });

  it('hands back the message itself when it cannot be copied, for the store to refuse', () => {
    const original = message({ run: () => 1 });
    expect(sealedCopy(original)).toBe(original);
  });
});

describe('partialRowAfterMs', () => {
  it('must be a whole number of milliseconds a timer can wait', async () => {
    const target = storeTargets()[0]?.make() as StoreTarget;
    targets.push(target);
    const store = await target.open();
    for (const bad of [-1, 1.5, Number.NaN, '100', 2 ** 31]) {
      expect(() => managerOn(store, { partialRowAfterMs: bad as number })).toThrow(
        InvalidManagerOptionError,
      );
    }
    expect(() => managerOn(store, { partialRowAfterMs: -1 })).toThrow(
      'partialRowAfterMs must be a whole number of milliseconds, 0 or more (got -1)',
    );
    expect(() => managerOn(store, { partialRowAfterMs: 0 })).not.toThrow();
  });
});

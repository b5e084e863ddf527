import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AnthropicAdapter } from '@yourtool/anthropic';
import { type LoopbackServer, startLoopbackServer } from '@yourtool/conformance';
import { type Message, newMessageId, type SessionStore, silentLogger } from '@yourtool/core';
import { defaultPriceTable } from '@yourtool/pricing';
import { ModelRegistry, parseRoutingConfig, Router } from '@yourtool/router';
import { openStore, type SqlSessionStore } from '@yourtool/store';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { HistoryCache } from '../src/history-cache.js';
import { InvalidManagerOptionError, SessionManager } from '../src/index.js';
import { resolveManagerOptions } from '../src/validate-options.js';
import { fixturesOf, requireFixture } from './helpers.js';

/**
 * The kept histories are bounded by their estimated heap bytes (decision 0186): real SQLite
 * files, the real Anthropic adapter and SDK on the loopback server; store loads counted by a
 * wrapper around the real store.
 */

const fixtures = fixturesOf('anthropic');
const textStream = () => requireFixture(fixtures, 'text-stream');

let server: LoopbackServer;
beforeAll(async () => {
  server = await startLoopbackServer();
});
afterAll(() => server.close());
beforeEach(() => server.reset());

const stores: SessionStore[] = [];
afterEach(async () => {
  await Promise.all(stores.splice(0).map((s) => s.close()));
});

async function sqliteStore(): Promise<SqlSessionStore> {
  const dir = mkdtempSync(join(tmpdir(), 'session-kept-bytes-'));
  const store = await openStore(`sqlite:${join(dir, 'sessions.db')}`);
  stores.push(store);
  return store;
}

/** The store, with every `loadMessages` of a session counted (by session id). */
function counted(store: SessionStore): { store: SessionStore; loads: Map<string, number> } {
  const loads = new Map<string, number>();
  const wrapper = new Proxy(store, {
    get(target, key) {
      const value = Reflect.get(target, key, target) as unknown;
      if (key === 'loadMessages') {
        return (id: string) => {
          loads.set(id, (loads.get(id) ?? 0) + 1);
          return target.loadMessages(id);
        };
      }
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return { store: wrapper, loads };
}

const total = (loads: Map<string, number>) => [...loads.values()].reduce((a, b) => a + b, 0);

function routerFor(): Router {
  const registry = ModelRegistry.fromYaml(
    `
adapters:
  anthropic: { type: anthropic, api_key: sk-ant-kept-bytes-0000, base_url: ${server.url}, max_retries: 0 }
models:
  anthropic:claude-sonnet-4-6: { adapter: anthropic, wire_name: claude-sonnet-4-6, aliases: [sonnet] }
`,
    { factories: { anthropic: (config, runtime) => new AnthropicAdapter(config, runtime) } },
  );
  return new Router({ registry, config: parseRoutingConfig('global_default: sonnet') });
}

function managerOn(store: SessionStore, extra: Record<string, unknown> = {}): SessionManager {
  return new SessionManager({ store, router: routerFor(), pricing: defaultPriceTable(), ...extra });
}

/** A question and its answer as a real turn stores them (the reply priced and routed). */
async function realExchange(store: SessionStore): Promise<Message[]> {
  const manager = managerOn(store);
  const session = await manager.createSession({ workspace_path: '/template' });
  server.enqueue(...textStream());
  await manager.sendAndWait(session.id, 'What does the project do?');
  return (await store.loadMessages(session.id)).messages;
}

/** A new session holding a copy of `exchange` (new ids); its id. */
async function seeded(store: SessionStore, exchange: readonly Message[]): Promise<string> {
  const session = await store.createSession({ workspace_path: '/w' });
  for (const message of exchange) {
    await store.appendMessage({ ...message, id: newMessageId(), session_id: session.id });
  }
  return session.id;
}

/** Loads a session's history through the cache, as a turn's start does. */
async function load(cache: HistoryCache, store: SessionStore, id: string): Promise<void> {
  const session = await store.getSession(id);
  if (!session) throw new Error(`no session ${id}`);
  await cache.load(session);
}

type WireBody = { messages: Array<{ role: string; content: Array<Record<string, unknown>> }> };
/** The user texts of the `i`-th request the loopback server received, in order. */
function userTexts(i: number): string[] {
  const request = server.requests[i];
  if (!request) throw new Error(`no request ${i}`);
  return (request.body as WireBody).messages.flatMap((m) =>
    m.role === 'user' ? m.content.flatMap((c) => (typeof c.text === 'string' ? [c.text] : [])) : [],
  );
}

describe('kept histories bounded by bytes (decision 0186)', () => {
  it('keeps 1,000 small histories under the default budget: the second pass loads none', async () => {
    const real = await sqliteStore();
    const exchange = await realExchange(real);
    const ids: string[] = [];
    const copies: Message[] = [];
    for (let i = 0; i < 1000; i++) {
      const { id } = await real.createSession({ workspace_path: '/w' });
      ids.push(id);
      for (const message of exchange)
        copies.push({ ...message, id: newMessageId(), session_id: id });
    }
    await real.appendMessages(copies); // one transaction: the test stays quick
    const { store, loads } = counted(real);
    const settings = resolveManagerOptions({
      store,
      router: routerFor(),
      pricing: defaultPriceTable(),
    });
    const cache = new HistoryCache(store, silentLogger, {
      bytes: settings.keptHistoryBytes,
      sessions: settings.keptSessions,
    });
    for (const id of ids) await load(cache, store, id);
    for (const id of ids) await load(cache, store, id);
    expect(total(loads)).toBe(1000);
    expect(cache.keptSessions).toBe(1000);
    expect(cache.keptBytes).toBeLessThanOrEqual(settings.keptHistoryBytes);
    // two short messages are kilobytes, not bytes and not megabytes
    expect(cache.keptBytes / 1000).toBeGreaterThan(1000);
    expect(cache.keptBytes / 1000).toBeLessThan(20_000);
  });

  it('a budget for two drops the least recently used first, never over budget once no turn holds one', async () => {
    const real = await sqliteStore();
    const exchange = await realExchange(real);
    const [a, b, c] = [
      await seeded(real, exchange),
      await seeded(real, exchange),
      await seeded(real, exchange),
    ];
    const { store, loads } = counted(real);
    const probe = new HistoryCache(store, silentLogger, { bytes: 1e9, sessions: 10 });
    await load(probe, store, a);
    const one = probe.keptBytesOf(a) as number;
    const budget = Math.floor(one * 2.5);
    const cache = new HistoryCache(store, silentLogger, { bytes: budget, sessions: 10 });
    loads.clear();
    await load(cache, store, a);
    await load(cache, store, b);
    await load(cache, store, a); // kept: a is now the most recently used
    await load(cache, store, c); // over budget: b goes
    expect(Object.fromEntries(loads)).toEqual({ [a]: 1, [b]: 1, [c]: 1 });
    expect(cache.keptBytesOf(b)).toBeNull();
    expect(cache.keptBytes).toBeLessThanOrEqual(budget);
    await load(cache, store, b); // loaded again; a is now the least recently used and goes
    expect(loads.get(b)).toBe(2);
    expect(cache.keptBytesOf(a)).toBeNull();
    expect(cache.keptBytesOf(c)).not.toBeNull();

    // a history held by a running turn stays, even alone over budget, until released
    const tiny = new HistoryCache(store, silentLogger, { bytes: 1, sessions: 10 });
    tiny.hold(a);
    await load(tiny, store, a);
    expect(tiny.keptBytesOf(a)).toBe(one);
    await load(tiny, store, b); // not held: over budget at once
    expect(tiny.keptBytesOf(b)).toBeNull();
    tiny.release(a);
    expect(tiny.keptSessions).toBe(0);
    expect(tiny.keptBytes).toBe(0);
  });

  it('a tiny budget: the dropped session is loaded again on its next turn, whole and in order', async () => {
    const real = await sqliteStore();
    const { store, loads } = counted(real);
    const roomy = managerOn(store);
    const a = (await roomy.createSession({ workspace_path: '/a' })).id;
    const b = (await roomy.createSession({ workspace_path: '/b' })).id;
    const turn = async (manager: SessionManager, id: string, text: string) => {
      server.enqueue(...textStream());
      await manager.sendAndWait(id, text);
    };
    await turn(roomy, a, 'a1');
    await turn(roomy, b, 'b1');
    // one two-message history fits, two do not (each grows by a turn's two messages below)
    const probe = new HistoryCache(store, silentLogger, { bytes: 1e9, sessions: 10 });
    await load(probe, store, a);
    await load(probe, store, b);
    const budget = (probe.keptBytesOf(a) as number) + (probe.keptBytesOf(b) as number) - 1;
    const manager = managerOn(store, { keptHistoryBytes: budget });
    loads.clear();
    await turn(manager, a, 'a2'); // loaded
    await turn(manager, b, 'b2'); // loaded; a, the least recently used, goes
    expect(manager.keptHistories.sessions).toBe(1);
    expect(manager.keptHistories.bytes).toBeLessThanOrEqual(budget);
    await turn(manager, a, 'a3'); // loaded again; b goes
    await turn(manager, b, 'b3'); // loaded again
    expect(Object.fromEntries(loads)).toEqual({ [a]: 2, [b]: 2 });
    // the reloaded history is the whole session, in order
    expect(userTexts(4)).toEqual(['a1', 'a2', 'a3']);
    expect(userTexts(5)).toEqual(['b1', 'b2', 'b3']);
  });

  it('the estimate grows as the session grows, and a running turn keeps its history to the end', async () => {
    const real = await sqliteStore();
    const { store, loads } = counted(real);
    const manager = managerOn(store);
    const id = (await manager.createSession({ workspace_path: '/w' })).id;
    const sizes: number[] = [];
    for (const text of ['one', 'two', 'three', 'four']) {
      server.enqueue(...textStream());
      await manager.sendAndWait(id, `${text} ${'words '.repeat(50)}`);
      sizes.push(manager.keptHistories.bytes);
    }
    // none: the session's history was kept from its creation (decision 0202)
    expect(total(loads)).toBe(0);
    for (let i = 1; i < sizes.length; i++) {
      // each turn adds a ~300-character question and its answer
      expect((sizes[i] as number) - (sizes[i - 1] as number)).toBeGreaterThan(300);
    }

    // a budget below one history: kept while its turn runs (the turn's writes join it), not after
    const tiny = managerOn(store, { keptHistoryBytes: 1 });
    loads.clear();
    server.enqueue(...textStream());
    for await (const event of tiny.send(id, 'five')) {
      if (event.type === 'session.turn_complete') {
        expect(tiny.keptHistories.sessions).toBe(1);
        expect(event.result.session_cost_usd).toBe((await real.sessionStats(id)).total_cost_usd);
      }
    }
    expect(tiny.keptHistories).toEqual({ sessions: 0, bytes: 0 });
    expect(total(loads)).toBe(1);
  });

  it.each([
    [-1, 'keptHistoryBytes must be a whole number of bytes, 0 or more (got -1)'],
    [1.5, 'keptHistoryBytes must be a whole number of bytes, 0 or more (got 1.5)'],
    [
      '64MiB',
      'keptHistoryBytes must be a whole number of bytes, 0 or more (got the string "64MiB")',
    ],
    [Number.POSITIVE_INFINITY, '(got Infinity)'],
  ])('keptHistoryBytes %s is refused, naming the option', async (value, message) => {
    const store = await sqliteStore();
    let thrown: unknown;
    try {
      managerOn(store, { keptHistoryBytes: value });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(InvalidManagerOptionError);
    expect((thrown as InvalidManagerOptionError).option).toBe('keptHistoryBytes');
    expect((thrown as Error).message).toContain(message);
  });

  it('keptSessions still bounds the count beside the bytes; 0 bytes keeps none', async () => {
    const real = await sqliteStore();
    const exchange = await realExchange(real);
    const [a, b] = [await seeded(real, exchange), await seeded(real, exchange)];
    const { store, loads } = counted(real);
    const counting = new HistoryCache(store, silentLogger, { bytes: 1e9, sessions: 1 });
    for (const id of [a, b, a]) await load(counting, store, id);
    expect(loads.get(a)).toBe(2);
    const none = managerOn(store, { keptHistoryBytes: 0 });
    server.enqueue(...textStream());
    await none.sendAndWait(a, 'again');
    expect(none.keptHistories).toEqual({ sessions: 0, bytes: 0 });
  });
});

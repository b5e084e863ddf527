import { createRequire } from 'node:module';
import { AnthropicAdapter } from '@yourtool/anthropic';
import { defaultPriceTable } from '@yourtool/pricing';
import { ModelRegistry, parseRoutingConfig, Router } from '@yourtool/router';
import type { SqlSessionStore } from '@yourtool/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SessionManager } from '../src/index.js';
import { fixturesOf, loopbackForFile, requireFixture } from './helpers.js';
import { disposedAfterEach, storeTargets } from './stores.js';

/**
 * How many statements a turn sends to the database before its request leaves (issue 50): on the
 * steady path (the second turn of a session whose history is kept, no budgets) at most three,
 * counted where they reach the driver (pg's `Client.query`, better-sqlite3's statement runs):
 * on PostgreSQL every round trip, transaction control included; on SQLite the data statements. A statement is counted as "before" while the loopback server
 * has not seen the request yet, so one sent after the request left but before it arrived
 * counts too: the figure can only be too high.
 */

const fixtures = fixturesOf('anthropic');
const MODEL = 'anthropic:claude-sonnet-4-6';
const loopback = loopbackForFile();
const targets = disposedAfterEach();

/** The SQL texts the drivers ran while counting, in order. */
const seen: string[] = [];
let counting = false;
const restores: Array<() => void> = [];

/** Wraps `owner[name]` so each call records its SQL (read by `sqlOf`) while counting. */
function countCalls(
  owner: object,
  name: string,
  sqlOf: (self: unknown, args: unknown[]) => string,
) {
  const target = owner as Record<string, (...args: unknown[]) => unknown>;
  const original = target[name] as (...args: unknown[]) => unknown;
  target[name] = function (this: unknown, ...args: unknown[]) {
    if (counting) seen.push(sqlOf(this, args));
    return original.apply(this, args);
  };
  restores.push(() => {
    target[name] = original;
  });
}

beforeAll(() => {
  // the drivers the store itself loads (resolved from the store package)
  const fromStore = createRequire(createRequire(import.meta.url).resolve('@yourtool/store'));
  const pg = fromStore('pg') as { Client: { prototype: object } };
  countCalls(pg.Client.prototype, 'query', (_self, args) => {
    const first = args[0] as string | { text?: string };
    return typeof first === 'string' ? first : String(first?.text);
  });
  const Database = fromStore('better-sqlite3') as {
    prototype: { prepare(sql: string): { constructor: { prototype: object } } };
  };
  const probe = new (
    Database as unknown as new (
      f: string,
    ) => {
      prepare(sql: string): object;
      close(): void;
    }
  )(':memory:');
  const statementProto = Object.getPrototypeOf(probe.prepare('select 1')) as object;
  probe.close();
  for (const method of ['run', 'all', 'get', 'iterate']) {
    countCalls(statementProto, method, (self) => String((self as { source: string }).source));
  }
});
afterAll(() => {
  for (const restore of restores.splice(0)) restore();
});

function managerOn(store: SqlSessionStore): SessionManager {
  const registry = ModelRegistry.fromYaml(
    `
adapters:
  anthropic: { type: anthropic, api_key: sk-ant-count-0000, base_url: ${loopback.server.url}, max_retries: 0 }
models:
  ${MODEL}: { adapter: anthropic, wire_name: claude-sonnet-4-6, aliases: [sonnet] }
`,
    { factories: { anthropic: (config, runtime) => new AnthropicAdapter(config, runtime) } },
  );
  const router = new Router({ registry, config: parseRoutingConfig('global_default: sonnet') });
  return new SessionManager({ store, router, pricing: defaultPriceTable() });
}

// SQLite's transaction control is a call in this process, not a round trip: not counted
const countedOn = (name: string, texts: string[]) =>
  name === 'sqlite' ? texts.filter((t) => !/^(begin|commit|rollback)\b/i.test(t)) : texts;

describe.each(storeTargets())('statements before a turn request leaves ($name)', ({ make }) => {
  it('the first turn of a session this manager created: at most 3, and no message is read', async () => {
    const target = make();
    targets.push(target);
    const store = await target.open();
    const manager = managerOn(store);
    loopback.server.reset();
    loopback.server.enqueue(...requireFixture(fixtures, 'text-stream'));
    const before: string[] = [];
    seen.length = 0;
    counting = true;
    let result: Awaited<ReturnType<SessionManager['sendAndWait']>>;
    try {
      const session = await manager.createSession({ workspace_path: '/w' });
      seen.length = 0;
      const turn = manager.sendAndWait(session.id, 'first');
      await loopback.server.waitForRequests(1);
      before.push(...seen);
      result = await turn;
    } finally {
      counting = false;
    }
    expect(countedOn(target.name, before).length, before.join('\n')).toBeLessThanOrEqual(3);
    expect(before.filter((t) => /from "?messages"?/i.test(t) && /^\s*select/i.test(t))).toEqual([]);
    const stored = (await store.loadMessages(result.messages[0]?.session_id ?? '')).messages;
    expect(stored.map((m) => `${m.role}:${m.metadata.status}`)).toEqual([
      'user:complete',
      'assistant:complete',
    ]);
  });

  it('a created session another writer wrote to before its first turn: the turn reloads it and sends every stored message', async () => {
    const target = make();
    targets.push(target);
    const store = await target.open();
    const other = await target.open();
    const manager = managerOn(store);
    loopback.server.reset();
    const session = await manager.createSession({ workspace_path: '/w' });
    // another process's turn, stored before this manager's first
    loopback.server.enqueue(...requireFixture(fixtures, 'text-stream'));
    await managerOn(other).sendAndWait(session.id, 'elsewhere');
    loopback.server.enqueue(...requireFixture(fixtures, 'text-stream'));
    await manager.sendAndWait(session.id, 'here');
    const body = loopback.server.requests[1]?.body as
      | { messages: Array<{ role: string; content: unknown }> }
      | undefined;
    const sent = body?.messages ?? [];
    expect(JSON.stringify(sent.map((m) => m.content))).toContain('elsewhere');
    expect(sent.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect((await store.loadMessages(session.id)).messages).toHaveLength(4);
  });

  it('the second turn of a kept session: at most 3, and the turn is stored whole', async () => {
    const target = make();
    targets.push(target);
    const store = await target.open();
    const manager = managerOn(store);
    const session = await manager.createSession({ workspace_path: '/w' });
    loopback.server.enqueue(...requireFixture(fixtures, 'text-stream'));
    await manager.sendAndWait(session.id, 'first'); // loaded and kept
    loopback.server.enqueue(...requireFixture(fixtures, 'text-stream'));
    const before: string[] = [];
    const all: string[] = [];
    seen.length = 0;
    counting = true;
    let result: Awaited<ReturnType<SessionManager['sendAndWait']>>;
    try {
      const turn = manager.sendAndWait(session.id, 'second');
      // statements recorded by the time the request arrived
      await loopback.server.waitForRequests(2);
      before.push(...seen);
      result = await turn;
      all.push(...seen);
    } finally {
      counting = false;
    }
    // SQLite's transaction control is a call in this process, not a round trip: not counted
    const counted = (texts: string[]) =>
      target.name === 'sqlite'
        ? texts.filter((t) => !/^(begin|commit|rollback)\b/i.test(t))
        : texts;
    expect(counted(before).length, before.join('\n')).toBeLessThanOrEqual(3);
    // the session read and one statement per message; with SQLite's data statements: five
    expect(counted(all).length, all.join('\n')).toBeLessThanOrEqual(
      target.name === 'sqlite' ? 5 : 3,
    );
    const stored = (await store.loadMessages(session.id)).messages;
    expect(stored.map((m) => `${m.role}:${m.metadata.status}`)).toEqual([
      'user:complete',
      'assistant:complete',
      'user:complete',
      'assistant:complete',
    ]);
    expect(stored.at(-1)).toEqual(result.messages.at(-1));
    // the lease is released: the next turn starts
    loopback.server.enqueue(...requireFixture(fixtures, 'text-stream'));
    await manager.sendAndWait(session.id, 'third');
  });
});

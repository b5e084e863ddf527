import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AnthropicAdapter } from '@yourtool/anthropic';
import { type LoopbackServer, startLoopbackServer } from '@yourtool/conformance';
import { createMessage, type Message, type SessionRecord, type SessionStore } from '@yourtool/core';
import { MemorySessionStore } from '@yourtool/core/memory-store';
import { defaultPriceTable } from '@yourtool/pricing';
import { ModelRegistry, parseRoutingConfig, Router } from '@yourtool/router';
import { openStore, type SqlSessionStore } from '@yourtool/store';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { InvalidManagerOptionError, SessionManager, ToolRegistry } from '../src/index.js';
import { fixturesOf, requireFixture } from './helpers.js';

/**
 * Incremental turns (decision 0103): a manager keeps a session's history between turns and
 * reads it again only when the store's revision says someone else changed it. Real SQLite
 * files, the real Anthropic adapter and SDK on the loopback server.
 */

const fixtures = fixturesOf('anthropic');
const fixture = (name: string) => requireFixture(fixtures, name);

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

function managerOn(store: SessionStore, keptSessions?: number): SessionManager {
  const registry = ModelRegistry.fromYaml(
    `
adapters:
  anthropic: { type: anthropic, api_key: sk-ant-incremental-0000, base_url: ${server.url}, max_retries: 0 }
models:
  anthropic:claude-sonnet-4-6: { adapter: anthropic, wire_name: claude-sonnet-4-6, aliases: [sonnet] }
`,
    { factories: { anthropic: (config, runtime) => new AnthropicAdapter(config, runtime) } },
  );
  const router = new Router({ registry, config: parseRoutingConfig('global_default: sonnet') });
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
      run: () => '# Project Foo',
    },
  ]);
  return new SessionManager({
    store,
    router,
    pricing: defaultPriceTable(),
    tools,
    ...(keptSessions !== undefined ? { keptSessions } : {}),
  });
}

async function sqliteFile(): Promise<{ path: string; open: () => Promise<SqlSessionStore> }> {
  const path = join(mkdtempSync(join(tmpdir(), 'session-incremental-')), 'sessions.db');
  return {
    path,
    open: async () => {
      const store = await openStore(`sqlite:${path}`);
      stores.push(store);
      return store;
    },
  };
}

type WireBody = { messages: Array<{ role: string; content: Array<Record<string, unknown>> }> };
const body = (i: number) => server.requests[i]?.body as WireBody;
const texts = (b: WireBody) =>
  b.messages.flatMap((m) =>
    m.content.flatMap((c) => (typeof c.text === 'string' ? [`${m.role}:${c.text}`] : [])),
  );

describe('incremental turns (decision 0103)', () => {
  it('keeps the history between turns: later turns read no message rows and still send all of it', async () => {
    const db = await sqliteFile();
    const store = await db.open();
    const loads = vi.spyOn(store, 'loadMessages');
    const stats = vi.spyOn(store, 'sessionStats');
    const manager = managerOn(store);
    const session = await manager.createSession({ workspace_path: '/w' });

    server.enqueue(...fixture('tool-call-stream'), ...fixture('text-stream'));
    await manager.sendAndWait(session.id, 'Summarize README.md');
    // a session this manager created starts with its (empty) history kept (decision 0202)
    expect(loads).toHaveBeenCalledTimes(0);
    server.enqueue(...fixture('text-stream'));
    const second = await manager.sendAndWait(session.id, 'Thanks. And then?');
    server.enqueue(...fixture('text-stream'));
    const third = await manager.sendAndWait(session.id, 'One more.');
    expect(loads).toHaveBeenCalledTimes(0);
    expect(stats).not.toHaveBeenCalled();

    // the third request carries every earlier message, tool pair included
    const sent = body(3);
    expect(sent.messages.map((m) => m.role)).toEqual([
      'user',
      'assistant',
      'user',
      'assistant',
      'user',
      'assistant',
      'user',
    ]);
    expect(texts(sent)).toContain('user:Thanks. And then?');
    expect(sent.messages[2]?.content[0]).toMatchObject({ type: 'tool_result' });

    // the running cost the manager kept equals the store's own figure
    const fromStore = await store.sessionStats(session.id);
    expect(third.session_cost_usd).toBe(fromStore.total_cost_usd);
    expect(Number(third.session_cost_usd)).toBeGreaterThan(Number(second.session_cost_usd));

    // and what it kept is what a fresh manager reads: the next request bodies agree
    server.enqueue(...fixture('text-stream'));
    await manager.sendAndWait(session.id, 'Same question.');
    const fresh = managerOn(await db.open());
    server.enqueue(...fixture('text-stream'));
    await fresh.sendAndWait(session.id, 'Same question.');
    const kept = body(4);
    const reread = body(5);
    expect(reread.messages.slice(0, kept.messages.length)).toEqual(kept.messages);
  });

  it('another writer on the same file (another process) is seen on the next turn', async () => {
    const db = await sqliteFile();
    const mine = await db.open();
    const loads = vi.spyOn(mine, 'loadMessages');
    const a = managerOn(mine);
    const b = managerOn(await db.open());
    const session = await a.createSession({ workspace_path: '/w' });

    server.enqueue(...fixture('text-stream'));
    await a.sendAndWait(session.id, 'from A, first');
    server.enqueue(...fixture('text-stream'));
    await b.sendAndWait(session.id, 'from B');
    server.enqueue(...fixture('text-stream'));
    const result = await a.sendAndWait(session.id, 'from A, second');

    // A's first turn started from the history A kept at creation; its second reloads
    expect(loads).toHaveBeenCalledTimes(1);
    expect(texts(body(2))).toEqual([
      'user:from A, first',
      'assistant:Hello! How can I help you today?',
      'user:from B',
      'assistant:Hello! How can I help you today?',
      'user:from A, second',
    ]);
    expect(result.session_cost_usd).toBe((await mine.sessionStats(session.id)).total_cost_usd);
  });

  it('a repriced row is seen: the next turn reloads and its running cost has the new price', async () => {
    const db = await sqliteFile();
    const store = await db.open();
    const loads = vi.spyOn(store, 'loadMessages');
    const manager = managerOn(store);
    const session = await manager.createSession({ workspace_path: '/w' });
    server.enqueue(...fixture('text-stream'));
    const first = await manager.sendAndWait(session.id, 'hello');
    const reply = first.messages.find((m) => m.role === 'assistant') as Message;
    const usage = reply.metadata.usage;
    if (!usage) throw new Error('no usage');

    const other = await db.open();
    await other.updateMessageUsage(reply.id, {
      ...usage,
      cost_usd: '1.5',
      pricing_version: 'repriced',
    });
    server.enqueue(...fixture('text-stream'));
    const second = await manager.sendAndWait(session.id, 'again');
    // the first turn started from the history kept at creation; the second reloads
    expect(loads).toHaveBeenCalledTimes(1);
    const secondCost = second.messages.find((m) => m.role === 'assistant')?.metadata.usage
      ?.cost_usd;
    expect(Number(second.session_cost_usd)).toBeCloseTo(1.5 + Number(secondCost), 12);
  });

  it('a turn whose write failed leaves nothing kept: the next turn reads the store again', async () => {
    const db = await sqliteFile();
    const store = await db.open();
    const loads = vi.spyOn(store, 'loadMessages');
    const manager = managerOn(store);
    const session = await manager.createSession({ workspace_path: '/w' });
    server.enqueue(...fixture('text-stream'));
    await manager.sendAndWait(session.id, 'hello');

    // the user message's write fails (the disk filled up): the turn throws, nothing is sent
    vi.spyOn(store, 'appendMessage').mockRejectedValueOnce(new Error('SQLITE_FULL'));
    await expect(manager.sendAndWait(session.id, 'lost')).rejects.toThrow('SQLITE_FULL');
    expect(server.requests).toHaveLength(1);

    server.enqueue(...fixture('text-stream'));
    await manager.sendAndWait(session.id, 'kept');
    // none for the first turn (kept at creation), one after the failed write
    expect(loads).toHaveBeenCalledTimes(1);
    expect(texts(body(1))).toEqual([
      'user:hello',
      'assistant:Hello! How can I help you today?',
      'user:kept',
    ]);
  });

  it('a store that keeps no revision is read every turn, as before', async () => {
    const inner = new MemorySessionStore();
    // every method of the memory store, but sessions come back without a revision
    const store = new Proxy(inner, {
      get(target, key) {
        if (key === 'getSession') {
          return async (id: string): Promise<SessionRecord | null> => {
            const found = await target.getSession(id);
            if (!found) return null;
            const { revision: _dropped, ...rest } = found;
            return rest;
          };
        }
        const value = Reflect.get(target, key, target) as unknown;
        return typeof value === 'function' ? value.bind(target) : value;
      },
    }) as SessionStore;
    const loads = vi.spyOn(inner, 'loadMessages');
    const manager = managerOn(store);
    const session = await inner.createSession({ workspace_path: '/w' });
    for (const text of ['one', 'two', 'three']) {
      server.enqueue(...fixture('text-stream'));
      await manager.sendAndWait(session.id, text);
    }
    expect(loads).toHaveBeenCalledTimes(3);
    expect(texts(body(2)).filter((t) => t.startsWith('user:'))).toEqual([
      'user:one',
      'user:two',
      'user:three',
    ]);
  });

  it("messages handed to the caller stay the caller's: changing them does not change the kept history", async () => {
    const db = await sqliteFile();
    const manager = managerOn(await db.open());
    const session = await manager.createSession({ workspace_path: '/w' });
    server.enqueue(...fixture('text-stream'));
    const first = await manager.sendAndWait(session.id, 'original words');
    const user = first.messages[0] as Message;
    expect(Object.isFrozen(user)).toBe(false);
    (user.content[0] as { text: string }).text = 'edited by the caller';

    server.enqueue(...fixture('text-stream'));
    await manager.sendAndWait(session.id, 'next');
    expect(texts(body(1))[0]).toBe('user:original words');
    // the stored history, read fresh, agrees
    const history = await manager.history(session.id);
    expect(history[0]?.content[0]).toEqual({ type: 'text', text: 'original words' });
    expect(Object.isFrozen(history[0])).toBe(false);
  });

  it('a message another writer dated later than this turn: what the manager keeps stays in store order', async () => {
    const db = await sqliteFile();
    const manager = managerOn(await db.open());
    const session = await manager.createSession({ workspace_path: '/w' });
    server.enqueue(...fixture('text-stream'));
    await manager.sendAndWait(session.id, 'first');
    // an import from a machine whose clock runs an hour ahead
    const other = await db.open();
    await other.appendMessage(
      createMessage({
        session_id: session.id,
        role: 'user',
        content: [{ type: 'text', text: 'Note from the future.' }],
        created_at: new Date(Date.now() + 3_600_000).toISOString(),
      }),
    );
    // this turn reloads (another writer), then writes messages dated before the note
    server.enqueue(...fixture('text-stream'));
    await manager.sendAndWait(session.id, 'second');
    // the store's order: the note stays last, after the messages this turn dated earlier
    const stored = (await other.loadMessages(session.id)).messages.map(
      (m) => `${m.role}:${(m.content[0] as { text: string }).text}`,
    );
    // the next turn runs on what the manager kept, which must be in that order
    server.enqueue(...fixture('text-stream'));
    await manager.sendAndWait(session.id, 'third');
    expect(stored).toEqual([
      'user:first',
      'assistant:Hello! How can I help you today?',
      'user:second',
      'assistant:Hello! How can I help you today?',
      'user:Note from the future.',
    ]);
    expect(texts(body(2))).toEqual([...stored, 'user:third']);
  });

  it('keeps at most keptSessions histories, the least recently used dropped first', async () => {
    const db = await sqliteFile();
    const store = await db.open();
    const loads = vi.spyOn(store, 'loadMessages');
    const manager = managerOn(store, 1);
    const a = await manager.createSession({ workspace_path: '/a' });
    const b = await manager.createSession({ workspace_path: '/b' });
    const turn = async (id: string, text: string) => {
      server.enqueue(...fixture('text-stream'));
      await manager.sendAndWait(id, text);
    };
    await turn(a.id, 'a1');
    await turn(a.id, 'a2'); // kept
    expect(loads).toHaveBeenCalledTimes(1);
    await turn(b.id, 'b1'); // b loaded, a dropped
    await turn(a.id, 'a3'); // a loaded again, b dropped
    await turn(b.id, 'b2'); // b loaded again
    expect(loads).toHaveBeenCalledTimes(4);
    expect(texts(body(3)).filter((t) => t.startsWith('user:'))).toEqual([
      'user:a1',
      'user:a2',
      'user:a3',
    ]);

    for (const bad of [-1, 1.5, Number.NaN]) {
      expect(() => managerOn(store, bad)).toThrow(InvalidManagerOptionError);
    }
    expect(() => managerOn(store, -1)).toThrow(
      'keptSessions must be a whole number of sessions, 0 or more (got -1)',
    );
    const none = managerOn(store, 0);
    loads.mockClear();
    await (async () => {
      server.enqueue(...fixture('text-stream'));
      await none.sendAndWait(a.id, 'a4');
      server.enqueue(...fixture('text-stream'));
      await none.sendAndWait(a.id, 'a5');
    })();
    expect(loads).toHaveBeenCalledTimes(2);
  });
});

import { AnthropicAdapter } from '@yourtool/anthropic';
import type { AppendMessageOptions, Message, SessionStore } from '@yourtool/core';
import { defaultPriceTable } from '@yourtool/pricing';
import { ModelRegistry, parseRoutingConfig, Router } from '@yourtool/router';
import { describe, expect, it } from 'vitest';
import { type SessionEvent, SessionManager, ToolRegistry } from '../src/index.js';
import { fixturesOf, loopbackForFile, requireFixture } from './helpers.js';
import { disposedAfterEach, type StoreTarget, storeTargets } from './stores.js';

/**
 * A text turn's request leaves while its user message is written (decision 0203): every later
 * write waits for that one, and a write that fails stops the call and ends the turn with the
 * store's error, with nothing of the turn stored. Content blocks are stored before the request.
 * A real SQLite file and a real PostgreSQL server, the real Anthropic adapter and SDK on the
 * loopback server.
 */

const fixtures = fixturesOf('anthropic');
const fixture = (name: string) => requireFixture(fixtures, name);
const loopback = loopbackForFile();
const targets = disposedAfterEach();

/** A store whose next user message write waits for `release` (then writes, or throws what it is given). */
interface GatedStore {
  store: SessionStore;
  /** Resolves when a user message's write is waiting at the gate. */
  waiting: () => Promise<void>;
  /** Lets the waiting write go on: it writes, or throws `error` when given. */
  release: (error?: Error) => void;
}

async function gatedStore(target: StoreTarget): Promise<GatedStore> {
  targets.push(target);
  const inner = await target.open();
  let armed = false;
  let arrived: () => void = () => undefined;
  let release: (error?: Error) => void = () => undefined;
  const store = new Proxy(inner, {
    get(target, key) {
      if (key === 'appendMessage') {
        return async (message: Message, options?: AppendMessageOptions) => {
          if (armed && message.role === 'user') {
            armed = false;
            const failure = await new Promise<Error | undefined>((resolve) => {
              release = resolve;
              arrived();
            });
            if (failure) throw failure;
          }
          return target.appendMessage(message, options);
        };
      }
      const value = Reflect.get(target, key, target) as unknown;
      return typeof value === 'function' ? value.bind(target) : value;
    },
  }) as SessionStore;
  return {
    store,
    waiting: () => {
      armed = true;
      return new Promise<void>((resolve) => (arrived = resolve));
    },
    release: (error) => release(error),
  };
}

function managerOn(store: SessionStore): SessionManager {
  const registry = ModelRegistry.fromYaml(
    `
adapters:
  anthropic: { type: anthropic, api_key: sk-ant-user-write-0000, base_url: ${loopback.server.url}, max_retries: 0 }
models:
  anthropic:claude-sonnet-4-6: { adapter: anthropic, wire_name: claude-sonnet-4-6, aliases: [sonnet] }
`,
    { factories: { anthropic: (config, runtime) => new AnthropicAdapter(config, runtime) } },
  );
  const router = new Router({ registry, config: parseRoutingConfig('global_default: sonnet') });
  return new SessionManager({
    store,
    router,
    pricing: defaultPriceTable(),
    tools: new ToolRegistry([]),
  });
}

const texts = (messages: readonly Message[]) =>
  messages.map(
    (m) => `${m.role}:${m.content.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('')}`,
  );

async function collect(events: AsyncIterable<SessionEvent>): Promise<SessionEvent[]> {
  const seen: SessionEvent[] = [];
  for await (const event of events) seen.push(event);
  return seen;
}

describe.each(storeTargets())(
  'the user message is written while the request leaves (decision 0203, $name)',
  ({ make }) => {
    it('the request reaches the server before the write ends; the reply is stored after the user message', async () => {
      const gated = await gatedStore(make());
      const manager = managerOn(gated.store);
      const session = await manager.createSession({ workspace_path: '/w' });
      loopback.server.enqueue(...fixture('text-stream'));
      const waiting = gated.waiting();
      const turn = collect(manager.send(session.id, 'hello'));
      await waiting;
      // the write is held at the gate, and the request is on the server already
      await loopback.server.waitForRequests(1, 10_000);
      gated.release();
      const events = await turn;

      const types = events.map((e) => e.type);
      expect(types.indexOf('session.user_message')).toBeLessThan(types.indexOf('text.delta'));
      const complete = events.find((e) => e.type === 'session.turn_complete');
      expect(complete?.type === 'session.turn_complete' && texts(complete.result.messages)).toEqual(
        ['user:hello', 'assistant:Hello! How can I help you today?'],
      );
      const stored = (await gated.store.loadMessages(session.id)).messages;
      expect(texts(stored)).toEqual(['user:hello', 'assistant:Hello! How can I help you today?']);
    });

    it('a write that fails after the request left stops the call and ends the turn with its error; nothing of the turn is stored', async () => {
      const gated = await gatedStore(make());
      const manager = managerOn(gated.store);
      const session = await manager.createSession({ workspace_path: '/w' });
      loopback.server.enqueue(...fixture('text-stream'));
      await manager.sendAndWait(session.id, 'first');

      // this stream stalls after its first text delta: only a stopped call ends the turn
      loopback.server.enqueue(...fixture('cancel-mid-text'));
      const waiting = gated.waiting();
      const turn = manager.sendAndWait(session.id, 'lost');
      await waiting;
      await loopback.server.waitForRequests(2, 10_000);
      gated.release(new Error('SQLITE_FULL: database or disk is full'));
      await expect(turn).rejects.toThrow('SQLITE_FULL');

      const stored = (await gated.store.loadMessages(session.id)).messages;
      expect(texts(stored)).toEqual(['user:first', 'assistant:Hello! How can I help you today?']);
      expect(stored.every((m) => m.metadata.status === 'complete')).toBe(true);
      // the session is free: the next turn runs, and sends only what is stored
      loopback.server.enqueue(...fixture('text-stream'));
      const next = await manager.sendAndWait(session.id, 'kept');
      expect(next.end).toBe('end_turn');
      const body = loopback.server.requests[2]?.body as { messages: Array<{ role: string }> };
      expect(body.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
      expect(JSON.stringify(body)).not.toContain('lost');
    });

    it('content blocks are stored before the request: a write that fails sends nothing', async () => {
      const gated = await gatedStore(make());
      const manager = managerOn(gated.store);
      const session = await manager.createSession({ workspace_path: '/w' });
      loopback.server.enqueue(...fixture('text-stream'));
      const waiting = gated.waiting();
      const turn = manager.sendAndWait(session.id, [{ type: 'text', text: 'blocks' }]);
      await waiting;
      // held at the gate: the request waits for the write
      await new Promise((resolve) => setImmediate(resolve));
      expect(loopback.server.requests).toHaveLength(0);
      gated.release(new Error('SQLITE_FULL: database or disk is full'));
      await expect(turn).rejects.toThrow('SQLITE_FULL');
      expect(loopback.server.requests).toHaveLength(0);
      expect((await gated.store.loadMessages(session.id)).messages).toEqual([]);
    });
  },
);

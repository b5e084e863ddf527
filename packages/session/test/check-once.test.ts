import { AnthropicAdapter } from '@yourtool/anthropic';
import {
  type CanonicalRequest,
  isSealedMessage,
  type Message,
  MessageSchema,
} from '@yourtool/core';
import { defaultPriceTable } from '@yourtool/pricing';
import { ModelRegistry, parseRoutingConfig, Router } from '@yourtool/router';
import type { SqlSessionStore } from '@yourtool/store';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { SessionManager } from '../src/index.js';
import { fixturesOf, loopbackForFile, requireFixture } from './helpers.js';
import { disposedAfterEach, storeTargets } from './stores.js';

/**
 * Data is checked where it enters: a new assistant message is validated against the schema
 * once and serialized to JSON once (its content and metadata columns) between the adapter's
 * `message.complete` and the end of the turn that stored it. The store's write hands the
 * stored message back, so the manager keeps it without parsing its own write, and the next
 * request carries it sealed (not checked again).
 */

const fixtures = fixturesOf('anthropic');
const fixture = (name: string) => requireFixture(fixtures, name);
const MODEL = 'anthropic:claude-sonnet-4-6';
const REPLY_TEXT = 'Hello! How can I help you today?';

const loopback = loopbackForFile();

const targets = disposedAfterEach();
afterEach(() => vi.restoreAllMocks());

function managerOn(store: SqlSessionStore, requests: CanonicalRequest[]): SessionManager {
  const registry = ModelRegistry.fromYaml(
    `
adapters:
  anthropic: { type: anthropic, api_key: sk-ant-once-0000, base_url: ${loopback.server.url}, max_retries: 0 }
models:
  ${MODEL}: { adapter: anthropic, wire_name: claude-sonnet-4-6, aliases: [sonnet] }
`,
    { factories: { anthropic: (config, runtime) => new AnthropicAdapter(config, runtime) } },
  );
  const adapter = registry.adapterFor(MODEL);
  const stream = adapter.stream.bind(adapter);
  vi.spyOn(adapter, 'stream').mockImplementation((request, options) => {
    requests.push(request as CanonicalRequest);
    return stream(request, options);
  });
  const router = new Router({ registry, config: parseRoutingConfig('global_default: sonnet') });
  return new SessionManager({ store, router, pricing: defaultPriceTable() });
}

/** The calls a spy received from `from` on. */
const since = <T>(calls: T[], from: number) => calls.slice(from);

describe.each(storeTargets())('a new reply is checked once ($name)', ({ make }) => {
  it('one schema validation and one JSON serialization from message.complete to the end of the turn', async () => {
    const target = make();
    targets.push(target);
    const store = await target.open();
    const requests: CanonicalRequest[] = [];
    const manager = managerOn(store, requests);
    const session = await manager.createSession({ workspace_path: '/w' });
    loopback.server.enqueue(...fixture('text-stream'));
    await manager.sendAndWait(session.id, 'first'); // the session is loaded and kept

    const safeParse = vi.spyOn(MessageSchema, 'safeParse');
    const parse = vi.spyOn(MessageSchema, 'parse');
    const stringify = vi.spyOn(JSON, 'stringify');
    const jsonParse = vi.spyOn(JSON, 'parse');
    const loads = vi.spyOn(store, 'loadMessages');
    const marks = { parse: 0, safeParse: 0, stringify: 0, jsonParse: 0 };
    let reply: Message | undefined;
    loopback.server.enqueue(...fixture('text-stream'));
    for await (const event of manager.send(session.id, 'second')) {
      if (event.type === 'message.complete') {
        marks.parse = parse.mock.calls.length;
        marks.safeParse = safeParse.mock.calls.length;
        marks.stringify = stringify.mock.results.length;
        marks.jsonParse = jsonParse.mock.calls.length;
      }
      if (event.type === 'session.assistant_message') reply = event.message;
    }
    // the window closes when the turn is over: its writes are in the kept history by then
    const validated = since(safeParse.mock.calls, marks.safeParse).map(([value]) => value);
    const parsed = since(parse.mock.calls, marks.parse);
    const serialized = since(stringify.mock.results, marks.stringify).flatMap((r) =>
      typeof r.value === 'string' ? [r.value] : [],
    );
    const reread = since(jsonParse.mock.calls, marks.jsonParse).filter(([text]) =>
      String(text).includes(REPLY_TEXT),
    );
    for (const spy of [safeParse, parse, stringify, jsonParse]) spy.mockRestore();
    if (!reply) throw new Error('no assistant message');
    const replyId = reply.id;

    // checked once (test/invalid-replies.test.ts shows the check refusing bad replies): a
    // well-formed reply passes core's quick check (decisions 0104, 0206), so the schema parses
    // it at most once, and nothing else in the window
    expect(validated.length).toBeLessThanOrEqual(1);
    for (const value of validated) expect((value as Message).id).toBe(replyId);
    expect(parsed).toHaveLength(0);
    const content = serialized.filter((text) => text.includes(REPLY_TEXT));
    const metadata = serialized.filter((text) => text.includes('"stop_reason":"end_turn"'));
    expect(content).toEqual([JSON.stringify(reply.content)]);
    expect(metadata).toHaveLength(1);
    expect(JSON.parse(metadata[0] as string)).toEqual(JSON.parse(JSON.stringify(reply.metadata)));
    expect(reread).toHaveLength(0);
    expect(loads).not.toHaveBeenCalled();

    // the stored row is the reply; the caller's copy is its own, the kept one sealed
    const stored = (await store.loadMessages(session.id)).messages.find((m) => m.id === replyId);
    expect(stored).toEqual(reply);
    expect(Object.isFrozen(reply)).toBe(false);
    loopback.server.enqueue(...fixture('text-stream'));
    await manager.sendAndWait(session.id, 'third');
    const carried = requests.at(-1)?.messages.find((m) => m.id === replyId);
    expect(carried).toEqual(reply);
    expect(isSealedMessage(carried)).toBe(true);
  });

  it("within a tool loop, the next call carries the turn's own messages as stored, sealed", async () => {
    const target = make();
    targets.push(target);
    const store = await target.open();
    const requests: CanonicalRequest[] = [];
    const manager = managerOn(store, requests);
    const session = await manager.createSession({ workspace_path: '/w' });
    loopback.server.enqueue(...fixture('tool-call-stream'), ...fixture('text-stream'));
    const result = await manager.sendAndWait(session.id, 'Summarize README.md');
    expect(result.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    const second = requests[1]?.messages ?? [];
    expect(second.map((m) => m.id)).toEqual(result.messages.slice(0, 3).map((m) => m.id));
    expect(second.every((m) => isSealedMessage(m))).toBe(true);
    expect(second).toEqual(result.messages.slice(0, 3));
    // the caller's copies are its own
    expect(result.messages.some((m) => Object.isFrozen(m))).toBe(false);
  });
});

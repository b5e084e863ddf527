import { setTimeout as sleep } from 'node:timers/promises';
import { AnthropicAdapter } from '@yourtool/anthropic';
import type { CanonicalRequest, SessionStore } from '@yourtool/core';
import { defaultPriceTable } from '@yourtool/pricing';
import { ModelRegistry, parseRoutingConfig, Router } from '@yourtool/router';
import { describe, expect, it, vi } from 'vitest';
import { SessionManager, ToolRegistry } from '../src/index.js';
import { fixturesOf, loopbackForFile, requireFixture } from './helpers.js';
import { disposedAfterEach, storeTargets } from './stores.js';

/**
 * The history a manager keeps must describe exactly the revision it is kept under. The race:
 * another writer made the kept history stale; a turn loads the session again, and while it
 * writes, `swapModel()` of the same manager loads the session too. With a slow `loadMessages`
 * (300 ms) the swap reads the revision before the turn's writes and the messages after them;
 * kept under that older revision, the turn's own writes were added to it a second time, and
 * the next requests repeated a user message, a tool use and its result (a provider 400).
 */

const fixtures = fixturesOf('anthropic');
const fixture = (name: string) => requireFixture(fixtures, name);
const MODEL = 'anthropic:claude-sonnet-4-6';

const loopback = loopbackForFile();

const targets = disposedAfterEach();

/** A manager on `store` whose adapter records the message ids of every request it is given. */
function managerOn(store: SessionStore, requests: string[][]): SessionManager {
  const registry = ModelRegistry.fromYaml(
    `
adapters:
  anthropic: { type: anthropic, api_key: sk-ant-race-0000, base_url: ${loopback.server.url}, max_retries: 0 }
models:
  ${MODEL}: { adapter: anthropic, wire_name: claude-sonnet-4-6, aliases: [sonnet] }
`,
    { factories: { anthropic: (config, runtime) => new AnthropicAdapter(config, runtime) } },
  );
  const adapter = registry.adapterFor(MODEL);
  const stream = adapter.stream.bind(adapter);
  vi.spyOn(adapter, 'stream').mockImplementation((request, options) => {
    requests.push((request as CanonicalRequest).messages.map((m) => m.id));
    return stream(request, options);
  });
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
      // slow enough that the swap's load ends while the turn still runs
      run: async () => {
        await sleep(250);
        return '# Project Foo';
      },
    },
  ]);
  return new SessionManager({ store, router, pricing: defaultPriceTable(), tools });
}

describe.each(storeTargets())('the kept history under a race ($name)', ({ make }) => {
  it('swapModel() racing a turn after another writer: every request is the store view, the cost is the store figure', async () => {
    const target = make();
    targets.push(target);
    const store = await target.open();
    const load = store.loadMessages.bind(store);
    const loads = vi.spyOn(store, 'loadMessages').mockImplementation(async (id) => {
      await sleep(300);
      return load(id);
    });
    const requests: string[][] = [];
    const manager = managerOn(store, requests);
    const writer = managerOn(await target.open(), []);
    const session = await manager.createSession({ workspace_path: '/w' });
    const stats = async () => (await store.sessionStats(session.id)).total_cost_usd;

    loopback.server.enqueue(...fixture('text-stream'));
    const first = await manager.sendAndWait(session.id, 'first');
    expect(first.session_cost_usd).toBe(await stats());
    loopback.server.enqueue(...fixture('text-stream'));
    await writer.sendAndWait(session.id, 'from the other writer');

    // the turn reloads (the other writer made the kept history stale); the swap starts while
    // that load runs, so it reads the revision before the turn writes and the rows after
    loopback.server.enqueue(...fixture('tool-call-stream'), ...fixture('text-stream'));
    const turn = manager.sendAndWait(session.id, 'Summarize README.md');
    await sleep(100);
    const swap = manager.swapModel(session.id, 'sonnet');
    const [second] = await Promise.all([turn, swap]);
    // the turn's reload and the swap's (the first turn started from the history kept at creation)
    expect(loads.mock.calls.length).toBeGreaterThanOrEqual(2);
    expect(second.session_cost_usd).toBe(await stats());

    loopback.server.enqueue(...fixture('text-stream'));
    const third = await manager.sendAndWait(session.id, 'third');
    expect(third.session_cost_usd).toBe(await stats());
    loopback.server.enqueue(...fixture('text-stream'));
    const fourth = await manager.sendAndWait(session.id, 'fourth');
    expect(fourth.session_cost_usd).toBe(await stats());

    // each request holds the session as the store has it up to the request's last message
    const stored = (await load(session.id)).messages.map((m) => m.id);
    expect(new Set(stored).size).toBe(stored.length);
    expect(requests).toHaveLength(5);
    for (const ids of requests) {
      const last = stored.indexOf(ids.at(-1) as string);
      expect(last).toBeGreaterThanOrEqual(0);
      expect(ids).toEqual(stored.slice(0, last + 1));
    }
    // and on the wire: every tool use and every tool result appears once
    for (const request of loopback.server.requests) {
      const body = request.body as {
        messages: Array<{ content: Array<{ type: string; id?: string; tool_use_id?: string }> }>;
      };
      const blocks = body.messages.flatMap((m) => m.content);
      const uses = blocks.filter((b) => b.type === 'tool_use').map((b) => b.id);
      const results = blocks.filter((b) => b.type === 'tool_result').map((b) => b.tool_use_id);
      expect(new Set(uses).size).toBe(uses.length);
      expect(new Set(results).size).toBe(results.length);
    }
  });
});

// A traced turn reads its session as often as an untraced one (decision 0190): the read that
// names the model on the turn span's start is the one the turn opens with.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AnthropicAdapter } from '@yourtool/anthropic';
import { type LoopbackServer, startLoopbackServer } from '@yourtool/conformance';
import { createMemoryLogger } from '@yourtool/core';
import { defaultPriceTable } from '@yourtool/pricing';
import { ModelRegistry, parseRoutingConfig, Router } from '@yourtool/router';
import { openStore, type SqlSessionStore } from '@yourtool/store';
import { installOtel } from '@yourtool/testkit/otel';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { SessionManager } from '../src/index.js';
import { collect, fixturesOf, requireFixture } from './helpers.js';

let server: LoopbackServer;
let store: SqlSessionStore;
beforeAll(async () => {
  server = await startLoopbackServer();
  store = await openStore(`sqlite:${join(mkdtempSync(join(tmpdir(), 'otel-read-')), 's.db')}`);
});
afterAll(async () => {
  await store.close();
  await server.close();
});

/** The real store, its `getSession` calls counted. */
function counted(target: SqlSessionStore) {
  const reads = { count: 0 };
  const proxy = new Proxy(target, {
    get(t, key) {
      const value = Reflect.get(t, key, t);
      if (typeof value !== 'function') return value;
      if (key === 'getSession') {
        return (...args: unknown[]) => {
          reads.count++;
          return value.apply(t, args);
        };
      }
      return value.bind(t);
    },
  });
  return { proxy, reads };
}

/** The session reads of one turn on a session whose active model is set. */
async function readsOfTurn(): Promise<number> {
  const { proxy, reads } = counted(store);
  const registry = ModelRegistry.fromYaml(
    `
adapters:
  anthropic: { type: anthropic, api_key: sk-ant-read, base_url: ${server.url}, max_retries: 0 }
models:
  anthropic:claude-sonnet-4-6: { adapter: anthropic, wire_name: claude-sonnet-4-6, aliases: [sonnet] }
`,
    {
      factories: { anthropic: (config, runtime) => new AnthropicAdapter(config, runtime) },
      logger: createMemoryLogger(),
    },
  );
  const router = new Router({ registry, config: parseRoutingConfig('global_default: sonnet') });
  const manager = new SessionManager({ store: proxy, router, pricing: defaultPriceTable() });
  const session = await manager.createSession({ workspace_path: '/w' });
  server.enqueue(...requireFixture(fixturesOf('anthropic'), 'text-stream'));
  await collect(manager.send(session.id, 'first'));
  server.enqueue(...requireFixture(fixturesOf('anthropic'), 'text-stream'));
  const before = reads.count;
  const { error } = await collect(manager.send(session.id, 'second'));
  expect(error).toBeUndefined();
  return reads.count - before;
}

it('a traced turn reads its session no more often than an untraced one', async () => {
  const untraced = await readsOfTurn();
  const otel = installOtel();
  try {
    const traced = await readsOfTurn();
    expect(otel.spans().map((s) => s.name)).toContain('invoke_agent');
    expect(untraced).toBeGreaterThan(0);
    expect(traced).toBe(untraced);
  } finally {
    await otel.uninstall();
  }
});

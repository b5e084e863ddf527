import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AnthropicAdapter } from '@yourtool/anthropic';
import type { LoopbackServer } from '@yourtool/conformance';
import { createMemoryLogger } from '@yourtool/core';
import { defaultPriceTable } from '@yourtool/pricing';
import { ModelRegistry, parseRoutingConfig, Router } from '@yourtool/router';
import { openStore, type SqlSessionStore } from '@yourtool/store';
import { afterEach } from 'vitest';
import { SessionManager, type ToolHandler, ToolRegistry } from '../src/index.js';

/** A manager on a real SQLite file, Claude through the Anthropic SDK on the loopback server. */
export interface SqliteHarness {
  manager: SessionManager;
  store: SqlSessionStore;
  logger: ReturnType<typeof createMemoryLogger>;
  /** The SQLite URL, for a second connection that reads what was really written. */
  url: string;
}

const opened: SqlSessionStore[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((s) => s.close()));
});

/** Opens another connection to the harness's database, closed after the test. */
export async function reopen(h: SqliteHarness): Promise<SqlSessionStore> {
  const store = await openStore(h.url);
  opened.push(store);
  return store;
}

/**
 * A session manager with the given tools on a fresh SQLite file, routed to
 * `anthropic:claude-sonnet-4-6` served by `server` (no retries), logging to memory.
 */
export async function sqliteHarness(
  server: LoopbackServer,
  tools: ToolHandler[] = [],
): Promise<SqliteHarness> {
  const url = `sqlite:${join(mkdtempSync(join(tmpdir(), 'session-values-')), 'sessions.db')}`;
  const store = await openStore(url);
  opened.push(store);
  const logger = createMemoryLogger();
  const registry = ModelRegistry.fromYaml(
    `
adapters:
  anthropic:
    type: anthropic
    api_key: sk-ant-values-test-0000000
    base_url: ${server.url}
    max_retries: 0
models:
  anthropic:claude-sonnet-4-6: { adapter: anthropic, wire_name: claude-sonnet-4-6, aliases: [sonnet] }
`,
    {
      factories: { anthropic: (config, runtime) => new AnthropicAdapter(config, runtime) },
      logger,
    },
  );
  const router = new Router({ registry, config: parseRoutingConfig('global_default: sonnet') });
  const manager = new SessionManager({
    store,
    router,
    pricing: defaultPriceTable(),
    tools: new ToolRegistry(tools),
    logger,
  });
  return { manager, store, logger, url };
}

/** `read_file`, the tool the recorded `tool-call-stream` reply calls, returning `run`'s value. */
export function readFileTool(run: ToolHandler['run']): ToolHandler {
  return {
    definition: {
      name: 'read_file',
      description: 'Read a file from the workspace.',
      input_schema: {
        type: 'object',
        properties: { path: { type: 'string' } },
        required: ['path'],
      },
      side_effects: 'read',
    },
    run,
  };
}

import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  type ConformanceFixtures,
  type LoopbackServer,
  loadFixtureDirectory,
  startLoopbackServer,
} from '@yourtool/conformance';
import { type BusEvent, createMemoryLogger, validateHistory } from '@yourtool/core';
import { MemorySessionStore } from '@yourtool/core/memory-store';
import { RouterConfigError } from '@yourtool/router';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createRuntime, type Runtime, RuntimeSetupError } from '../src/index.js';

const anthropicFixtures: ConformanceFixtures = loadFixtureDirectory(
  fileURLToPath(new URL('../../anthropic/test/fixtures', import.meta.url)),
);
const openaiFixtures: ConformanceFixtures = loadFixtureDirectory(
  fileURLToPath(new URL('../../openai/test/fixtures', import.meta.url)),
);
const fixture = (name: string, from: ConformanceFixtures) => {
  const found = from[name];
  if (!found) throw new Error(`no fixture ${name}`);
  return found;
};

let server: LoopbackServer;
beforeAll(async () => {
  server = await startLoopbackServer();
});
afterAll(() => server.close());
const opened: Runtime[] = [];
afterEach(async () => {
  server.reset();
  await Promise.all(opened.splice(0).map((r) => r.close()));
});

/** models.yaml as an application writes it: keys and the endpoint from the environment. */
const MODELS = `
adapters:
  anthropic: { type: anthropic, api_key_env: TEST_ANTHROPIC_KEY, base_url_env: TEST_LLM_BASE_URL, max_retries: 0 }
  openai: { type: openai, api_key: "\${TEST_OPENAI_KEY}", base_url: "\${TEST_LLM_BASE_URL}", max_retries: 0 }
models:
  anthropic:claude-sonnet-4-6: { adapter: anthropic, wire_name: claude-sonnet-4-6, aliases: [sonnet] }
  openai:gpt-5: { adapter: openai, wire_name: gpt-5, aliases: [gpt5] }
`;

const env = () => ({
  TEST_ANTHROPIC_KEY: 'sk-ant-runtime-test-0000',
  TEST_OPENAI_KEY: 'sk-runtime-test-000000000',
  TEST_LLM_BASE_URL: server.url,
});

const readFile = {
  definition: {
    name: 'read_file',
    description: 'Read a UTF-8 text file from the workspace.',
    input_schema: {
      type: 'object' as const,
      properties: { path: { type: 'string' as const } },
      required: ['path'],
    },
    side_effects: 'read' as const,
  },
  run: async ({ path }: Record<string, unknown>) => `# Project Foo (${String(path)})`,
};

describe('createRuntime', () => {
  it('wires adapters by type from env-filled YAML: a tool loop on Claude, /model gpt5, priced and stored', async () => {
    const logger = createMemoryLogger();
    const runtime = await createRuntime({
      models: MODELS,
      routing: 'global_default: sonnet',
      tools: [readFile],
      env: env(),
      logger,
      retry: { baseDelayMs: 1, maxDelayMs: 2 },
    });
    opened.push(runtime);
    const decided: BusEvent[] = [];
    runtime.bus.on('route.decided', (e) => decided.push(e));
    expect(runtime.store).toBeInstanceOf(MemorySessionStore);

    server.enqueue(
      ...fixture('tool-call-stream', anthropicFixtures),
      ...fixture('text-stream', anthropicFixtures),
    );
    const session = await runtime.sessions.createSession({ workspace_path: '/work/foo' });
    const first = await runtime.sessions.sendAndWait(session.id, 'Summarize README.md');
    expect(first.end).toBe('end_turn');
    // the key came from the environment: the SDK sent it (the server records it redacted)
    expect(Object.values(server.requests[0]?.headers ?? {})).toContain('[REDACTED]');
    expect(server.requests[0]?.path).toBe('/v1/messages');

    await runtime.sessions.swapModel(session.id, 'gpt5');
    server.reset();
    server.enqueue(...fixture('text-stream', openaiFixtures));
    const second = await runtime.sessions.sendAndWait(session.id, 'Say hello.');
    expect(second.end).toBe('end_turn');
    expect(server.requests[0]?.path).toBe('/chat/completions');
    expect((server.requests[0]?.body as { model?: string } | undefined)?.model).toBe('gpt-5');

    const { messages } = await runtime.store.loadMessages(session.id);
    expect(validateHistory(messages).ok).toBe(true);
    const stats = await runtime.sessionStats(session.id);
    expect(stats.message_count).toBe(messages.length);
    expect(stats.last_model).toBe('openai:gpt-5');
    const costs = messages.flatMap((m) =>
      m.metadata.usage?.cost_usd ? [m.metadata.usage.cost_usd] : [],
    );
    expect(costs.length).toBe(3);
    expect(Number(await runtime.sessionCost(session.id))).toBeCloseTo(
      costs.reduce((sum, c) => sum + Number(c), 0),
      12,
    );
    expect(decided.length).toBe(3);
  });

  it('opens a SQLite store from a URL, reads both files, and defaults routing to the first model', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'runtime-'));
    writeFileSync(join(dir, 'models.yaml'), MODELS);
    const runtime = await createRuntime({
      models: { file: join(dir, 'models.yaml') },
      store: `sqlite:${join(dir, 'sessions.db')}`,
      env: env(),
    });
    opened.push(runtime);
    expect(runtime.store.constructor.name).toBe('SqlSessionStore');
    server.enqueue(...fixture('text-stream', anthropicFixtures));
    const session = await runtime.sessions.createSession({ workspace_path: '/work/foo' });
    const result = await runtime.sessions.sendAndWait(session.id, 'Say hello.');
    expect(result.messages.at(-1)?.metadata.model).toBe('anthropic:claude-sonnet-4-6');
    expect((await runtime.sessionStats(session.id)).message_count).toBe(2);
  });

  it('hands keptHistoryBytes to the session manager: 0 keeps no history, the default keeps it', async () => {
    const kept = async (options: { keptHistoryBytes?: number }) => {
      const runtime = await createRuntime({
        models: MODELS,
        store: new MemorySessionStore(),
        env: env(),
        ...options,
      });
      opened.push(runtime);
      server.enqueue(...fixture('text-stream', anthropicFixtures));
      const session = await runtime.sessions.createSession({ workspace_path: '/w' });
      await runtime.sessions.sendAndWait(session.id, 'Say hello.');
      return runtime.sessions.keptHistories;
    };
    expect(await kept({ keptHistoryBytes: 0 })).toEqual({ sessions: 0, bytes: 0 });
    const byDefault = await kept({});
    expect(byDefault.sessions).toBe(1);
    expect(byDefault.bytes).toBeGreaterThan(0);
  });

  it('names a missing environment variable and never quotes a key', async () => {
    const error = await createRuntime({
      models: MODELS,
      env: { TEST_ANTHROPIC_KEY: 'sk-ant-runtime-test-0000', TEST_LLM_BASE_URL: server.url },
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RouterConfigError);
    expect((error as Error).message).toMatch(/TEST_OPENAI_KEY/);
    expect((error as Error).message).toMatch(/adapters\.openai\.api_key/);
    expect((error as Error).message).not.toContain('sk-ant-runtime-test');
    const missingBase = await createRuntime({
      models: MODELS,
      env: { TEST_ANTHROPIC_KEY: 'k', TEST_OPENAI_KEY: 'k' },
    }).catch((e: unknown) => e);
    expect((missingBase as Error).message).toMatch(
      /adapters\.anthropic\.base_url_env.*TEST_LLM_BASE_URL/,
    );
  });

  it('refuses an adapter type it cannot find, and a routing file naming an unknown model', async () => {
    const unknownType = await createRuntime({
      models: `
adapters:
  cohere: { type: cohere, api_key: k }
models:
  cohere:command-r: { adapter: cohere, wire_name: command-r }
`,
    }).catch((e: unknown) => e);
    expect(unknownType).toBeInstanceOf(RuntimeSetupError);
    expect((unknownType as RuntimeSetupError).code).toBe('unknown_adapter_type');
    expect((unknownType as Error).message).toMatch(/"cohere".*factories/);
    const badRouting = await createRuntime({
      models: MODELS,
      routing: 'global_default: gtp5',
      env: env(),
    }).catch((e: unknown) => e);
    expect(badRouting).toBeInstanceOf(RouterConfigError);
    expect((badRouting as Error).message).toMatch(/global_default.*gtp5.*gpt5/);
  });

  it('takes a factory for a type of its own', async () => {
    const { AnthropicAdapter } = await import('@yourtool/anthropic');
    let built = 0;
    const runtime = await createRuntime({
      models: `
adapters:
  claude: { type: anthropic-proxy, api_key: k, base_url: "${server.url}", max_retries: 0 }
models:
  anthropic-proxy:claude-sonnet-4-6: { adapter: claude, wire_name: claude-sonnet-4-6 }
`,
      factories: {
        'anthropic-proxy': (config, rt) => {
          built++;
          return new AnthropicAdapter(config, rt);
        },
      },
    });
    opened.push(runtime);
    expect(built).toBe(1);
  });

  it('passes the compaction hook to the sessions: a history too long for the window is summarized away', async () => {
    const { dropOldestTurns } = await import('@yourtool/session');
    const runtime = await createRuntime({
      models: `
adapters:
  anthropic: { type: anthropic, api_key: k-runtime-0000, base_url: "${server.url}", max_retries: 0 }
models:
  anthropic:claude-sonnet-4-6: { adapter: anthropic, wire_name: claude-sonnet-4-6, aliases: [sonnet], capabilities: { max_context_tokens: 4000 } }
`,
      maxOutputTokens: 512,
      compaction: dropOldestTurns(),
    });
    opened.push(runtime);
    const session = await runtime.sessions.createSession({ workspace_path: '/w' });
    const kinds: string[] = [];
    for (let n = 1; n <= 4; n++) {
      server.enqueue(...fixture('text-stream', anthropicFixtures));
      for await (const event of runtime.sessions.send(
        session.id,
        `Part ${n}. ${'lorem ipsum dolor sit amet '.repeat(300)}`,
      )) {
        kinds.push(event.type);
      }
    }
    expect(kinds).toContain('session.compacted');
    const stored = await runtime.store.loadMessages(session.id);
    expect(stored.messages.filter((m) => m.role === 'user')).toHaveLength(4);
  });
});

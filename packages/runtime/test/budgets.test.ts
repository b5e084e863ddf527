import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  type LoopbackServer,
  loadFixtureDirectory,
  startLoopbackServer,
} from '@yourtool/conformance';
import { BudgetExceededError } from '@yourtool/core';
import { MemorySessionStore } from '@yourtool/core/memory-store';
import { SqlBudgetLedger, type SqlSessionStore } from '@yourtool/store';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createRuntime, type Runtime, RuntimeSetupError } from '../src/index.js';

const anthropic = loadFixtureDirectory(
  fileURLToPath(new URL('../../anthropic/test/fixtures', import.meta.url)),
);
const KEY = 'sk-ant-runtime-budget-0000';
const MODELS = (url: string) => `
adapters:
  anthropic: { type: anthropic, api_key: ${KEY}, base_url: ${url}, max_retries: 0 }
models:
  anthropic:claude-sonnet-4-6: { adapter: anthropic, wire_name: claude-sonnet-4-6, aliases: [sonnet] }
`;

let server: LoopbackServer;
beforeAll(async () => {
  server = await startLoopbackServer({ secrets: [KEY] });
});
afterAll(() => server.close());
const opened: Runtime[] = [];
afterEach(async () => {
  server.reset();
  await Promise.all(opened.splice(0).map((r) => r.close()));
});

/** Budgets set in the runtime's options, kept in the store's ledger (decision 0181). */
describe('createRuntime budgets', () => {
  it('sets the defined budgets on the store ledger and refuses a call past them', async () => {
    const store = `sqlite:${join(mkdtempSync(join(tmpdir(), 'rt-budget-')), 's.db')}`;
    const runtime = await createRuntime({
      models: MODELS(server.url),
      routing: 'global_default: sonnet',
      store,
      logger: false,
      budgets: { define: [{ scope: 'tenant:acme', limit_micros: 5n }] },
    });
    opened.push(runtime);
    const session = await runtime.sessions.createSession({ workspace_path: '/w', tenant: 'acme' });
    const failure = await runtime.sessions
      .sendAndWait(session.id, 'hello')
      .catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(BudgetExceededError);
    expect(failure).toMatchObject({ scope: 'tenant:acme', limitMicros: 5n });
    expect(server.requests).toHaveLength(0);
    // a session of another tenant is not covered
    server.enqueue(...(anthropic['text-stream'] ?? []));
    const other = await runtime.sessions.createSession({ workspace_path: '/w', tenant: 'beta' });
    await expect(runtime.sessions.sendAndWait(other.id, 'hello')).resolves.toBeDefined();
    expect(server.requests).toHaveLength(1);
  });

  it('asks for a ledger when the store keeps none', async () => {
    const failure = await createRuntime({
      models: MODELS(server.url),
      routing: 'global_default: sonnet',
      store: new MemorySessionStore(),
      logger: false,
      budgets: {},
    }).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(RuntimeSetupError);
    expect(failure).toMatchObject({ code: 'budgets_ledger_missing' });
  });

  it('reads a budgets: section of models.yaml into the store ledger', async () => {
    const store = `sqlite:${join(mkdtempSync(join(tmpdir(), 'rt-budget-')), 's.db')}`;
    const runtime = await createRuntime({
      models: `${MODELS(server.url)}
budgets:
  - { scope: user:ann, limit_micros: 5, window: { kind: day } }
  - { scope: global, limit_micros: '2000000', soft_limit_micros: 1000000 }
`,
      routing: 'global_default: sonnet',
      store,
      logger: false,
    });
    opened.push(runtime);
    const ledger = new SqlBudgetLedger(runtime.store as SqlSessionStore);
    const states = await ledger.listBudgets();
    expect(states.map((s) => [s.scope, s.limit_micros, s.soft_limit_micros])).toEqual(
      expect.arrayContaining([
        ['user:ann', 5n, null],
        ['global', 2_000_000n, 1_000_000n],
      ]),
    );
    expect(states).toHaveLength(2);
    const session = await runtime.sessions.createSession({ workspace_path: '/w', user: 'ann' });
    const failure = await runtime.sessions
      .sendAndWait(session.id, 'hello')
      .catch((e: unknown) => e);
    expect(failure).toMatchObject({ scope: 'user:ann', limitMicros: 5n });
    expect(server.requests).toHaveLength(0);
  });

  it.each([
    ['budgets: { scope: global }', 'models.yaml budgets: must be a list'],
    ['budgets: [{ limit_micros: 5 }]', 'models.yaml budgets[0].scope'],
    ['budgets: [{ scope: global, limit_micros: 1.5 }]', 'models.yaml budgets[0].limit_micros'],
    [
      'budgets: [{ scope: global, limit_micros: 5, window: { kind: week } }]',
      'models.yaml budgets[0].window.kind',
    ],
    ['budgets: [{ scope: global, limit_micros: 5, limit: 3 }]', 'models.yaml budgets[0].limit'],
  ])('refuses %s naming the path', async (section, message) => {
    const failure = await createRuntime({
      models: `${MODELS(server.url)}\n${section}\n`,
      routing: 'global_default: sonnet',
      store: new MemorySessionStore(),
      logger: false,
    }).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(RuntimeSetupError);
    expect((failure as Error).message).toContain(message);
  });
});

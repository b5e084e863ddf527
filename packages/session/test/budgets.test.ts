import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AnthropicAdapter } from '@yourtool/anthropic';
import { type LoopbackServer, startLoopbackServer } from '@yourtool/conformance';
import {
  BudgetExceededError,
  type BusEvent,
  createEventBus,
  createMemoryLogger,
  UnpricedModelError,
  usdToMicros,
} from '@yourtool/core';
import { defaultPriceTable, type PriceTable } from '@yourtool/pricing';
import { ModelRegistry, parseRoutingConfig, Router } from '@yourtool/router';
import { openStore, SqlBudgetLedger, type SqlSessionStore } from '@yourtool/store';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SessionManager } from '../src/index.js';
import { collect, fixturesOf, requireFixture } from './helpers.js';

const anthropic = fixturesOf('anthropic');
const KEY = 'sk-ant-budget-test-key-0123456789';

let server: LoopbackServer;
beforeAll(async () => {
  server = await startLoopbackServer({ secrets: [KEY] });
});
afterAll(() => server.close());
const stores: SqlSessionStore[] = [];
beforeEach(() => server.reset());
afterEach(async () => {
  await Promise.all(stores.splice(0).map((s) => s.close()));
});

/** A manager on the Anthropic SDK against the loopback server, with budgets on a SQLite ledger. */
async function harness(options: { pricing?: PriceTable; allowUnpriced?: boolean } = {}) {
  const store = await openStore(`sqlite:${join(mkdtempSync(join(tmpdir(), 'budget-')), 's.db')}`);
  stores.push(store);
  const registry = ModelRegistry.fromYaml(
    `
adapters:
  anthropic: { type: anthropic, api_key: ${KEY}, base_url: ${server.url}, max_retries: 0 }
models:
  anthropic:claude-sonnet-4-6: { adapter: anthropic, wire_name: claude-sonnet-4-6, aliases: [sonnet] }
`,
    {
      factories: { anthropic: (config, runtime) => new AnthropicAdapter(config, runtime) },
      logger: createMemoryLogger(),
    },
  );
  const router = new Router({ registry, config: parseRoutingConfig('global_default: sonnet') });
  const ledger = new SqlBudgetLedger(store);
  const events: BusEvent[] = [];
  const bus = createEventBus();
  for (const type of ['budget.reserved', 'budget.settled', 'budget.refused'] as const) {
    bus.on(type, (event) => void events.push(event));
  }
  const manager = new SessionManager({
    store,
    router,
    pricing: options.pricing ?? defaultPriceTable(),
    bus,
    budgets: { ledger, allowUnpriced: options.allowUnpriced ?? false },
  });
  return { manager, ledger, events, store };
}

/** Model calls reserve before they are sent and settle their exact cost (decision 0181). */
describe('session budgets', () => {
  it('reserves the worst case, settles the stored cost, and reports both on the bus', async () => {
    const h = await harness();
    await h.ledger.setBudget({ scope: 'user:ann', limit_micros: 1_000_000n });
    server.enqueue(...requireFixture(anthropic, 'text-stream'));
    const session = await h.manager.createSession({ workspace_path: '/w', user: 'ann' });
    const { error } = await collect(h.manager.send(session.id, 'hello'));
    expect(error).toBeUndefined();
    const [reply] = (await h.manager.history(session.id)).filter((m) => m.role === 'assistant');
    const cost = reply?.metadata.usage?.cost_usd;
    expect(cost).toMatch(/^\d/);
    const [state] = await h.ledger.listBudgets();
    expect(state).toMatchObject({ spent_micros: usdToMicros(cost as string), reserved_micros: 0n });
    const types = h.events.map((e) => e.type).filter((t) => t.startsWith('budget.'));
    expect(types).toEqual(['budget.reserved', 'budget.settled']);
    expect(server.requests).toHaveLength(1);
  });

  it('does not send a call the budget cannot admit', async () => {
    const h = await harness();
    await h.ledger.setBudget({ scope: 'tenant:acme', limit_micros: 10n });
    server.enqueue(...requireFixture(anthropic, 'text-stream'));
    const session = await h.manager.createSession({ workspace_path: '/w', tenant: 'acme' });
    const { error } = await collect(h.manager.send(session.id, 'hello'));
    expect(error).toBeInstanceOf(BudgetExceededError);
    expect(error).toMatchObject({ scope: 'tenant:acme', limitMicros: 10n, spentMicros: 0n });
    expect(server.requests).toHaveLength(0);
    expect(h.events.map((e) => e.type)).toContain('budget.refused');
  });

  it('a refusal first frees the expired reservations of a dead process, then admits', async () => {
    const h = await harness();
    await h.ledger.setBudget({ scope: 'global', limit_micros: 1_000_000n });
    // a process that reserved the whole budget and died
    await h.ledger.reserve({
      request_id: 'req_dead',
      scopes: ['global'],
      amount_micros: 1_000_000n,
      ttl_ms: 1,
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    server.enqueue(...requireFixture(anthropic, 'text-stream'));
    const session = await h.manager.createSession({ workspace_path: '/w' });
    expect((await collect(h.manager.send(session.id, 'hello'))).error).toBeUndefined();
    expect(server.requests).toHaveLength(1);
    const [state] = await h.ledger.listBudgets();
    expect(state?.reserved_micros).toBe(0n);
    expect(state?.spent_micros).toBeGreaterThan(0n);
  });

  it('refuses an unpriced model under a budget unless allowed', async () => {
    const unpriced: PriceTable = { ...defaultPriceTable(), models: {} };
    const h = await harness({ pricing: unpriced });
    await h.ledger.setBudget({ scope: 'global', limit_micros: 1_000_000n });
    const session = await h.manager.createSession({ workspace_path: '/w' });
    const { error } = await collect(h.manager.send(session.id, 'hello'));
    expect(error).toBeInstanceOf(UnpricedModelError);
    expect(server.requests).toHaveLength(0);
    const [state] = await h.ledger.listBudgets();
    expect(state?.reserved_micros).toBe(0n);

    const allowed = await harness({ pricing: unpriced, allowUnpriced: true });
    await allowed.ledger.setBudget({ scope: 'global', limit_micros: 1_000_000n });
    server.enqueue(...requireFixture(anthropic, 'text-stream'));
    const other = await allowed.manager.createSession({ workspace_path: '/w' });
    expect((await collect(allowed.manager.send(other.id, 'hello'))).error).toBeUndefined();
    expect(server.requests).toHaveLength(1);
  });

  it('a consumer that stops reading part-way still settles its reservation', async () => {
    const h = await harness();
    await h.ledger.setBudget({ scope: 'global', limit_micros: 1_000_000n });
    server.enqueue(...requireFixture(anthropic, 'text-stream'));
    const session = await h.manager.createSession({ workspace_path: '/w' });
    let seen = 0;
    for await (const event of h.manager.send(session.id, 'hello')) {
      seen += 1;
      // leaves at the first streamed delta without cancelling: the turn's early finish drives
      // the call to its end, which settles
      if (event.type === 'text.delta') break;
    }
    expect(seen).toBeGreaterThan(0);
    const types = h.events.map((e) => e.type);
    expect(types).toContain('budget.reserved');
    expect(types).toContain('budget.settled');
    const [state] = await h.ledger.listBudgets();
    expect(state?.reserved_micros).toBe(0n);
  });
});

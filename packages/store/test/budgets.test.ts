import { BudgetExceededError, UnpricedModelError, usdToMicros } from '@yourtool/core';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InvalidStoreInputError, SqlBudgetLedger, type SqlSessionStore } from '../src/index.js';
import { type Target, targets } from './helpers/targets.js';

/** Spend budgets in the store (decision 0181), on both dialects, through two connections. */
describe.each(targets())('budget ledger on $name', ({ make }) => {
  const target: Target = make();
  let store: SqlSessionStore;
  let other: SqlSessionStore;
  beforeAll(async () => {
    store = await target.open();
    other = await target.open();
  });
  afterAll(async () => {
    await store?.close();
    await other?.close();
    await target.dispose();
  });

  it('reserves, settles once by request id, and reads back spent, reserved and left', async () => {
    const here = new SqlBudgetLedger(store);
    const there = new SqlBudgetLedger(other);
    await here.setBudget({ scope: 'user:ann', limit_micros: 1_000n });
    const admission = await here.reserve({
      request_id: 'req_1',
      scopes: ['user:ann', 'tag:unbudgeted'],
      amount_micros: 700n,
      ttl_ms: 60_000,
    });
    expect(admission.reserved.map((s) => [s.scope, s.reserved_micros, s.left_micros])).toEqual([
      ['user:ann', 700n, 300n],
    ]);
    const refused = await there
      .reserve({ request_id: 'req_2', scopes: ['user:ann'], amount_micros: 301n, ttl_ms: 60_000 })
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(BudgetExceededError);
    expect(refused).toMatchObject({
      scope: 'user:ann',
      limitMicros: 1_000n,
      spentMicros: 0n,
      reservedMicros: 700n,
      requestedMicros: 301n,
    });
    expect(String((refused as Error).message)).toContain('limit $0.001000');
    const settled = await there.settle('req_1', 250n);
    expect(settled?.settled[0]).toMatchObject({ spent_micros: 250n, reserved_micros: 0n });
    expect(await here.settle('req_1', 999n)).toBeNull();
    const [state] = await there.listBudgets();
    expect(state).toMatchObject({ spent_micros: 250n, reserved_micros: 0n, left_micros: 750n });
  });

  it('takes all scopes or none', async () => {
    const ledger = new SqlBudgetLedger(store);
    await ledger.setBudget({ scope: 'tenant:a', limit_micros: 10_000n });
    await ledger.setBudget({ scope: 'tenant:b', limit_micros: 100n });
    await expect(
      ledger.reserve({
        request_id: 'req_ab',
        scopes: ['tenant:a', 'tenant:b'],
        amount_micros: 500n,
        ttl_ms: 1_000,
      }),
    ).rejects.toMatchObject({ code: 'budget_exceeded', scope: 'tenant:b' });
    const states = await ledger.listBudgets();
    expect(states.find((s) => s.scope === 'tenant:a')?.reserved_micros).toBe(0n);
    const rows = await sql`select * from budget_reservations where request_id = 'req_ab'`.execute(
      store.db,
    );
    expect(rows.rows).toEqual([]);
  });

  it('reports a soft limit crossing once per window', async () => {
    const ledger = new SqlBudgetLedger(store);
    await ledger.setBudget({ scope: 'tag:soft', limit_micros: 1_000n, soft_limit_micros: 500n });
    const first = { scopes: ['tag:soft'], amount_micros: 300n, ttl_ms: 60_000 };
    expect((await ledger.reserve({ ...first, request_id: 's1' })).soft_limit_crossed).toEqual([]);
    const crossing = await ledger.reserve({ ...first, request_id: 's2' });
    expect(crossing.soft_limit_crossed.map((s) => s.scope)).toEqual(['tag:soft']);
    expect((await ledger.reserve({ ...first, request_id: 's3' })).soft_limit_crossed).toEqual([]);
  });

  it('releases an expired reservation at zero, and only that one', async () => {
    let now = Date.UTC(2026, 0, 1);
    const ledger = new SqlBudgetLedger(store, { clock: () => now });
    await ledger.setBudget({ scope: 'session:crash', limit_micros: 1_000n });
    const base = { scopes: ['session:crash'], amount_micros: 600n };
    await ledger.reserve({ ...base, request_id: 'c1', ttl_ms: 1_000 });
    await ledger.reserve({ ...base, amount_micros: 100n, request_id: 'c2', ttl_ms: 60_000 });
    now += 5_000;
    expect(await ledger.releaseExpired()).toBe(1);
    expect(await ledger.releaseExpired()).toBe(0);
    const state = (await ledger.listBudgets()).find((s) => s.scope === 'session:crash');
    expect(state).toMatchObject({ spent_micros: 0n, reserved_micros: 100n });
    expect(await ledger.settle('c1', 600n)).toBeNull();
  });

  it('keys each window by its start: a new day is a new row, settled into its own window', async () => {
    let now = Date.UTC(2026, 4, 1, 23, 59, 59);
    const ledger = new SqlBudgetLedger(store, { clock: () => now });
    await ledger.setBudget({ scope: 'global-day', limit_micros: 1_000n, window: { kind: 'day' } });
    await ledger.reserve({
      request_id: 'd1',
      scopes: ['global-day'],
      amount_micros: 900n,
      ttl_ms: 60_000,
    });
    now += 2_000;
    const next = await ledger.reserve({
      request_id: 'd2',
      scopes: ['global-day'],
      amount_micros: 900n,
      ttl_ms: 60_000,
    });
    expect(next.reserved[0]?.window_start_ms).toBe(Date.UTC(2026, 4, 2));
    await ledger.settle('d1', 800n);
    const rows = await sql<{ window_start: unknown; spent_micros: unknown }>`select window_start,
      spent_micros from budget_windows where scope = 'global-day' order by window_start`.execute(
      store.db,
    );
    expect(rows.rows.map((r) => [Number(r.window_start), Number(r.spent_micros)])).toEqual([
      [Date.UTC(2026, 4, 1), 800],
      [Date.UTC(2026, 4, 2), 0],
    ]);
  });

  it('a window boundary crossed under load loses nothing', async () => {
    const ledgers = [new SqlBudgetLedger(store), new SqlBudgetLedger(other)];
    await ledgers[0]?.setBudget({
      scope: 'tag:load',
      limit_micros: 1_000_000n,
      window: { kind: 'period', seconds: 1 },
    });
    const calls = Array.from({ length: 60 }, async (_, i) => {
      const ledger = ledgers[i % 2] as SqlBudgetLedger;
      await new Promise((resolve) => setTimeout(resolve, (i % 15) * 100));
      const id = `load_${i}`;
      await ledger.reserve({
        request_id: id,
        scopes: ['tag:load'],
        amount_micros: 50n,
        ttl_ms: 60_000,
      });
      await new Promise((resolve) => setTimeout(resolve, 30));
      await ledger.settle(id, BigInt(i + 1));
    });
    await Promise.all(calls);
    const windows = await sql<{ spent: unknown; reserved: unknown; count: unknown }>`select
      sum(spent_micros) as spent, sum(reserved_micros) as reserved, count(*) as count
      from budget_windows where scope = 'tag:load'`.execute(store.db);
    const row = windows.rows[0];
    expect(Number(row?.count)).toBeGreaterThan(1);
    expect(BigInt(String(row?.spent))).toBe(BigInt((60 * 61) / 2));
    expect(BigInt(String(row?.reserved))).toBe(0n);
  });

  it('refuses bad input with a typed error naming the field', async () => {
    const ledger = new SqlBudgetLedger(store);
    await expect(ledger.setBudget({ scope: '', limit_micros: -1n })).rejects.toMatchObject({
      issues: [
        { path: 'scope', message: 'must be a non-empty string' },
        { path: 'limit_micros', message: 'must be a non-negative bigint' },
      ],
    });
    await expect(
      ledger.reserve({ request_id: 'x', scopes: [], amount_micros: 1n, ttl_ms: 0 }),
    ).rejects.toBeInstanceOf(InvalidStoreInputError);
    expect(await ledger.deleteBudget('no-such-scope')).toBe(false);
  });

  it('deletes a budget, after which its scope admits anything', async () => {
    const ledger = new SqlBudgetLedger(store);
    await ledger.setBudget({ scope: 'model:x/y', limit_micros: 0n });
    await expect(
      ledger.reserve({ request_id: 'm1', scopes: ['model:x/y'], amount_micros: 1n, ttl_ms: 1_000 }),
    ).rejects.toBeInstanceOf(BudgetExceededError);
    expect(await ledger.deleteBudget('model:x/y')).toBe(true);
    const admitted = await ledger.reserve({
      request_id: 'm2',
      scopes: ['model:x/y'],
      amount_micros: 1n,
      ttl_ms: 1_000,
    });
    expect(admitted.reserved).toEqual([]);
  });
});

describe('money helpers', () => {
  it('converts exact decimal dollars to micro-dollars, rounding fractions up', () => {
    expect(usdToMicros('1.5')).toBe(1_500_000n);
    expect(usdToMicros('0.0000015')).toBe(2n);
    expect(usdToMicros('0.000001')).toBe(1n);
    expect(usdToMicros('12')).toBe(12_000_000n);
    expect(() => usdToMicros('-1')).toThrow(RangeError);
    expect(new UnpricedModelError('x/y', 'global').code).toBe('budget_unpriced_model');
  });
});

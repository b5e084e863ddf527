import { join } from 'node:path';
import { openStore, SqlBudgetLedger } from '@yourtool/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run, workspace } from './helpers.js';

let dir: { dir: string; dispose(): void };
let store: string;

beforeAll(async () => {
  dir = workspace();
  store = `sqlite:${join(dir.dir, 'sessions.db')}`;
  const made = await run(['sessions', 'migrate', '--store', store, '--create'], dir.dir);
  expect(made.code).toBe(0);
});
afterAll(() => dir.dispose());

/** `yourtool budgets` (decision 0181): set, list with spent/reserved/left, reservations, delete. */
describe('yourtool budgets', () => {
  it('sets a budget, shows spent, reserved and left, and the reservations behind them', async () => {
    const set = await run(
      [
        'budgets',
        'set',
        'user:ann',
        '--limit',
        '1.5',
        '--soft',
        '1',
        '--window',
        'day',
        '--store',
        store,
      ],
      dir.dir,
    );
    expect(set.stderr).toBe('');
    expect(set.stdout).toBe('budget user:ann: limit $1.500000\n');
    const db = await openStore(store);
    try {
      const ledger = new SqlBudgetLedger(db);
      await ledger.reserve({
        request_id: 'req_a',
        scopes: ['user:ann'],
        amount_micros: 400_000n,
        ttl_ms: 60_000,
      });
      await ledger.reserve({
        request_id: 'req_b',
        scopes: ['user:ann'],
        amount_micros: 100_000n,
        ttl_ms: 60_000,
      });
      await ledger.settle('req_a', 250_000n);
    } finally {
      await db.close();
    }
    const listed = await run(['budgets', 'list', '--json', '--store', store], dir.dir);
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.stdout)).toEqual([
      {
        scope: 'user:ann',
        window_start: `${new Date().toISOString().slice(0, 10)}T00:00:00.000Z`,
        limit_usd: '1.500000',
        soft_limit_usd: '1.000000',
        spent_usd: '0.250000',
        reserved_usd: '0.100000',
        left_usd: '1.150000',
      },
    ]);
    const text = await run(['budgets', '--store', store], dir.dir);
    expect(text.stdout).toMatch(
      /user:ann\s+\S+\s+\$1\.500000\s+\$1\.000000\s+\$0\.250000\s+\$0\.100000\s+\$1\.150000/,
    );
    const reservations = await run(['budgets', 'reservations', '--store', store], dir.dir);
    expect(reservations.stdout).toMatch(/req_a\s+user:ann\s+\$0\.400000\s+\$0\.250000/);
    expect(reservations.stdout).toMatch(/req_b\s+user:ann\s+\$0\.100000\s+open/);
  });

  it('refuses a bad amount or window, naming the flag, and deletes a budget', async () => {
    const bad = await run(['budgets', 'set', 'global', '--limit', '-3', '--store', store], dir.dir);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/--limit must be a decimal amount of dollars/);
    const window = await run(
      ['budgets', 'set', 'global', '--limit', '3', '--window', 'weekly', '--store', store],
      dir.dir,
    );
    expect(window.stderr).toMatch(/--window must be day, month or a number of seconds/);
    const deleted = await run(['budgets', 'delete', 'user:ann', '--store', store], dir.dir);
    expect(deleted.stdout).toBe('deleted budget user:ann\n');
    const again = await run(['budgets', 'delete', 'user:ann', '--store', store], dir.dir);
    expect(again.stderr).toMatch(/no budget user:ann/);
  });
});

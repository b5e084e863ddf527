import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqlBudgetLedger, type SqlSessionStore } from '../src/index.js';
import { POSTGRES_URL, postgresTarget, sqliteTarget } from './helpers/targets.js';

const HOOKS = fileURLToPath(new URL('./fixtures/ts-hooks.mjs', import.meta.url));
const SPENDER = fileURLToPath(new URL('./fixtures/budget-spender.ts', import.meta.url));

interface Spender {
  lines: string[];
  exited: Promise<number | null>;
  kill(): void;
  stderr(): string;
}

/** Starts a spender process (test/fixtures/budget-spender.ts) and collects its output lines. */
function spend(where: { url: string; schema: string }, name: string, count: number, mode: string) {
  const args = [where.url, where.schema, name, String(count), '1000', mode, '1500'];
  const child = spawn(process.execPath, ['--import', HOOKS, SPENDER, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const spender: Spender = {
    lines: [],
    exited: new Promise((resolve) => child.on('exit', (code) => resolve(code))),
    kill: () => child.kill('SIGKILL'),
    stderr: () => stderr,
  };
  let buffered = '';
  let stderr = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    buffered += chunk;
    const lines = buffered.split('\n');
    buffered = lines.pop() ?? '';
    spender.lines.push(...lines);
  });
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => {
    stderr += chunk;
  });
  return spender;
}

async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const sqlite = sqliteTarget();
const postgres = postgresTarget();
const dialects = [
  { name: 'sqlite', target: sqlite, where: { url: `sqlite:${sqlite.file}`, schema: '-' } },
  { name: 'postgres', target: postgres, where: { url: POSTGRES_URL, schema: postgres.schema } },
];

/**
 * Budgets across real processes (issue 48): two processes race 50 calls at one budget; a
 * killed process's reservations come back after they expire.
 */
describe.each(dialects)('budgets across processes on $name', ({ target, where }) => {
  let store: SqlSessionStore;
  beforeAll(async () => {
    store = await target.open();
  });
  afterAll(async () => {
    await store?.close();
    await target.dispose();
  });

  it('50 concurrent calls from 2 processes: admitted worst cases never pass the limit', async () => {
    const ledger = new SqlBudgetLedger(store);
    // room for exactly 20 worst cases of 1000 micro-dollars; each call settles at its worst case
    await ledger.setBudget({ scope: 'global', limit_micros: 20_000n });
    const spenders = [spend(where, 'p1', 25, 'settle'), spend(where, 'p2', 25, 'settle')];
    const codes = await Promise.all(spenders.map((s) => s.exited));
    expect(codes, spenders.map((s) => s.stderr()).join('\n')).toEqual([0, 0]);
    const lines = spenders.flatMap((s) => s.lines);
    const admitted = lines.filter((l) => l.startsWith('admitted ')).length;
    const refused = lines.filter((l) => l.startsWith('refused ')).length;
    expect(admitted + refused).toBe(50);
    expect(admitted).toBe(20);
    const [state] = (await ledger.listBudgets()).filter((s) => s.scope === 'global');
    expect(state).toMatchObject({ spent_micros: 20_000n, reserved_micros: 0n });
    const rows = await sql<{ total: unknown; count: unknown }>`select sum(actual_micros) as total,
      count(*) as count from budget_reservations where scope = 'global'`.execute(store.db);
    expect(BigInt(String(rows.rows[0]?.total))).toBe(state?.spent_micros);
    expect(Number(rows.rows[0]?.count)).toBe(20);
  });

  it("a killed process's reservations are released once they expire", async () => {
    const ledger = new SqlBudgetLedger(store);
    // the spender also reserves against `global`, whose budget the race above spent
    await ledger.deleteBudget('global');
    await ledger.setBudget({ scope: 'user:p3', limit_micros: 3_000n });
    const spender = spend(where, 'p3', 5, 'hang');
    await until(() => spender.lines.includes('held'), 'the spender to hold its reservations');
    expect(spender.lines.filter((l) => l.startsWith('admitted ')).length).toBe(3);
    spender.kill();
    await spender.exited;
    const held = (await ledger.listBudgets()).find((s) => s.scope === 'user:p3');
    expect(held).toMatchObject({ reserved_micros: 3_000n, left_micros: 0n });
    expect(await ledger.releaseExpired()).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, 1_600));
    expect(await ledger.releaseExpired()).toBe(3);
    const released = (await ledger.listBudgets()).find((s) => s.scope === 'user:p3');
    expect(released).toMatchObject({ spent_micros: 0n, reserved_micros: 0n, left_micros: 3_000n });
  });
});

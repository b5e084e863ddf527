import {
  type BudgetAdmission,
  type BudgetDefinition,
  BudgetExceededError,
  type BudgetLedger,
  type BudgetReservationRequest,
  type BudgetScope,
  type BudgetSettlement,
  type BudgetState,
  type BudgetWindow,
  budgetWindowStart,
} from '@yourtool/core';
import { type Kysely, sql } from 'kysely';
import { InvalidStoreInputError } from './errors.js';
import type { SqlSessionStore } from './store.js';

interface BudgetRow {
  scope: string;
  limit_micros: unknown;
  soft_limit_micros: unknown;
  window_kind: string | null;
  window_seconds: number | null;
}

interface WindowRow {
  spent_micros: unknown;
  reserved_micros: unknown;
  soft_crossed?: unknown;
}

interface ReservationRow {
  scope: string;
  window_start: unknown;
  amount_micros: unknown;
}

/** One reservation row: a model call's worst case against one scope, and what it settled at. */
export interface BudgetReservationRecord {
  request_id: string;
  scope: string;
  window_start_ms: number;
  amount_micros: bigint;
  /** Null while the call runs. */
  actual_micros: bigint | null;
  expires_at_ms: number;
  settled_at_ms: number | null;
}

/** The clock the ledger reads, epoch milliseconds; tests move it across window boundaries. */
export type LedgerClock = () => number;

/**
 * Spend budgets in the session database (decision 0181), shared by every process using it:
 * core's {@link BudgetLedger} on SQLite and PostgreSQL. Each scope's admission is one
 * conditional `UPDATE … WHERE spent + reserved + amount <= limit`, so concurrent reservations
 * never pass a limit together; all scopes of a call are reserved in one transaction, in scope
 * order (no deadlocks), or none are.
 */
export class SqlBudgetLedger implements BudgetLedger {
  readonly #db: Kysely<unknown>;
  readonly #clock: LedgerClock;
  readonly #store: SqlSessionStore;

  /** Uses the store's connection (its migration 0005 made the tables). */
  constructor(store: SqlSessionStore, options: { clock?: LedgerClock } = {}) {
    this.#db = store.db as unknown as Kysely<unknown>;
    this.#clock = options.clock ?? Date.now;
    this.#store = store;
  }

  /** One of the store's write transactions (SQLite: `BEGIN IMMEDIATE` behind the file lock). */
  #write<T>(section: (trx: Kysely<unknown>) => Promise<T>): Promise<T> {
    return this.#store.writeTransaction((trx) => section(trx as unknown as Kysely<unknown>));
  }

  async setBudget(definition: BudgetDefinition): Promise<void> {
    const row = definitionRow(definition);
    await sql`insert into budgets (scope, limit_micros, soft_limit_micros, window_kind, window_seconds)
      values (${row.scope}, ${big(row.limit)}, ${nullableBig(row.soft)}, ${row.kind}, ${row.seconds})
      on conflict (scope) do update set limit_micros = excluded.limit_micros,
        soft_limit_micros = excluded.soft_limit_micros, window_kind = excluded.window_kind,
        window_seconds = excluded.window_seconds`.execute(this.#db);
  }

  async deleteBudget(scope: BudgetScope): Promise<boolean> {
    return this.#write(async (trx) => {
      await sql`delete from budget_windows where scope = ${scope}`.execute(trx);
      const result = await sql`delete from budgets where scope = ${scope}`.execute(trx);
      return Number(result.numAffectedRows ?? 0n) > 0;
    });
  }

  async listBudgets(): Promise<BudgetState[]> {
    const budgets = await sql<BudgetRow>`select * from budgets order by scope`.execute(this.#db);
    const now = this.#clock();
    const states: BudgetState[] = [];
    for (const budget of budgets.rows) {
      const start = budgetWindowStart(windowOf(budget), now);
      const found = await sql<WindowRow>`select spent_micros, reserved_micros from budget_windows
        where scope = ${budget.scope} and window_start = ${start}`.execute(this.#db);
      states.push(stateOf(budget, start, found.rows[0]));
    }
    return states;
  }

  async reserve(request: BudgetReservationRequest): Promise<BudgetAdmission> {
    checkReservation(request);
    const now = this.#clock();
    const scopes = [...new Set(request.scopes)].sort();
    return this.#write(async (trx) => {
      const admission: BudgetAdmission = {
        request_id: request.request_id,
        reserved: [],
        soft_limit_crossed: [],
      };
      const budgets = await budgetsFor(trx, scopes);
      for (const budget of budgets) {
        const start = budgetWindowStart(windowOf(budget), now);
        const state = await reserveOne(trx, budget, start, request.amount_micros);
        await sql`insert into budget_reservations
          (request_id, scope, window_start, amount_micros, expires_at)
          values (${request.request_id}, ${budget.scope}, ${start}, ${big(request.amount_micros)},
            ${now + request.ttl_ms})`.execute(trx);
        admission.reserved.push(state);
        if (await crossedSoftLimit(trx, state)) admission.soft_limit_crossed.push(state);
      }
      return admission;
    });
  }

  async settle(requestId: string, actualMicros: bigint): Promise<BudgetSettlement | null> {
    if (actualMicros < 0n) {
      throw new InvalidStoreInputError('settlement', [
        { path: 'actual_micros', message: `must not be negative, got ${actualMicros}` },
      ]);
    }
    return this.#write((trx) => settleIn(trx, requestId, actualMicros, this.#clock()));
  }

  /** The latest reservations, newest first: what `yourtool budgets reservations` shows. */
  async reservations(limit = 50): Promise<BudgetReservationRecord[]> {
    const rows = await sql<Record<string, unknown>>`select request_id, scope, window_start,
      amount_micros, actual_micros, expires_at, settled_at from budget_reservations
      order by expires_at desc limit ${limit}`.execute(this.#db);
    return rows.rows.map((r) => ({
      request_id: String(r.request_id),
      scope: String(r.scope),
      window_start_ms: Number(r.window_start),
      amount_micros: toBig(r.amount_micros),
      actual_micros: r.actual_micros == null ? null : toBig(r.actual_micros),
      expires_at_ms: Number(r.expires_at),
      settled_at_ms: r.settled_at == null ? null : Number(r.settled_at),
    }));
  }

  async releaseExpired(): Promise<number> {
    const now = this.#clock();
    const expired = await sql<{ request_id: string }>`select distinct request_id
      from budget_reservations where settled_at is null and expires_at < ${now}`.execute(this.#db);
    let released = 0;
    for (const { request_id } of expired.rows) {
      const settled = await this.#write((trx) => settleIn(trx, request_id, 0n, now));
      if (settled) released++;
    }
    return released;
  }
}

/** The budgets among `scopes`, in scope order (every process locks rows in the same order). */
async function budgetsFor(trx: Kysely<unknown>, scopes: readonly string[]): Promise<BudgetRow[]> {
  if (scopes.length === 0) return [];
  const rows = await sql<BudgetRow>`select * from budgets
    where scope in (${sql.join(scopes)}) order by scope`.execute(trx);
  return rows.rows;
}

/** Reserves `amount` on one budget's window with one conditional statement, or throws. */
async function reserveOne(
  trx: Kysely<unknown>,
  budget: BudgetRow,
  start: number,
  amount: bigint,
): Promise<BudgetState> {
  await sql`insert into budget_windows (scope, window_start) values (${budget.scope}, ${start})
    on conflict (scope, window_start) do nothing`.execute(trx);
  const limit = toBig(budget.limit_micros);
  // The check and the increment are one statement: PostgreSQL re-evaluates the WHERE clause
  // on the newest row version after waiting for a concurrent updater; SQLite has one writer.
  const updated = await sql<WindowRow>`update budget_windows
    set reserved_micros = reserved_micros + ${big(amount)}
    where scope = ${budget.scope} and window_start = ${start}
      and spent_micros + reserved_micros + ${big(amount)} <= ${big(limit)}
    returning spent_micros, reserved_micros`.execute(trx);
  const row = updated.rows[0];
  if (row) return stateOf(budget, start, row);
  const current = await sql<WindowRow>`select spent_micros, reserved_micros from budget_windows
    where scope = ${budget.scope} and window_start = ${start}`.execute(trx);
  throw new BudgetExceededError({
    scope: budget.scope,
    limitMicros: limit,
    spentMicros: toBig(current.rows[0]?.spent_micros ?? 0),
    reservedMicros: toBig(current.rows[0]?.reserved_micros ?? 0),
    requestedMicros: amount,
  });
}

/** Marks the window's soft limit crossed, once: true only for the call that crossed it. */
async function crossedSoftLimit(trx: Kysely<unknown>, state: BudgetState): Promise<boolean> {
  if (state.soft_limit_micros === null) return false;
  if (state.spent_micros + state.reserved_micros < state.soft_limit_micros) return false;
  const result = await sql`update budget_windows set soft_crossed = 1
    where scope = ${state.scope} and window_start = ${state.window_start_ms}
      and soft_crossed = 0`.execute(trx);
  return Number(result.numAffectedRows ?? 0n) > 0;
}

/** Settles one request's open reservations (all its scopes), once; null when none is open. */
async function settleIn(
  trx: Kysely<unknown>,
  requestId: string,
  actual: bigint,
  now: number,
): Promise<BudgetSettlement | null> {
  // The conditional update claims the reservation: a second settle finds nothing open.
  const claimed = await sql<ReservationRow>`update budget_reservations
    set settled_at = ${now}, actual_micros = ${big(actual)}
    where request_id = ${requestId} and settled_at is null
    returning scope, window_start, amount_micros`.execute(trx);
  if (claimed.rows.length === 0) return null;
  const settled: BudgetState[] = [];
  const ordered = [...claimed.rows].sort((a, b) => a.scope.localeCompare(b.scope));
  for (const reservation of ordered) {
    const start = Number(reservation.window_start);
    const updated = await sql<WindowRow>`update budget_windows
      set reserved_micros = reserved_micros - ${big(toBig(reservation.amount_micros))},
          spent_micros = spent_micros + ${big(actual)}
      where scope = ${reservation.scope} and window_start = ${start}
      returning spent_micros, reserved_micros`.execute(trx);
    const budget = await sql<BudgetRow>`select * from budgets
      where scope = ${reservation.scope}`.execute(trx);
    const row = budget.rows[0];
    if (row && updated.rows[0]) settled.push(stateOf(row, start, updated.rows[0]));
  }
  return { request_id: requestId, actual_micros: actual, settled };
}

function windowOf(row: BudgetRow): BudgetWindow | undefined {
  if (row.window_kind === 'day' || row.window_kind === 'month') return { kind: row.window_kind };
  if (row.window_kind === 'period') return { kind: 'period', seconds: Number(row.window_seconds) };
  return undefined;
}

function stateOf(budget: BudgetRow, start: number, row: WindowRow | undefined): BudgetState {
  const limit = toBig(budget.limit_micros);
  const spent = toBig(row?.spent_micros ?? 0);
  const reserved = toBig(row?.reserved_micros ?? 0);
  const left = limit - spent - reserved;
  return {
    scope: budget.scope,
    window_start_ms: start,
    limit_micros: limit,
    soft_limit_micros: budget.soft_limit_micros == null ? null : toBig(budget.soft_limit_micros),
    spent_micros: spent,
    reserved_micros: reserved,
    left_micros: left > 0n ? left : 0n,
  };
}

/** Checks a definition; bad input names the field. */
function definitionRow(definition: BudgetDefinition) {
  const issues: Array<{ path: string; message: string }> = [];
  if (typeof definition.scope !== 'string' || definition.scope === '') {
    issues.push({ path: 'scope', message: 'must be a non-empty string' });
  }
  if (typeof definition.limit_micros !== 'bigint' || definition.limit_micros < 0n) {
    issues.push({ path: 'limit_micros', message: 'must be a non-negative bigint' });
  }
  const soft = definition.soft_limit_micros;
  if (soft !== undefined && (typeof soft !== 'bigint' || soft < 0n)) {
    issues.push({ path: 'soft_limit_micros', message: 'must be a non-negative bigint' });
  }
  const window = definition.window;
  if (window?.kind === 'period' && !(Number.isSafeInteger(window.seconds) && window.seconds > 0)) {
    issues.push({ path: 'window.seconds', message: 'must be a positive integer' });
  }
  if (issues.length > 0) throw new InvalidStoreInputError('budget', issues);
  return {
    scope: definition.scope,
    limit: definition.limit_micros,
    soft: soft ?? null,
    kind: window?.kind ?? null,
    seconds: window?.kind === 'period' ? window.seconds : null,
  };
}

function checkReservation(request: BudgetReservationRequest): void {
  const issues: Array<{ path: string; message: string }> = [];
  if (typeof request.request_id !== 'string' || request.request_id === '') {
    issues.push({ path: 'request_id', message: 'must be a non-empty string' });
  }
  if (typeof request.amount_micros !== 'bigint' || request.amount_micros < 0n) {
    issues.push({ path: 'amount_micros', message: 'must be a non-negative bigint' });
  }
  if (!(Number.isSafeInteger(request.ttl_ms) && request.ttl_ms > 0)) {
    issues.push({ path: 'ttl_ms', message: 'must be a positive integer of milliseconds' });
  }
  if (issues.length > 0) throw new InvalidStoreInputError('reservation', issues);
}

/** Both drivers take a bigint's decimal text for a BIGINT/INTEGER parameter, exactly. */
function big(value: bigint) {
  return sql`cast(${value.toString()} as bigint)`;
}

function nullableBig(value: bigint | null) {
  return value === null ? null : big(value);
}

/** A BIGINT as the driver returns it (number on SQLite, string on PostgreSQL) to a bigint. */
function toBig(value: unknown): bigint {
  if (typeof value === 'bigint') return value;
  if (typeof value === 'number') return BigInt(value);
  return BigInt(String(value));
}

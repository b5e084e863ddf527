import { microsToUsd } from './budget-events.js';
import { YourtoolError } from './errors.js';

// Spend budgets (issue 48, decision 0181): the interface router and session reach the ledger
// through, so neither imports the store. Money is integer micro-dollars (`bigint`), never floats.

/**
 * What a budget covers: `global`, `session:<id>`, `user:<id>`, `tenant:<id>`, `tag:<tag>`,
 * `provider:<provider>` or `model:<provider>/<model>`.
 */
export type BudgetScope = string;

/**
 * A budget's window. `day` and `month` start at UTC midnight and the first of the month;
 * `period` is a fixed length of `seconds` counted from the Unix epoch. The window's start is
 * part of the budget's key, so a new window is a new row and nothing is ever reset.
 */
export type BudgetWindow =
  | { kind: 'day' }
  | { kind: 'month' }
  | { kind: 'period'; seconds: number };

/** A budget as set in config or through the API. */
export interface BudgetDefinition {
  /** What it covers. */
  scope: BudgetScope;
  /** The hard limit in micro-dollars: a call that would pass it is not sent. */
  limit_micros: bigint;
  /** Crossing it only warns (a `budget.soft_limit_crossed` event), once per window. */
  soft_limit_micros?: bigint | undefined;
  /** Absent: one window for all time. */
  window?: BudgetWindow | undefined;
}

/** A budget read back for its current window. */
export interface BudgetState {
  scope: BudgetScope;
  /** The window's start, epoch milliseconds (0 for a budget without a window). */
  window_start_ms: number;
  limit_micros: bigint;
  soft_limit_micros: bigint | null;
  /** Settled spend in the window. */
  spent_micros: bigint;
  /** Worst cases reserved by calls still running. */
  reserved_micros: bigint;
  /** `limit − spent − reserved`, never below zero. */
  left_micros: bigint;
}

/** A reservation of one model call's worst-case cost against every budget covering it. */
export interface BudgetReservationRequest {
  /** The call's request id: settlement is idempotent by it. */
  request_id: string;
  /** The scopes the call falls under; those without a budget are skipped. */
  scopes: readonly BudgetScope[];
  /** The worst-case cost (see `estimateWorstCaseMicros` in the router). */
  amount_micros: bigint;
  /** How long the reservation holds if its process dies before settling, in milliseconds. */
  ttl_ms: number;
}

/** What admission did. */
export interface BudgetAdmission {
  request_id: string;
  /** The budgets the reservation was taken from, after it. */
  reserved: BudgetState[];
  /** Budgets whose soft limit this reservation crossed for the first time in the window. */
  soft_limit_crossed: BudgetState[];
}

/** What settling did; null from `settle` when the request was already settled or unknown. */
export interface BudgetSettlement {
  request_id: string;
  /** The exact cost recorded, micro-dollars. */
  actual_micros: bigint;
  /** The budgets after settling. */
  settled: BudgetState[];
}

/**
 * The spend ledger the store implements (SQLite and PostgreSQL alike). `reserve` is atomic per
 * scope: of concurrent reservations, those that would pass a limit fail with
 * {@link BudgetExceededError} and take nothing.
 */
export interface BudgetLedger {
  /** Creates or replaces a budget; spend already recorded stays. */
  setBudget(definition: BudgetDefinition): Promise<void>;
  /** Removes a budget and its windows; false when there was none. */
  deleteBudget(scope: BudgetScope): Promise<boolean>;
  /** Every budget, in its current window. */
  listBudgets(): Promise<BudgetState[]>;
  /** Reserves or throws {@link BudgetExceededError}; all scopes or none. */
  reserve(request: BudgetReservationRequest): Promise<BudgetAdmission>;
  /** Replaces a reservation by the exact cost; null when already settled or unknown. */
  settle(requestId: string, actualMicros: bigint): Promise<BudgetSettlement | null>;
  /** Settles at zero every reservation whose process died (expired); returns how many. */
  releaseExpired(): Promise<number>;
}

/** A call the budget cannot admit: it was not sent. Names the scope, limit, spent and reserved. */
export class BudgetExceededError extends YourtoolError {
  /** The scope whose budget refused. */
  readonly scope: BudgetScope;
  /** Its limit, micro-dollars. */
  readonly limitMicros: bigint;
  /** Settled spend in the window, micro-dollars. */
  readonly spentMicros: bigint;
  /** Reserved by running calls, micro-dollars. */
  readonly reservedMicros: bigint;
  /** What this call asked for, micro-dollars. */
  readonly requestedMicros: bigint;

  constructor(fields: {
    scope: BudgetScope;
    limitMicros: bigint;
    spentMicros: bigint;
    reservedMicros: bigint;
    requestedMicros: bigint;
  }) {
    super(
      'budget_exceeded',
      `budget ${fields.scope} cannot admit ${formatMicros(fields.requestedMicros)}: limit ` +
        `${formatMicros(fields.limitMicros)}, spent ${formatMicros(fields.spentMicros)}, ` +
        `reserved ${formatMicros(fields.reservedMicros)}`,
    );
    this.scope = fields.scope;
    this.limitMicros = fields.limitMicros;
    this.spentMicros = fields.spentMicros;
    this.reservedMicros = fields.reservedMicros;
    this.requestedMicros = fields.requestedMicros;
  }
}

/** A model without a price under a budget that covers it (decision 0181: refused by default). */
export class UnpricedModelError extends YourtoolError {
  /** The model, `provider/model`. */
  readonly model: string;
  /** The budget that refused it. */
  readonly scope: BudgetScope;

  constructor(model: string, scope: BudgetScope) {
    super(
      'budget_unpriced_model',
      `model ${model} has no price, so budget ${scope} cannot bound its cost; price it or allow unpriced models`,
    );
    this.model = model;
    this.scope = scope;
  }
}

const DECIMAL = /^(\d+)(?:\.(\d+))?$/;

/**
 * Converts a non-negative decimal dollar string (`"0.0123"`) to micro-dollars, rounding any
 * fraction of a micro-dollar up so a reservation or a charge is never under-counted.
 */
export function usdToMicros(usd: string): bigint {
  const match = DECIMAL.exec(usd);
  if (!match) throw new RangeError(`not a non-negative decimal dollar amount: ${usd}`);
  const whole = BigInt(match[1] ?? '0') * 1_000_000n;
  const fraction = match[2] ?? '';
  const head = BigInt((fraction.slice(0, 6) || '0').padEnd(6, '0'));
  const roundUp = /[1-9]/.test(fraction.slice(6)) ? 1n : 0n;
  return whole + head + roundUp;
}

/** Formats micro-dollars as an exact dollar string (`1234567n` → `"$1.234567"`). */
export function formatMicros(micros: bigint): string {
  const usd = microsToUsd(micros);
  return usd.startsWith('-') ? `-$${usd.slice(1)}` : `$${usd}`;
}

/** The start of the window containing `nowMs`, epoch milliseconds (0 without a window). */
export function budgetWindowStart(window: BudgetWindow | undefined, nowMs: number): number {
  if (window === undefined) return 0;
  const date = new Date(nowMs);
  switch (window.kind) {
    case 'day':
      return Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate());
    case 'month':
      return Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1);
    case 'period': {
      const length = window.seconds * 1000;
      return Math.floor(nowMs / length) * length;
    }
  }
}

// Bus events of spend budgets (decision 0181). Amounts are exact decimal USD strings
// (`"0.001200"`), so events stay JSON-safe without floats.

/** One budget as an event reports it. */
export interface BudgetEventScope {
  scope: string;
  /** The window's start, epoch milliseconds (0 without a window). */
  window_start_ms: number;
  limit_usd: string;
  spent_usd: string;
  reserved_usd: string;
}

/** A model call's worst case was reserved against every budget covering it. */
export interface BudgetReservedEvent {
  type: 'budget.reserved';
  request_id: string;
  session_id: string;
  model: string;
  amount_usd: string;
  budgets: BudgetEventScope[];
  timestamp: string;
}

/** A call ended and its reservation was replaced by the exact cost. */
export interface BudgetSettledEvent {
  type: 'budget.settled';
  request_id: string;
  session_id: string;
  model: string;
  actual_usd: string;
  budgets: BudgetEventScope[];
  timestamp: string;
}

/** A call the budget could not admit; it was not sent. */
export interface BudgetRefusedEvent {
  type: 'budget.refused';
  request_id: string;
  session_id: string;
  model: string;
  scope: string;
  /** `exceeded` (limit) or `unpriced` (no price under a budget). */
  reason: 'exceeded' | 'unpriced';
  message: string;
  timestamp: string;
}

/** A reservation crossed a budget's soft limit (once per window); nothing was refused. */
export interface BudgetSoftLimitCrossedEvent {
  type: 'budget.soft_limit_crossed';
  request_id: string;
  session_id: string;
  scope: string;
  soft_limit_usd: string;
  budget: BudgetEventScope;
  timestamp: string;
}

/** Every budget event. */
export type BudgetEvent =
  | BudgetReservedEvent
  | BudgetSettledEvent
  | BudgetRefusedEvent
  | BudgetSoftLimitCrossedEvent;

/** Micro-dollars as an exact decimal USD string (`1200n` → `"0.001200"`). */
export function microsToUsd(micros: bigint): string {
  const sign = micros < 0n ? '-' : '';
  const abs = micros < 0n ? -micros : micros;
  return `${sign}${abs / 1_000_000n}.${(abs % 1_000_000n).toString().padStart(6, '0')}`;
}

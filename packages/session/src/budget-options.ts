import type { BudgetLedger } from '@yourtool/core';

/** Spend budgets for a session manager (decision 0181). */
export interface SessionBudgetOptions {
  /** The ledger, shared by every instance (e.g. the store's `SqlBudgetLedger`). */
  ledger: BudgetLedger;
  /** How long a reservation holds if its process dies mid-call; default 10 minutes. */
  reservationTtlMs?: number;
  /** Let models without a price run under a budget (reserving nothing); default false. */
  allowUnpriced?: boolean;
  /** The thinking budget in tokens added to the worst case when a turn asks for thinking. */
  thinkingTokens?: number;
}

const LEDGER_METHODS = ['reserve', 'settle', 'setBudget', 'listBudgets'] as const;

/** What is wrong with the `budgets` option, or null (absent is fine). */
export function budgetsProblem(value: unknown): string | null {
  if (value === undefined) return null;
  if (typeof value !== 'object' || value === null) {
    return 'budgets must be an object ({ ledger, reservationTtlMs?, allowUnpriced?, thinkingTokens? })';
  }
  const given = value as Partial<Record<keyof SessionBudgetOptions, unknown>>;
  const ledger = given.ledger as Record<string, unknown> | undefined;
  const missing = LEDGER_METHODS.filter((m) => typeof ledger?.[m] !== 'function');
  if (missing.length > 0) {
    return `budgets.ledger must be a BudgetLedger (e.g. the store's SqlBudgetLedger): it has no ${missing.join('(), ')}()`;
  }
  for (const field of ['reservationTtlMs', 'thinkingTokens'] as const) {
    const n = given[field];
    if (n !== undefined && !(Number.isSafeInteger(n) && (n as number) >= 0)) {
      return `budgets.${field} must be a whole number, got ${String(n)}`;
    }
  }
  if (given.allowUnpriced !== undefined && typeof given.allowUnpriced !== 'boolean') {
    return `budgets.allowUnpriced must be a boolean, got ${String(given.allowUnpriced)}`;
  }
  return null;
}

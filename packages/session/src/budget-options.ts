import type { SessionBudgetOptions } from './budget-admission.js';

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

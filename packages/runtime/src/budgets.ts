import type { BudgetDefinition, BudgetLedger, SessionStore } from '@yourtool/core';
import type { SessionBudgetOptions } from '@yourtool/session';
import { RuntimeSetupError } from './setup-error.js';

/**
 * Spend budgets of a runtime (decision 0181): the session manager's `budgets` option, with the
 * ledger optional (default: the store's `SqlBudgetLedger`, for a store opened from a URL or any
 * `@yourtool/store` store) and budgets to set at start.
 */
export interface RuntimeBudgetOptions extends Omit<SessionBudgetOptions, 'ledger'> {
  /** The ledger; default the store's own (`@yourtool/store`'s `SqlBudgetLedger`). */
  ledger?: BudgetLedger;
  /** Budgets set (created or replaced) when the runtime starts; spend already recorded stays. */
  define?: BudgetDefinition[];
}

/** What is wrong with the `budgets` runtime option, as [option, message], or null. */
export function runtimeBudgetsProblem(value: unknown): [string, string] | null {
  if (typeof value !== 'object' || value === null) {
    return ['budgets', 'budgets must be an object ({ ledger?, define?, allowUnpriced?, ... })'];
  }
  const define = (value as { define?: unknown }).define;
  if (define !== undefined && !Array.isArray(define)) {
    return ['budgets.define', 'budgets.define must be an array of budget definitions'];
  }
  return null;
}

/**
 * The `budgets` option with models.yaml's `budgets:` added to its `define` (the option's own
 * definitions last, so they win for a scope in both); undefined when neither sets budgets.
 */
export function withConfigBudgets(
  option: RuntimeBudgetOptions | undefined,
  fromConfig: BudgetDefinition[],
): RuntimeBudgetOptions | undefined {
  if (fromConfig.length === 0) return option;
  return { ...option, define: [...fromConfig, ...(option?.define ?? [])] };
}

/**
 * Resolves the runtime's budgets: finds the ledger (the given one, or the store's) and sets the
 * `define`d budgets on it. Returns the session manager's option.
 */
export async function setUpBudgets(
  options: RuntimeBudgetOptions,
  store: SessionStore,
): Promise<SessionBudgetOptions> {
  const { define, ledger: given, ...rest } = options;
  const ledger = given ?? (await storeLedger(store));
  for (const definition of define ?? []) await ledger.setBudget(definition);
  return { ...rest, ledger };
}

async function storeLedger(store: SessionStore): Promise<BudgetLedger> {
  let module: { SqlBudgetLedger?: new (store: never) => BudgetLedger; SqlSessionStore?: unknown };
  try {
    module = (await import('@yourtool/store')) as typeof module;
  } catch (error) {
    throw new RuntimeSetupError(
      'store_package_missing',
      'budgets without a ledger use the store of @yourtool/store: install it, or pass budgets.ledger',
      { cause: error },
    );
  }
  const { SqlBudgetLedger, SqlSessionStore } = module;
  if (
    !SqlBudgetLedger ||
    typeof SqlSessionStore !== 'function' ||
    !(store instanceof SqlSessionStore)
  ) {
    throw new RuntimeSetupError(
      'budgets_ledger_missing',
      'budgets need a ledger: a store of @yourtool/store (a store URL) keeps one, otherwise pass budgets.ledger',
    );
  }
  return new SqlBudgetLedger(store as never);
}

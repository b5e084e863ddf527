import {
  type BudgetState,
  type BudgetWindow,
  formatMicros,
  microsToUsd,
  usdToMicros,
} from '@yourtool/core';
import { SqlBudgetLedger } from '@yourtool/store';
import type { CommandContext } from '../context.js';
import { table } from '../format.js';
import { CliError } from '../io.js';
import { withStore } from './sessions.js';

/** Options of `budgets list` and `budgets reservations`. */
export interface BudgetsListOptions {
  store?: string;
  json?: boolean;
  limit?: number;
}

/** Options of `budgets set`. */
export interface BudgetsSetOptions {
  store?: string;
  /** The hard limit, decimal USD (`"25"`, `"0.50"`). */
  limit: string;
  /** The soft limit, decimal USD. */
  soft?: string;
  /** `day`, `month`, or a period such as `3600s`. */
  window?: string;
}

/** `yourtool budgets list`: every budget in its current window, with spent, reserved and left. */
export async function listBudgets(context: CommandContext, options: BudgetsListOptions) {
  await withStore(context, options.store, async (store) => {
    const states = await new SqlBudgetLedger(store).listBudgets();
    if (options.json) {
      context.io.stdout.write(`${JSON.stringify(states.map(jsonState), null, 2)}\n`);
      return;
    }
    if (states.length === 0) {
      context.io.stdout.write(
        'no budgets (set one with `yourtool budgets set <scope> --limit <usd>`)\n',
      );
      return;
    }
    const rows = states.map((s) => [
      s.scope,
      s.window_start_ms === 0 ? 'all time' : new Date(s.window_start_ms).toISOString(),
      formatMicros(s.limit_micros),
      s.soft_limit_micros === null ? '' : formatMicros(s.soft_limit_micros),
      formatMicros(s.spent_micros),
      formatMicros(s.reserved_micros),
      formatMicros(s.left_micros),
    ]);
    const header = ['scope', 'window from', 'limit', 'soft', 'spent', 'reserved', 'left'];
    context.io.stdout.write(`${table(header, rows)}\n`);
  });
}

/** `yourtool budgets reservations`: the latest reservations and what each settled at. */
export async function listReservations(context: CommandContext, options: BudgetsListOptions) {
  await withStore(context, options.store, async (store) => {
    const records = await new SqlBudgetLedger(store).reservations(options.limit ?? 50);
    const rows = records.map((r) => [
      r.request_id,
      r.scope,
      formatMicros(r.amount_micros),
      r.actual_micros === null ? 'open' : formatMicros(r.actual_micros),
    ]);
    if (options.json) {
      const plain = records.map((r) => ({
        ...r,
        amount_usd: microsToUsd(r.amount_micros),
        actual_usd: r.actual_micros === null ? null : microsToUsd(r.actual_micros),
        amount_micros: undefined,
        actual_micros: undefined,
      }));
      context.io.stdout.write(`${JSON.stringify(plain, null, 2)}\n`);
      return;
    }
    context.io.stdout.write(`${table(['request', 'scope', 'reserved', 'settled'], rows)}\n`);
  });
}

/** `yourtool budgets set <scope>`: creates or replaces a budget. */
export async function setBudget(
  context: CommandContext,
  scope: string,
  options: BudgetsSetOptions,
) {
  const limit = dollars(options.limit, '--limit');
  const soft = options.soft === undefined ? undefined : dollars(options.soft, '--soft');
  const window = windowOf(options.window);
  await withStore(context, options.store, async (store) => {
    await new SqlBudgetLedger(store).setBudget({
      scope,
      limit_micros: limit,
      soft_limit_micros: soft,
      window,
    });
    context.io.stdout.write(`budget ${scope}: limit ${formatMicros(limit)}\n`);
  });
}

/** `yourtool budgets delete <scope>`. */
export async function deleteBudget(
  context: CommandContext,
  scope: string,
  options: { store?: string },
) {
  await withStore(context, options.store, async (store) => {
    const deleted = await new SqlBudgetLedger(store).deleteBudget(scope);
    if (!deleted) throw new CliError(`no budget ${scope}`);
    context.io.stdout.write(`deleted budget ${scope}\n`);
  });
}

function dollars(value: string, flag: string): bigint {
  try {
    return usdToMicros(value);
  } catch {
    throw new CliError(
      `${flag} must be a decimal amount of dollars such as 25 or 0.50, got ${value}`,
    );
  }
}

function windowOf(value: string | undefined): BudgetWindow | undefined {
  if (value === undefined) return undefined;
  if (value === 'day' || value === 'month') return { kind: value };
  const period = /^(\d+)s$/.exec(value);
  if (period && Number(period[1]) > 0) return { kind: 'period', seconds: Number(period[1]) };
  throw new CliError(
    `--window must be day, month or a number of seconds such as 3600s, got ${value}`,
  );
}

function jsonState(state: BudgetState) {
  return {
    scope: state.scope,
    window_start:
      state.window_start_ms === 0 ? null : new Date(state.window_start_ms).toISOString(),
    limit_usd: microsToUsd(state.limit_micros),
    soft_limit_usd: state.soft_limit_micros === null ? null : microsToUsd(state.soft_limit_micros),
    spent_usd: microsToUsd(state.spent_micros),
    reserved_usd: microsToUsd(state.reserved_micros),
    left_usd: microsToUsd(state.left_micros),
  };
}

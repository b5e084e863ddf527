import { type Command, InvalidArgumentError } from 'commander';
import { jsonOption, storeOption } from './command-options.js';
import type { RunWithContext } from './lazy-context.js';

// the command's module (the store's budget ledger) is imported when an action runs
const budgetsModule = () => import('./commands/budgets.js');

function count(value: string): number {
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < 1) {
    throw new InvalidArgumentError('must be a whole number of 1 or more');
  }
  return n;
}

/** Registers `yourtool budgets` (list, reservations, set, delete): spend budgets, decision 0181. */
export function addBudgetsCommand(program: Command, run: RunWithContext): void {
  const budgets = program
    .command('budgets')
    .description('spend budgets: limits, spent, reserved and left; reservations and settlements');
  budgets
    .command('list', { isDefault: true })
    .description('every budget in its current window')
    .addOption(storeOption())
    .addOption(jsonOption())
    .action((options) => run(async (c) => (await budgetsModule()).listBudgets(c, options)));
  budgets
    .command('reservations')
    .description('the latest reservations of model calls and what each settled at')
    .addOption(storeOption())
    .option('--limit <n>', 'how many (default 50)', count)
    .addOption(jsonOption())
    .action((options) => run(async (c) => (await budgetsModule()).listReservations(c, options)));
  budgets
    .command('set')
    .description(
      'create or replace a budget (scope: global, session:<id>, user:<id>, tenant:<id>, tag:<t>, provider:<p>, model:<id>)',
    )
    .argument('<scope>', 'what the budget covers')
    .requiredOption('--limit <usd>', 'hard limit in dollars: calls that would pass it are not sent')
    .option('--soft <usd>', 'soft limit in dollars: crossing it only warns')
    .option('--window <window>', 'day, month, or a period such as 3600s (default: all time)')
    .addOption(storeOption())
    .action((scope: string, options) =>
      run(async (c) => (await budgetsModule()).setBudget(c, scope, options)),
    );
  budgets
    .command('delete')
    .description('remove a budget and its windows')
    .argument('<scope>', 'what the budget covers')
    .addOption(storeOption())
    .action((scope: string, options) =>
      run(async (c) => (await budgetsModule()).deleteBudget(c, scope, options)),
    );
}

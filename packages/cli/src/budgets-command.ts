import { type Command, InvalidArgumentError, Option } from 'commander';
import { deleteBudget, listBudgets, listReservations, setBudget } from './commands/budgets.js';
import { type CommandContext, DEFAULT_STORE_URL } from './config.js';

const storeOption = () =>
  new Option(
    '--store <url>',
    `session store: sqlite:<file> or postgres://... (default $YOURTOOL_STORE, else ${DEFAULT_STORE_URL})`,
  );
const jsonOption = () => new Option('--json', 'print JSON instead of text');

function count(value: string): number {
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < 1) {
    throw new InvalidArgumentError('must be a whole number of 1 or more');
  }
  return n;
}

/** Registers `yourtool budgets` (list, reservations, set, delete): spend budgets, decision 0181. */
export function addBudgetsCommand(program: Command, context: CommandContext): void {
  const budgets = program
    .command('budgets')
    .description('spend budgets: limits, spent, reserved and left; reservations and settlements');
  budgets
    .command('list', { isDefault: true })
    .description('every budget in its current window')
    .addOption(storeOption())
    .addOption(jsonOption())
    .action((options) => listBudgets(context, options));
  budgets
    .command('reservations')
    .description('the latest reservations of model calls and what each settled at')
    .addOption(storeOption())
    .option('--limit <n>', 'how many (default 50)', count)
    .addOption(jsonOption())
    .action((options) => listReservations(context, options));
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
    .action((scope: string, options) => setBudget(context, scope, options));
  budgets
    .command('delete')
    .description('remove a budget and its windows')
    .argument('<scope>', 'what the budget covers')
    .addOption(storeOption())
    .action((scope: string, options) => deleteBudget(context, scope, options));
}

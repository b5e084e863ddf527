import { type Command, InvalidArgumentError } from 'commander';
import { storeOption } from './command-options.js';
import type { RunWithContext } from './lazy-context.js';

/** Registers `yourtool sessions prune` under `sessions`: retention, decision 0184. */
export function addSessionsPruneCommand(sessions: Command, run: RunWithContext): void {
  sessions
    .command('prune')
    .description(
      'remove sessions idle longer than an age, with every row of them (skips running turns)',
    )
    .requiredOption('--older-than <age>', 'idle age such as 30d, 12h, 2w')
    .option(
      '--tag <tag=age...>',
      'a longer or shorter age for sessions with a tag, e.g. audit=365d',
    )
    .option('--dry-run', 'count what would go, remove nothing')
    .option('--batch-size <n>', 'sessions per transaction (default 50)', (v) => {
      const n = Number(v);
      if (!Number.isSafeInteger(n) || n < 1 || n > 1000) {
        throw new InvalidArgumentError('must be a whole number from 1 to 1000');
      }
      return n;
    })
    .addOption(storeOption())
    .option('--json', 'print the report as JSON')
    .action((options) =>
      run(async (c) => (await import('./commands/prune.js')).pruneSessionsCommand(c, options)),
    );
}

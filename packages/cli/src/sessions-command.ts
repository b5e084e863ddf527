import { type Command, Option } from 'commander';
import { createOption, jsonOption, positiveInteger, storeOption } from './command-options.js';
import type { RunOnDemand, RunWithContext } from './lazy-context.js';
import { addSessionsPruneCommand } from './prune-command.js';

// Each action imports its command's module when it runs (docs/decisions/0188): defining the
// commands, and their help, loads no store, no kysely and no @yourtool/core.
const sessionsModule = () => import('./commands/sessions.js');
// `sessions list` on a SQLite file loads no kysely and no @yourtool/core either (decision 0197)
const listModule = () => import('./commands/sessions-list.js');
const transferModule = () => import('./commands/transfer.js');

/** Registers `yourtool sessions` (list, show, cost, export, import, migrate, delete, prune). */
export function addSessionsCommand(
  program: Command,
  run: RunWithContext,
  onDemand: RunOnDemand,
): void {
  const sessions = program.command('sessions').description('look into a session store');
  sessions
    .command('list')
    .description('sessions, most recently updated first, with messages, cost and last model')
    .addOption(storeOption())
    .option('--limit <n>', 'how many (default 50)', positiveInteger)
    .option('--all', 'every session')
    .option('--workspace <path>', 'only sessions of this workspace path')
    .addOption(jsonOption())
    .action((options) => onDemand(async (on) => (await listModule()).listSessions(on, options)));
  sessions
    .command('show')
    .description("a session's messages")
    .argument('<session>', 'session id')
    .addOption(storeOption())
    .option('--full', 'whole texts, tool inputs and results')
    .addOption(jsonOption())
    .action((id: string, options) =>
      run(async (c) => (await sessionsModule()).showSession(c, id, options)),
    );
  sessions
    .command('cost')
    .description("a session's exact cost, per model")
    .argument('<session>', 'session id')
    .addOption(storeOption())
    .addOption(jsonOption())
    .action((id: string, options) =>
      run(async (c) => (await sessionsModule()).sessionCost(c, id, options)),
    );
  sessions
    .command('export')
    .description('sessions as canonical JSON lines (import gives them back exactly)')
    .argument('[sessions...]', 'session ids')
    .addOption(storeOption())
    .option('--all', 'every session of the store')
    .option('-o, --output <file>', 'write to a file instead of stdout')
    .action((ids: string[], options) =>
      run(async (c) => (await transferModule()).exportSessions(c, ids, options)),
    );
  sessions
    .command('import')
    .description('sessions from JSON lines, ids and times kept (one transaction per session)')
    .argument('[file]', 'the JSON lines (default: stdin)')
    .addOption(storeOption())
    .addOption(createOption())
    .addOption(new Option('--skip-existing', 'keep sessions the store has already, as they are'))
    .addOption(
      new Option(
        '--replace',
        'overwrite sessions the store has already (one transaction each)',
      ).conflicts('skipExisting'),
    )
    .action((file: string | undefined, options) =>
      run(async (c) => (await transferModule()).importSessions(c, file, options)),
    );
  sessions
    .command('migrate')
    .description('bring a store to the current schema (commands that read never do)')
    .addOption(storeOption())
    .addOption(createOption())
    .action((options) =>
      run(async (c) => (await import('./commands/migrate.js')).migrateSessions(c, options)),
    );
  sessions
    .command('delete')
    .description('delete sessions and every row of them, in every table')
    .argument('<sessions...>', 'session ids')
    .addOption(storeOption())
    .option('-y, --yes', 'do not ask (required when stdin is not a terminal)')
    .action((ids: string[], options) =>
      run(async (c) => (await transferModule()).deleteSessions(c, ids, options)),
    );
  addSessionsPruneCommand(sessions, run);
}

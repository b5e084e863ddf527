import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { addBudgetsCommand } from './budgets-command.js';
import { chat } from './chat/repl.js';
import { migrateSessions } from './commands/migrate.js';
import { listModels } from './commands/models.js';
import { replaySession } from './commands/replay.js';
import { listSessions, sessionCost, showSession } from './commands/sessions.js';
import { deleteSessions, exportSessions, importSessions } from './commands/transfer.js';
import { type CommandContext, commandContext, DEFAULT_STORE_URL } from './config.js';
import { type CliIo, processIo, reportError } from './io.js';
import { addSessionsPruneCommand } from './prune-command.js';

declare const __CLI_VERSION__: string;

/** The CLI's version (from its package.json, set at build time). */
export const CLI_VERSION = typeof __CLI_VERSION__ === 'string' ? __CLI_VERSION__ : '0.0.0-dev';

const storeOption = () =>
  new Option(
    '--store <url>',
    `session store: sqlite:<file> or postgres://... (default $YOURTOOL_STORE, else ${DEFAULT_STORE_URL})`,
  );
const modelsOption = () =>
  new Option('--models <file>', 'models.yaml (default $YOURTOOL_MODELS, else ./models.yaml)');
const routingOption = () =>
  new Option(
    '--routing <file>',
    'routing.yaml (default $YOURTOOL_ROUTING, else ./routing.yaml if present)',
  );
const jsonOption = () => new Option('--json', 'print JSON instead of text');
const createOption = () =>
  new Option(
    '--create',
    'make the store if it is missing, add the yourtool tables to a database without them, upgrade an older store (without it, only an existing store at the current schema is used)',
  );

function positiveInteger(value: string): number {
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < 1)
    throw new InvalidArgumentError('must be a whole number of 1 or more');
  return n;
}

function addSessionsCommand(program: Command, context: CommandContext): void {
  const sessions = program.command('sessions').description('look into a session store');
  sessions
    .command('list')
    .description('sessions, most recently updated first, with messages, cost and last model')
    .addOption(storeOption())
    .option('--limit <n>', 'how many (default 50)', positiveInteger)
    .option('--all', 'every session')
    .option('--workspace <path>', 'only sessions of this workspace path')
    .addOption(jsonOption())
    .action((options) => listSessions(context, options));
  sessions
    .command('show')
    .description("a session's messages")
    .argument('<session>', 'session id')
    .addOption(storeOption())
    .option('--full', 'whole texts, tool inputs and results')
    .addOption(jsonOption())
    .action((id: string, options) => showSession(context, id, options));
  sessions
    .command('cost')
    .description("a session's exact cost, per model")
    .argument('<session>', 'session id')
    .addOption(storeOption())
    .addOption(jsonOption())
    .action((id: string, options) => sessionCost(context, id, options));
  sessions
    .command('export')
    .description('sessions as canonical JSON lines (import gives them back exactly)')
    .argument('[sessions...]', 'session ids')
    .addOption(storeOption())
    .option('--all', 'every session of the store')
    .option('-o, --output <file>', 'write to a file instead of stdout')
    .action((ids: string[], options) => exportSessions(context, ids, options));
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
    .action((file: string | undefined, options) => importSessions(context, file, options));
  sessions
    .command('migrate')
    .description('bring a store to the current schema (commands that read never do)')
    .addOption(storeOption())
    .addOption(createOption())
    .action((options) => migrateSessions(context, options));
  sessions
    .command('delete')
    .description('delete sessions and every row of them, in every table')
    .argument('<sessions...>', 'session ids')
    .addOption(storeOption())
    .option('-y, --yes', 'do not ask (required when stdin is not a terminal)')
    .action((ids: string[], options) => deleteSessions(context, ids, options));
  addSessionsPruneCommand(sessions, context);
}

/** The `yourtool` program, its commands writing through `context`. */
export function buildProgram(context: CommandContext): Command {
  const { io } = context;
  const program = new Command('yourtool')
    .description('Chat on any model, look into session stores, compare models.')
    .version(CLI_VERSION, '-V, --version')
    .exitOverride()
    .showSuggestionAfterError()
    .configureOutput({
      writeOut: (text) => io.stdout.write(text),
      writeErr: (text) => io.stderr.write(text),
    });
  program
    .command('chat')
    .description('chat in a persistent session: /model, tool confirmations, running cost')
    .addOption(modelsOption())
    .addOption(routingOption())
    .addOption(storeOption())
    .addOption(createOption())
    .option('--session <id>', 'resume this session')
    .option('--model <name>', 'start on this model (as /model)')
    .option('--workspace <path>', 'workspace of a new session (default: the working directory)')
    .option('--no-tools', 'offer the model no tools (read_file, list_files, write_file)')
    .option('--mcp <file>', 'MCP servers whose tools the model may call (YAML with mcp_servers:)')
    .option('--schema <file>', 'a JSON Schema file: every turn asks for an object of it')
    .action((options) => chat(context, options));
  addSessionsCommand(program, context);
  addBudgetsCommand(program, context);
  program
    .command('models')
    .description('the models of models.yaml: capabilities, context window, prices, availability')
    .addOption(modelsOption())
    .addOption(routingOption())
    .addOption(jsonOption())
    .action((options) => listModels(context, options));
  program
    .command('replay')
    .description(
      "send a session's history to another model; its reply and cost next to the original's",
    )
    .argument('<session>', 'session id')
    .requiredOption('--model <name>', 'the model to replay on')
    .option('--at <message>', 'the user message to replay (default: the last one with a reply)')
    .option('--max-output-tokens <n>', 'output limit of the replay call', positiveInteger)
    .option('--schema <file>', 'a JSON Schema file: ask the replay for an object of it')
    .addOption(modelsOption())
    .addOption(routingOption())
    .addOption(storeOption())
    .addOption(jsonOption())
    .action((id: string, options) => replaySession(context, id, options));
  return program;
}

/**
 * Runs the `yourtool` command line (`argv` without the node and script paths) and resolves to
 * the exit code: 0 on success, 1 when the command failed, 2 for a usage error. Output goes to
 * `io` (default: the process's streams); errors are one line on stderr, never with a stack trace
 * unless `YOURTOOL_DEBUG` is set, and secrets are never printed.
 *
 * @example
 * process.exitCode = await runCli(['sessions', 'list', '--store', 'sqlite:./sessions.db']);
 */
export async function runCli(argv: readonly string[], io: Partial<CliIo> = {}): Promise<number> {
  const context = commandContext({ ...processIo(), ...io });
  const program = buildProgram(context);
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) {
      // help and --version end here with code 0; usage errors were printed by commander
      return error.exitCode === 0 ? 0 : 2;
    }
    return reportError(error, context.io, context.secrets);
  }
}

import { Command, CommanderError } from 'commander';
import { addBudgetsCommand } from './budgets-command.js';
import {
  createOption,
  jsonOption,
  modelsOption,
  positiveInteger,
  routingOption,
  storeOption,
} from './command-options.js';
import type { CommandContext } from './context.js';
import { LazyContext, type RunOnDemand, type RunWithContext } from './lazy-context.js';
import { type CliIo, processIo } from './process-io.js';
import { addSessionsCommand } from './sessions-command.js';

// The entry point loads commander and the definitions of the commands only; each action imports
// its command's module, and the command context, when it runs (docs/decisions/0188). `--help`,
// `--version` and usage errors load no store, runtime, adapter, SDK, pricing, zod or ajv.

declare const __CLI_VERSION__: string;

/** The CLI's version (from its package.json, set at build time). */
export const CLI_VERSION = typeof __CLI_VERSION__ === 'string' ? __CLI_VERSION__ : '0.0.0-dev';

function defineProgram(io: CliIo, run: RunWithContext, onDemand: RunOnDemand): Command {
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
    .action((options) => run(async (c) => (await import('./chat/repl.js')).chat(c, options)));
  addSessionsCommand(program, run, onDemand);
  addBudgetsCommand(program, run);
  program
    .command('models')
    .description('the models of models.yaml: capabilities, context window, prices, availability')
    .addOption(modelsOption())
    .addOption(routingOption())
    .addOption(jsonOption())
    .action((options) =>
      run(async (c) => (await import('./commands/models.js')).listModels(c, options)),
    );
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
    .action((id: string, options) =>
      run(async (c) => (await import('./commands/replay.js')).replaySession(c, id, options)),
    );
  return program;
}

/**
 * The `yourtool` program, its commands writing through `context`. Each command's module is
 * imported when the command runs.
 */
export function buildProgram(context: CommandContext): Command {
  return defineProgram(
    context.io,
    (work) => work(context),
    (work) => work({ io: context.io, context: async () => context }),
  );
}

/**
 * Runs the `yourtool` command line (`argv` without the node and script paths) and resolves to
 * the exit code: 0 on success, 1 when the command failed, 2 for a usage error. Output goes to
 * `io` (default: the process's streams); errors are one line on stderr, never with a stack trace
 * unless `YOURTOOL_DEBUG` is set, and secrets are never printed. Only the command that runs is
 * loaded: `--help` and `--version` load none.
 *
 * @example
 * process.exitCode = await runCli(['sessions', 'list', '--store', 'sqlite:./sessions.db']);
 */
export async function runCli(argv: readonly string[], io: Partial<CliIo> = {}): Promise<number> {
  const cliIo = { ...processIo(), ...io };
  const context = new LazyContext(cliIo);
  const program = defineProgram(cliIo, context.run, context.runOnDemand);
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) {
      // help and --version end here with code 0; usage errors were printed by commander
      return error.exitCode === 0 ? 0 : 2;
    }
    const [{ reportError }, made] = await Promise.all([import('./io.js'), context.get()]);
    return reportError(error, made.io, made.secrets);
  }
}

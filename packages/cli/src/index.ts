/**
 * @yourtool/cli: the `yourtool` command. `chat` (a REPL on models.yaml), `sessions
 * list|show|cost|export|import|delete` (a session store), `models` (the registry with
 * capabilities, prices and availability), `replay` (a session's reply on another model). The
 * command line also runs in-process with {@link runCli}, on streams of your own.
 *
 * @packageDocumentation
 */

export { type ChatOptions, chat } from './chat/repl.js';
export { workspaceTools } from './chat/tools.js';
export { DEFAULT_STORE_URL } from './command-options.js';
export { type ModelReport, modelReports } from './commands/models.js';
export type { ReplayOptions, ReplayReport, ReplySide } from './commands/replay.js';
export type { ModelOptions } from './config.js';
export { type CommandContext, commandContext } from './context.js';
export { CliError, type CliIo, type InputStream, type OutputStream, processIo } from './io.js';
export { DetectionFailures } from './logger.js';
export { buildProgram, CLI_VERSION, runCli } from './program.js';

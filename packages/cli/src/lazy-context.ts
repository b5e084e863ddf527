import type { CommandContext } from './context.js';
import type { CliIo } from './process-io.js';

/**
 * Runs a command's work with the command context. The program's actions reach the context only
 * through this, so that defining the program (and `--help`, `--version`, usage errors) loads
 * neither the context nor what it imports (@yourtool/core, for secrets redaction).
 */
export type RunWithContext = (work: (context: CommandContext) => Promise<void>) => Promise<void>;

/**
 * What a command that needs the context only now and then gets: the streams, and the context on
 * demand (the SQLite `sessions list` asks for it only to print a warning, docs/decisions/0197).
 */
export interface ContextOnDemand {
  /** The command's streams, environment and working directory. */
  readonly io: CliIo;
  /** The command context, made (and its modules loaded) on the first call. */
  context(): Promise<CommandContext>;
}

/** Runs a command's work with the context on demand. */
export type RunOnDemand = (work: (on: ContextOnDemand) => Promise<void>) => Promise<void>;

/**
 * The command context of one `runCli` call, made on first use: its module is imported then,
 * and the same context is given to every later use (the error report reads its secrets).
 */
export class LazyContext {
  readonly #io: CliIo;
  #context: Promise<CommandContext> | undefined;

  constructor(io: CliIo) {
    this.#io = io;
  }

  /** The context, made (and its module loaded) the first time. */
  get(): Promise<CommandContext> {
    this.#context ??= import('./context.js').then((module) => module.commandContext(this.#io));
    return this.#context;
  }

  /** {@link RunWithContext} on this context. */
  readonly run: RunWithContext = async (work) => work(await this.get());

  /** {@link RunOnDemand} on this context: it is made only if the work asks for it. */
  readonly runOnDemand: RunOnDemand = (work) => work({ io: this.#io, context: () => this.get() });
}

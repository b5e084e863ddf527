/**
 * An error the user can fix (a missing file, a session that does not exist, a bad flag): printed
 * as one line on stderr, without a stack trace, and the command exits with `exitCode`.
 */
export class CliError extends Error {
  /** The process exit code (1 by default; 2 for usage errors). */
  readonly exitCode: number;

  constructor(message: string, exitCode = 1) {
    super(message);
    this.name = 'CliError';
    this.exitCode = exitCode;
  }
}

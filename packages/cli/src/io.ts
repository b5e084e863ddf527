import { isYourtoolError } from '@yourtool/core';
import { redactSecrets } from '@yourtool/core/adapter';
import { CliError } from './cli-error.js';
import type { CliIo } from './process-io.js';

// CliError lives in a file of its own: commands that must load no @yourtool/core (the SQLite
// `sessions list`, docs/decisions/0197) throw it too.
export { CliError } from './cli-error.js';

export { type CliIo, type InputStream, type OutputStream, processIo } from './process-io.js';

/** Values never printed: API keys from models.yaml and the environment, database passwords. */
export class Secrets {
  readonly #values = new Set<string>();

  /** Adds values to keep out of the output (empty ones are ignored). */
  add(...values: ReadonlyArray<string | null | undefined>): void {
    for (const value of values) if (value) this.#values.add(value);
  }

  /** `text` with every known secret replaced by a marker. */
  redact(text: string): string {
    return redactSecrets(text, [...this.#values]);
  }
}

/**
 * Reports an error on stderr and returns the exit code: expected errors (a `CliError`, any
 * error of the yourtool packages) as one line; anything else as a bug, with its stack only when
 * `YOURTOOL_DEBUG` is set. Known secrets are redacted either way.
 */
export function reportError(error: unknown, io: CliIo, secrets: Secrets): number {
  const write = (text: string) => io.stderr.write(`${secrets.redact(text)}\n`);
  if (error instanceof CliError) {
    write(`yourtool: ${error.message}`);
    return error.exitCode;
  }
  if (isYourtoolError(error)) {
    write(`yourtool: ${(error as Error).message}`);
    return 1;
  }
  const message = error instanceof Error ? error.message : String(error);
  if (io.env.YOURTOOL_DEBUG && error instanceof Error && error.stack) {
    write(`yourtool: unexpected error: ${error.stack}`);
  } else {
    write(
      `yourtool: unexpected error: ${message}\n(set YOURTOOL_DEBUG=1 to see where it happened)`,
    );
  }
  return 1;
}

import type { Logger } from '@yourtool/core';
import { type CliIo, Secrets } from './io.js';
import { cliLogger, DetectionFailures } from './logger.js';

/** What every command gets: the CLI's streams, the secrets to keep out of them, one logger. */
export interface CommandContext {
  io: CliIo;
  secrets: Secrets;
  /**
   * Warnings and errors of the libraries as one readable line each on stderr
   * (`warning: <message> (<field>: <value>)`), secrets redacted; failed capability detections
   * are kept in `detection` instead.
   */
  logger: Logger;
  /** Models whose capabilities could not be detected, shown where a model is asked for. */
  detection: DetectionFailures;
}

/** A context on `io`, with a stderr logger that redacts every secret the command learns. */
export function commandContext(io: CliIo): CommandContext {
  const secrets = new Secrets();
  const detection = new DetectionFailures();
  const logger = cliLogger(
    (line) => io.stderr.write(line),
    (text) => secrets.redact(text),
    detection,
  );
  return { io, secrets, logger, detection };
}

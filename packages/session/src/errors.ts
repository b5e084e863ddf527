import { YourtoolError } from '@yourtool/core';

/** Thrown when a second turn is started on a session whose turn is still running. */
export class TurnInProgressError extends YourtoolError {
  constructor(sessionId: string) {
    super(
      'turn_in_progress',
      `session ${sessionId} already has a turn running; wait for it or cancel it`,
    );
  }
}

/** Thrown when a turn's options contradict each other or the method they were passed to. */
export class InvalidSendOptionError extends YourtoolError {
  /** The option at fault. */
  readonly option: string;

  constructor(option: string, message: string) {
    super('invalid_send_option', message);
    this.option = option;
  }
}

/**
 * Thrown by the {@link SessionManager} constructor for an option it cannot use: `option` names
 * the field (`maxSteps`, `systemPrompt[1]`, ...). Nothing was stored or started.
 */
export class InvalidManagerOptionError extends YourtoolError {
  /** The option at fault. */
  readonly option: string;

  constructor(option: string, message: string) {
    super('invalid_manager_option', message);
    this.option = option;
  }
}

/** Thrown when a session id is not in the store. */
export class UnknownSessionError extends YourtoolError {
  constructor(sessionId: string) {
    super('unknown_session', `no session "${sessionId}" in the store`);
  }
}

/** The message of a thrown value, for a tool result or a log line. */
export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

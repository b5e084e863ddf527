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

/**
 * Thrown by `send()` and `sendAndWait()` for user input that cannot become a stored message
 * that providers take: `block_index` names the content block at fault (0 for a message sent as
 * text; null when the input as a whole is wrong, such as an empty content list), `reason` what
 * is wrong with it. Nothing was stored and no model was called: the session's history is
 * unchanged and its next turn runs as if this one had not been sent (docs/decisions/0154).
 */
export class InvalidInputError extends YourtoolError {
  /** The index of the content block at fault, or null when the input as a whole is wrong. */
  readonly block_index: number | null;
  /** What is wrong, e.g. `image block: source.data: base64 image data is not valid base64: "-" at offset 17`. */
  readonly reason: string;

  constructor(block_index: number | null, reason: string) {
    const where = block_index === null ? 'the message' : `content[${block_index}]`;
    super('invalid_input', `cannot send ${where}: ${reason}; nothing was stored`);
    this.block_index = block_index;
    this.reason = reason;
  }
}

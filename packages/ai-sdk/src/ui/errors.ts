import { YourtoolError } from '@yourtool/core';

/**
 * The body of a `useChat` request cannot be used: `where` names the field (a JSON path such
 * as `messages[3].parts[0]`), the message says what is wrong. Answer it with HTTP 400.
 */
export class ChatRequestError extends YourtoolError {
  /** The JSON path of the field at fault. */
  readonly where: string;

  constructor(where: string, problem: string) {
    super('invalid_chat_request', `${where}: ${problem}`);
    this.name = 'ChatRequestError';
    this.where = where;
  }
}

/**
 * `regenerate-message` asked for: a session's stored history is append-only, so a reply
 * cannot be replaced; the message names the stored user message the reply answered
 * (decision 0178). Answer it with HTTP 409.
 */
export class RegenerateRefusedError extends YourtoolError {
  /** The UI id of the reply the client asked to regenerate. */
  readonly messageId: string;

  constructor(messageId: string, storedUserMessageId: string | null) {
    const point = storedUserMessageId
      ? `it answers the stored user message ${storedUserMessageId}`
      : 'it is not a reply of this session';
    super(
      'regenerate_refused',
      `cannot regenerate ${messageId}: ${point}, and a session's stored history is append-only; send the message again instead`,
    );
    this.name = 'RegenerateRefusedError';
    this.messageId = messageId;
  }
}

/**
 * No answer to a tool approval came before the deadline: the tool is not run, and its stored
 * result says so (the confirmation "failed" with this message).
 */
export class ApprovalDeadlineError extends YourtoolError {
  constructor(toolName: string, deadlineMs: number) {
    super('approval_deadline', `no answer to the approval of ${toolName} within ${deadlineMs} ms`);
    this.name = 'ApprovalDeadlineError';
  }
}

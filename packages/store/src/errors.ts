import { YourtoolError } from '@yourtool/core';

/** Base of every error the store throws on purpose; catch it to handle them all. */
export class StoreError extends YourtoolError {}

/** The session does not exist (e.g. appending a message to a session never created). */
export class SessionNotFoundError extends StoreError {
  /** The id asked for. */
  readonly sessionId: string;

  constructor(sessionId: string) {
    super('session_not_found', `no session "${sessionId}" in the store`);
    this.sessionId = sessionId;
  }
}

/** The message does not exist (e.g. updating a message never appended). */
export class MessageNotFoundError extends StoreError {
  /** The id asked for. */
  readonly messageId: string;

  constructor(messageId: string) {
    super('message_not_found', `no message "${messageId}" in the store`);
    this.messageId = messageId;
  }
}

/** A session with this id is already stored; nothing was written. */
export class DuplicateSessionError extends StoreError {
  /** The id that is taken. */
  readonly sessionId: string;

  constructor(sessionId: string) {
    super('duplicate_session', `session "${sessionId}" already exists`);
    this.sessionId = sessionId;
  }
}

/** A message with this id is already stored; nothing was written. */
export class DuplicateMessageError extends StoreError {
  /** The id that is taken. */
  readonly messageId: string;

  constructor(messageId: string) {
    super(
      'duplicate_message',
      `message "${messageId}" is already stored (use updateMessage to change it)`,
    );
    this.messageId = messageId;
  }
}

/**
 * A tool use block reuses the id of a tool call already stored (tool use ids are unique across
 * the store). The whole write was rolled back: neither the message nor any of its tool calls
 * was stored.
 */
export class DuplicateToolCallError extends StoreError {
  /** The canonical tool use id that is taken. */
  readonly toolUseId: string;
  /** The message being written. */
  readonly messageId: string;

  constructor(toolUseId: string, messageId: string) {
    super(
      'duplicate_tool_call',
      `tool use "${toolUseId}" of message "${messageId}" is already stored for another message; nothing was written`,
    );
    this.toolUseId = toolUseId;
    this.messageId = messageId;
  }
}

/** One problem with an input: where (`content[1].input`, `routing_policy`, ...) and what. */
export interface StoreInputIssue {
  path: string;
  message: string;
}

/** An argument is invalid (a message that fails core's schemas, a bad cursor, ...). */
export class InvalidStoreInputError extends StoreError {
  /** What was being checked, e.g. `message 01JZ...`, `cursor`, `usage`. */
  readonly subject: string;
  /** Every problem found. */
  readonly issues: StoreInputIssue[];

  constructor(subject: string, issues: StoreInputIssue[]) {
    super(
      'invalid_store_input',
      `invalid ${subject}: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`,
    );
    this.subject = subject;
    this.issues = issues;
  }
}

/** The URL names no store this package can open. The URL in the message has its password redacted. */
export class UnsupportedStoreUrlError extends StoreError {
  /** The URL with any password redacted. */
  readonly url: string;

  constructor(url: string, reason: string) {
    super('unsupported_store_url', `cannot open store "${url}": ${reason}`);
    this.url = url;
  }
}

/** Opening or migrating the database failed. Passwords never appear in the message. */
export class StoreConnectionError extends StoreError {
  /** The URL with any password redacted. */
  readonly url: string;

  constructor(url: string, reason: string, options?: { cause?: unknown }) {
    super('store_connection_failed', `cannot open store "${url}": ${reason}`, options);
    this.url = url;
  }
}

/** An optional driver is not installed (`pg` for PostgreSQL URLs). */
export class StoreDependencyError extends StoreError {
  /** The npm package to install. */
  readonly packageName: string;

  constructor(packageName: string, purpose: string, options?: { cause?: unknown }) {
    super(
      'store_dependency_missing',
      `${purpose} needs the "${packageName}" package: npm install ${packageName}`,
      options,
    );
    this.packageName = packageName;
  }
}

import { type MessageViolation, YourtoolError } from '@yourtool/core';

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

/** Options of {@link InvalidStoreInputError}'s constructor, for its subclasses. */
export interface InvalidStoreInputErrorOptions {
  /** The stable code (default `invalid_store_input`). */
  code?: string;
  /** Replaces the default message (`invalid <subject>: <path>: <problem>; ...`). */
  message?: string;
  /** The error that revealed the problem (e.g. the serializer's `TypeError`). */
  cause?: unknown;
}

/**
 * An argument is invalid (a message that fails core's schemas, text a database column cannot
 * hold, a bad cursor, ...). Nothing was written.
 */
export class InvalidStoreInputError extends StoreError {
  /** What was being checked, e.g. `message 01JZ...`, `cursor`, `usage`. */
  readonly subject: string;
  /** Every problem found. */
  readonly issues: StoreInputIssue[];

  constructor(
    subject: string,
    issues: StoreInputIssue[],
    options: InvalidStoreInputErrorOptions = {},
  ) {
    super(
      options.code ?? 'invalid_store_input',
      options.message ??
        `invalid ${subject}: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`,
      options.cause === undefined ? undefined : { cause: options.cause },
    );
    this.subject = subject;
    this.issues = issues;
  }
}

/**
 * A message at `status: complete` breaks invariants of the canonical format (a tool message
 * without `parent_tool_use_id`, a complete assistant message without usage, model, provider or
 * routing, a block its role cannot hold, an id that is not a ULID, a newer `schema_version`,
 * ...), as core's `validateMessage` reports them. The message names each rule broken and the
 * message id. Nothing was written: not the message, nor any other message of the batch, nor
 * the session's `updated_at`. Partial, cancelled and errored messages are not checked against
 * these rules (canonical-format §5: validation runs only at `status: complete`).
 */
export class InvalidMessageError extends InvalidStoreInputError {
  /** The id of the message refused. */
  readonly messageId: string;
  /** Every invariant broken, with its rule id (`tool-parent-id`, `assistant-usage`, ...). */
  readonly violations: MessageViolation[];

  constructor(messageId: string, violations: MessageViolation[]) {
    super(
      `message ${messageId}`,
      violations.map((v) => ({ path: v.path, message: `${v.message} (rule ${v.rule})` })),
      {
        code: 'invalid_message',
        message: `complete message ${messageId} breaks the canonical format's invariants, nothing was stored: ${violations
          .map((v) => `[${v.rule}] ${v.path}: ${v.message}`)
          .join('; ')}`,
      },
    );
    this.messageId = messageId;
    this.violations = violations;
  }
}

/**
 * A JSON value to store (a message's content or metadata, a session's routing policy) nests
 * objects and arrays deeper than the limit (core's `DEFAULT_MAX_JSON_DEPTH`, 100 levels,
 * counting the message or policy object itself as level 1). Nothing was written, and a row
 * stored before keeps its previous content.
 */
export class JsonTooDeepError extends InvalidStoreInputError {
  /** The limit exceeded. */
  readonly maxDepth: number;
  /** Where the first object or array past the limit is, for people (`content[1].input.a.a…`). */
  readonly path: string;
  /** The same path in full, root first. */
  readonly segments: ReadonlyArray<string | number>;

  constructor(
    subject: string,
    exceeded: { maxDepth: number; path: string; segments: ReadonlyArray<string | number> },
  ) {
    const problem = `nests objects and arrays more than ${exceeded.maxDepth} levels deep`;
    super(subject, [{ path: exceeded.path, message: problem }], {
      code: 'json_too_deep',
      message: `invalid ${subject}: ${exceeded.path}: ${problem}; nothing was stored`,
    });
    this.maxDepth = exceeded.maxDepth;
    this.path = exceeded.path;
    this.segments = exceeded.segments;
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

/**
 * `openStore(url, { create: false })` found no database to open: the SQLite file is not there
 * (or the URL is `sqlite::memory:`, always a new database), or the PostgreSQL schema does not
 * exist. Nothing was created.
 */
export class StoreNotFoundError extends StoreError {
  /** The URL with any password redacted. */
  readonly url: string;
  /** Where the store was looked for: the SQLite file's absolute path, or the PostgreSQL URL. */
  readonly location: string;

  constructor(url: string, location: string, reason: string) {
    super('store_not_found', `no store at ${location}: ${reason}`);
    this.url = url;
    this.location = location;
  }
}

/**
 * `openStore(url, { create: false })` found a database that is not a yourtool store: it has
 * none of the store's migrations (another application's SQLite file, an empty file, a file
 * that is not SQLite, a PostgreSQL schema without the store's tables). Nothing in it was
 * changed.
 */
export class NotAStoreError extends StoreError {
  /** The URL with any password redacted. */
  readonly url: string;
  /** The SQLite file's absolute path, or the PostgreSQL URL and schema. */
  readonly location: string;
  /** The tables the database holds (empty when it holds none, or could not be read). */
  readonly tables: readonly string[];

  constructor(url: string, location: string, detail: string, tables: readonly string[] = []) {
    super('not_a_store', `${location} is not a yourtool store (${detail})`);
    this.url = url;
    this.location = location;
    this.tables = tables;
  }
}

/**
 * A yourtool store whose schema is not the one this version uses: older (migrations this
 * version would apply, when opened with `create: false, migrate: false`) or newer (migrations
 * this version does not know: written by a later `@yourtool/store`). Nothing was changed.
 */
export class StoreSchemaVersionError extends StoreError {
  /** The URL with any password redacted. */
  readonly url: string;
  /** The SQLite file's absolute path, or the PostgreSQL URL and schema. */
  readonly location: string;
  /** `older`: `pending` migrations are not applied; `newer`: `unknown` ones are. */
  readonly direction: 'older' | 'newer';
  /** Migrations of this version the store has not applied (in order). */
  readonly pending: readonly string[];
  /** Migrations the store has applied that this version does not know. */
  readonly unknown: readonly string[];

  constructor(
    url: string,
    location: string,
    migrations: { pending: readonly string[]; unknown: readonly string[] },
  ) {
    const newer = migrations.unknown.length > 0;
    super(
      'store_schema_version',
      newer
        ? `${location} is a yourtool store written by a newer @yourtool/store (migrations this version does not know: ${migrations.unknown.join(', ')}); upgrade to open it`
        : `${location} is a yourtool store at an older schema (migrations not applied: ${migrations.pending.join(', ')}); open it with migrations to upgrade it`,
    );
    this.url = url;
    this.location = location;
    this.direction = newer ? 'newer' : 'older';
    this.pending = migrations.pending;
    this.unknown = migrations.unknown;
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

/**
 * The database or its driver failed in a way the store has no specific error for: a lost
 * connection, a busy database past its timeout, a missing table, a constraint nobody
 * expected, ... The store catches every such error and throws this instead, so callers only
 * ever see `StoreError`s. `cause` is the driver's error; `driverCode` its code, when it has
 * one (PostgreSQL's SQLSTATE such as `42P01`, better-sqlite3's `SQLITE_BUSY`, ...). A write
 * that fails this way is rolled back: what was stored before is unchanged. Known secrets of
 * the connection (its password) are redacted from the message.
 */
export class StoreDriverError extends StoreError {
  /** The store method that failed, e.g. `appendMessages`. */
  readonly operation: string;
  /** The driver's error code, when it has one. */
  readonly driverCode: string | undefined;

  constructor(
    operation: string,
    reason: string,
    driverCode?: string,
    options?: { cause?: unknown },
  ) {
    super(
      'store_driver_error',
      `${operation} failed: ${reason}${driverCode === undefined ? '' : ` (${driverCode})`}`,
      options,
    );
    this.operation = operation;
    this.driverCode = driverCode;
  }
}

/**
 * A session cannot be exported without losing something: a stored message holds a content
 * block or field this version of the format does not know (a row written by a newer version),
 * which a tolerant read would skip. Nothing was written. Upgrade `@yourtool/store` (and core)
 * to export it.
 */
export class SessionNotExportableError extends StoreError {
  /** The session being exported. */
  readonly sessionId: string;
  /** The message that would lose data. */
  readonly messageId: string;

  constructor(sessionId: string, messageId: string, reason: string) {
    super(
      'session_not_exportable',
      `session "${sessionId}" cannot be exported exactly: message ${messageId}: ${reason} (written by a newer version? upgrade @yourtool/store and @yourtool/core)`,
    );
    this.sessionId = sessionId;
    this.messageId = messageId;
  }
}

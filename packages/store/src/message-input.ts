import {
  epochMicrosToTimestamp,
  InvalidModelIdError,
  isSealedMessage,
  issuesFromZod,
  type Message,
  MessageSchema,
  parseModelId,
  sealMessage,
  timestampToEpochMicros,
  validateMessage,
} from '@yourtool/core';
import { checkDepth, checkMessageText, toJsonText } from './checks.js';
import type { MessagesTable } from './database.js';
import { InvalidMessageError, InvalidStoreInputError, type StoreInputIssue } from './errors.js';

// What the store checks on an input before writing it, shared by the store's writes and the
// session import: messages, model ids, JSON object columns; and the batching of statements.

/** Rows per INSERT statement (well under PostgreSQL's 65535 bound parameters). */
export const ROWS_PER_STATEMENT = 500;

/** Keys per `in (...)` list. */
export const KEYS_PER_QUERY = 1000;

/** `items` in slices of `size`. */
export function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** A JSON object (not null, not an array). */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The table a unique-constraint violation happened on, if `error` is one. */
export function uniqueViolationTable(error: unknown): string | undefined {
  if (!isPlainObject(error) && !(error instanceof Error)) return undefined;
  const e = error as { code?: unknown; table?: unknown; message?: unknown };
  if (e.code === '23505') return typeof e.table === 'string' ? e.table : '';
  if (
    typeof e.code === 'string' &&
    (e.code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || e.code === 'SQLITE_CONSTRAINT_UNIQUE') &&
    typeof e.message === 'string'
  ) {
    return /constraint failed: (\w+)\./.exec(e.message)?.[1] ?? '';
  }
  return undefined;
}

/**
 * The JSON text of an object column (a routing policy).
 * @throws JsonTooDeepError, InvalidStoreInputError (a value JSON cannot hold) naming `subject`.
 */
export function checkJsonObject(
  value: unknown,
  path: string,
  issues: StoreInputIssue[],
  subject: string,
): string | null | undefined {
  if (value === undefined) return undefined;
  if (value === null) return null;
  if (!isPlainObject(value)) {
    issues.push({ path, message: 'must be a JSON object or null' });
    return undefined;
  }
  checkDepth(value, subject, path);
  return toJsonText(value, subject, path);
}

/** A canonical model id or null (`undefined` when absent); a bad one adds an issue. */
export function checkModel(value: unknown, path: string, issues: StoreInputIssue[]) {
  if (value === undefined || value === null) return value;
  if (typeof value !== 'string') {
    issues.push({ path, message: 'must be a canonical model id or null' });
    return undefined;
  }
  try {
    parseModelId(value);
  } catch (error) {
    if (!(error instanceof InvalidModelIdError)) throw error;
    issues.push({ path, message: error.message });
  }
  return value;
}

export interface CheckedMessage {
  message: Message;
  createdAt: number;
  /** `content` as JSON text, serialized once, before the write. */
  contentJson: string;
  /** `metadata` as JSON text. */
  metadataJson: string;
  /** The input was sealed: its schema and invariants were not checked again. */
  sealed: boolean;
}

/**
 * Everything checked before a message is written, in this order: nesting depth (on the raw
 * input, before anything recursive touches it), core's schemas, text columns (NUL, lone
 * surrogates), serialization to JSON, and, for a message at `status: complete` only, core's
 * `validateMessage` (canonical-format §5: partial, cancelled and errored messages may break
 * the complete-only invariants). Linear in the size of the message.
 *
 * A sealed message (core's `sealMessage`: whoever sealed it checked it against the format, and
 * it cannot have changed since) skips the schema and the invariants: only what the database
 * needs is checked (depth, text columns, JSON), and it is serialized once. Every other message
 * gets the full guard.
 */
export function checkMessage(input: Message): CheckedMessage {
  const id = isPlainObject(input) && typeof input.id === 'string' ? input.id : '(no id)';
  const subject = `message ${id}`;
  checkDepth(input, subject);
  const sealed = isSealedMessage(input);
  let message = input;
  if (!sealed) {
    const parsed = MessageSchema.safeParse(input);
    if (!parsed.success) {
      throw new InvalidStoreInputError(subject, issuesFromZod(parsed.error));
    }
    message = parsed.data;
  }
  let createdAt: number;
  try {
    createdAt = timestampToEpochMicros(message.created_at);
  } catch (error) {
    throw new InvalidStoreInputError(subject, [
      { path: 'created_at', message: (error as Error).message },
    ]);
  }
  const issues: StoreInputIssue[] = [];
  checkMessageText(message, issues);
  if (issues.length > 0) throw new InvalidStoreInputError(subject, issues);
  const contentJson = toJsonText(message.content, subject, 'content');
  const metadataJson = toJsonText(message.metadata, subject, 'metadata');
  if (!sealed && message.metadata.status === 'complete') {
    const result = validateMessage(message);
    if (!result.ok) throw new InvalidMessageError(message.id, result.violations);
  }
  return { message, createdAt, contentJson, metadataJson, sealed };
}

/**
 * The message a write stored, as a later load reads it (at `createdAt`, its stored position),
 * sealed: a sealed input itself (nothing is copied), else a private copy of what was checked,
 * so that freezing it never freezes the caller's objects.
 */
export function storedMessage(checked: CheckedMessage, createdAt = checked.createdAt): Message {
  let message = checked.message;
  if (!checked.sealed) message = structuredClone(message);
  if (createdAt !== checked.createdAt) {
    message = { ...message, created_at: epochMicrosToTimestamp(createdAt) };
  } else if (checked.sealed) {
    return message;
  }
  return sealMessage(message);
}

/** The `messages` row of a checked message. */
export function messageRow(checked: CheckedMessage): MessagesTable {
  const { message } = checked;
  return {
    id: message.id,
    session_id: message.session_id,
    role: message.role,
    content_json: checked.contentJson,
    metadata_json: checked.metadataJson,
    created_at: checked.createdAt,
    schema_version: message.schema_version,
  };
}

import { isYourtoolError, type Message } from '@yourtool/core';
import { checkJsonDepth, redactSecrets } from '@yourtool/core/adapter';
import {
  InvalidStoreInputError,
  JsonTooDeepError,
  StoreDriverError,
  type StoreInputIssue,
} from './errors.js';

// Checks run on values before anything is written (or read), so that the database only ever
// sees what it can hold, and the errors that remain are wrapped: see docs/decisions/0060, 0062.

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * Why `value` cannot go into a text column, or `undefined` when it can: a NUL character
 * (PostgreSQL's `text` cannot hold U+0000, and SQLite's C API cuts strings at it), or a lone
 * surrogate (not well-formed Unicode: both drivers encode to UTF-8 and would silently store
 * U+FFFD instead, so the value read back would differ from the value written).
 */
export function textColumnProblem(value: string): string | undefined {
  const nul = value.indexOf('\u0000');
  if (nul >= 0) {
    return `contains a NUL character (U+0000) at index ${nul}, which a database text column cannot hold`;
  }
  const surrogate = LONE_SURROGATE.exec(value);
  if (surrogate) {
    const code = surrogate[0].charCodeAt(0).toString(16).toUpperCase();
    return `contains a lone surrogate (U+${code}) at index ${surrogate.index}: not well-formed Unicode`;
  }
  return undefined;
}

/** Adds an issue when the string `value` cannot go into a text column. */
export function checkTextColumn(
  value: string | null | undefined,
  path: string,
  issues: StoreInputIssue[],
): void {
  if (typeof value !== 'string') return;
  const problem = textColumnProblem(value);
  if (problem !== undefined) issues.push({ path, message: problem });
}

/**
 * Checks a key the caller asks to read by (an id, a workspace path).
 * @throws InvalidStoreInputError when it is not a string a text column can hold.
 */
export function checkKey(value: unknown, path: string): void {
  if (typeof value !== 'string') {
    throw new InvalidStoreInputError('argument', [
      { path, message: `must be a string, got ${value === null ? 'null' : typeof value}` },
    ]);
  }
  const problem = textColumnProblem(value);
  if (problem !== undefined)
    throw new InvalidStoreInputError('argument', [{ path, message: problem }]);
}

/**
 * Checks how deeply `value` nests objects and arrays (core's `checkJsonDepth`, without
 * recursion, so any depth is safe to check).
 * @throws JsonTooDeepError naming `subject` and where, with `prefix` before the path.
 */
export function checkDepth(value: unknown, subject: string, prefix?: string): void {
  const result = checkJsonDepth(value);
  if (result.ok) return;
  if (prefix === undefined) {
    throw new JsonTooDeepError(subject, result);
  }
  throw new JsonTooDeepError(subject, {
    maxDepth: result.maxDepth,
    path:
      result.path === ''
        ? prefix
        : `${prefix}${result.path.startsWith('[') ? '' : '.'}${result.path}`,
    segments: [prefix, ...result.segments],
  });
}

/** The path of the first value `JSON.stringify` refuses (a BigInt) inside `value`, if any. */
function unserializablePath(value: unknown, path: string): string | undefined {
  // Depth was checked before serializing, so this recursion is bounded.
  if (typeof value === 'bigint') return path;
  if (typeof value !== 'object' || value === null) return undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = unserializablePath(value[i], `${path}[${i}]`);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  for (const [key, child] of Object.entries(value)) {
    const found = unserializablePath(child, `${path}.${key}`);
    if (found !== undefined) return found;
  }
  return undefined;
}

/**
 * `JSON.stringify(value)`, for a value whose depth was checked.
 * @throws InvalidStoreInputError naming `subject` and the path of what JSON cannot hold (a
 * BigInt, a `toJSON` that throws).
 */
export function toJsonText(value: unknown, subject: string, path: string): string {
  try {
    return JSON.stringify(value);
  } catch (cause) {
    const at = unserializablePath(value, path) ?? path;
    const reason = cause instanceof Error ? cause.message : String(cause);
    throw new InvalidStoreInputError(
      subject,
      [{ path: at, message: `cannot be stored as JSON (${reason})` }],
      { cause },
    );
  }
}

/** Adds an issue for every text column of a message that cannot hold its value. */
export function checkMessageText(message: Message, issues: StoreInputIssue[]): void {
  checkTextColumn(message.id, 'id', issues);
  checkTextColumn(message.session_id, 'session_id', issues);
  checkTextColumn(message.metadata.provider, 'metadata.provider', issues);
  checkTextColumn(message.metadata.parent_tool_use_id, 'metadata.parent_tool_use_id', issues);
  message.content.forEach((block, index) => {
    if (block.type === 'tool_use') {
      checkTextColumn(block.id, `content[${index}].id`, issues);
      checkTextColumn(block.name, `content[${index}].name`, issues);
    } else if (block.type === 'tool_result') {
      checkTextColumn(block.tool_use_id, `content[${index}].tool_use_id`, issues);
    }
  });
}

function isAbort(error: unknown): boolean {
  const name = (error as { name?: unknown } | null)?.name;
  return name === 'AbortError' || name === 'TimeoutError';
}

/**
 * The error a store method throws for `error`: errors of this library (and aborts the caller
 * asked for) as they are; anything else, from the driver or the database, as a
 * {@link StoreDriverError} naming `operation`, with the driver's code, and `secrets` (the
 * connection's password) redacted from the message. The original is kept as `cause`, or a
 * redacted copy of it when its message held a secret.
 */
export function toStoreError(
  operation: string,
  error: unknown,
  secrets: readonly string[],
): unknown {
  if (isYourtoolError(error) || isAbort(error)) return error;
  const raw = error instanceof Error ? error.message : String(error);
  const reason = redactSecrets(raw, secrets);
  const code = (error as { code?: unknown } | null)?.code;
  const driverCode = typeof code === 'string' && code !== '' ? code : undefined;
  let cause = error;
  if (reason !== raw) {
    const copy = new Error(reason);
    copy.name = error instanceof Error ? error.name : 'Error';
    if (driverCode !== undefined) Object.assign(copy, { code: driverCode });
    cause = copy;
  }
  return new StoreDriverError(operation, reason, driverCode, { cause });
}

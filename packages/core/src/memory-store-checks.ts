import { isUlid } from './ids.js';
import { checkJsonDepth } from './json-depth.js';
import { MemoryStoreError } from './memory-store-error.js';
import { issuesFromZod } from './parse.js';
import { type Message, MessageSchema, type Usage, UsageSchema } from './schemas/message.js';
import { isSealedMessage, sealMessage } from './sealed.js';
import { validateMessage } from './validate-message.js';

// What `MemorySessionStore` checks of a value before it stores it, as `@yourtool/store` does:
// JSON depth, the schema, a ULID id, and at `status: complete` the canonical invariants.

/**
 * A private copy of a JSON value the caller gave (a routing policy), refused when it nests too
 * deep or cannot be cloned.
 * @throws MemoryStoreError (`json_too_deep`, `invalid_store_input`) naming `subject`.
 */
export function checkedJson<T>(value: T, subject: string): T {
  const depth = checkJsonDepth(value);
  if (!depth.ok) {
    throw new MemoryStoreError(
      'json_too_deep',
      `invalid ${subject}: ${depth.path}: nests objects and arrays more than ${depth.maxDepth} levels deep; nothing was stored`,
    );
  }
  try {
    return structuredClone(value);
  } catch (error) {
    throw new MemoryStoreError(
      'invalid_store_input',
      `invalid ${subject}: ${(error as Error).message}`,
      {
        cause: error,
      },
    );
  }
}

/**
 * Schema, depth and (at complete) invariants; returns a private sealed copy, or a sealed message
 * itself (it was checked against the schema and its invariants when it was sealed).
 * @throws MemoryStoreError (`json_too_deep`, `invalid_store_input`, `invalid_message`).
 */
export function checkedMessage(message: Message): Message {
  if (isSealedMessage(message)) return checkedSealed(message);
  const depth = checkJsonDepth(message);
  if (!depth.ok) {
    throw new MemoryStoreError(
      'json_too_deep',
      `invalid message: ${depth.path}: nests objects and arrays more than ${depth.maxDepth} levels deep; nothing was stored`,
    );
  }
  const parsed = MessageSchema.safeParse(message);
  if (!parsed.success) {
    const issues = issuesFromZod(parsed.error);
    throw new MemoryStoreError(
      'invalid_store_input',
      `invalid message ${String((message as { id?: unknown }).id)}: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`,
    );
  }
  const copy = structuredClone(parsed.data);
  if (!isUlid(copy.id)) {
    throw new MemoryStoreError(
      'invalid_store_input',
      `invalid message: id "${copy.id}" is not a ULID`,
    );
  }
  if (copy.metadata.status === 'complete') assertInvariants(copy);
  return sealMessage(copy);
}

function checkedSealed(message: Message): Message {
  const depth = checkJsonDepth(message);
  if (!depth.ok) {
    throw new MemoryStoreError(
      'json_too_deep',
      `invalid message: ${depth.path}: nests objects and arrays more than ${depth.maxDepth} levels deep; nothing was stored`,
    );
  }
  if (!isUlid(message.id)) {
    throw new MemoryStoreError(
      'invalid_store_input',
      `invalid message: id "${message.id}" is not a ULID`,
    );
  }
  return message;
}

/**
 * A usage checked against its schema, for `updateMessageUsage` of message `messageId`.
 * @throws MemoryStoreError (`invalid_store_input`) listing each issue.
 */
export function checkedUsage(usage: Usage, messageId: string): Usage {
  const parsed = UsageSchema.safeParse(usage);
  if (!parsed.success) {
    const issues = issuesFromZod(parsed.error, 'usage');
    throw new MemoryStoreError(
      'invalid_store_input',
      `invalid usage for message ${messageId}: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`,
    );
  }
  return parsed.data;
}

/**
 * Refuses a complete message that breaks the canonical format's invariants.
 * @throws MemoryStoreError (`invalid_message`) listing each violation.
 */
export function assertInvariants(message: Message): void {
  const result = validateMessage(message);
  if (!result.ok) {
    throw new MemoryStoreError(
      'invalid_message',
      `complete message ${message.id} breaks the canonical format's invariants, nothing was stored: ${result.violations
        .map((v) => `[${v.rule}] ${v.path}: ${v.message}`)
        .join('; ')}`,
    );
  }
}

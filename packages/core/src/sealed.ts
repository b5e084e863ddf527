import type { Message } from './schemas/message.js';
import type { ToolDefinition } from './schemas/tool.js';

/**
 * Messages that passed the canonical schema and were deep-frozen afterwards. Frozen, they can
 * no longer change, so what was checked or computed about them once stays true: requests that
 * carry them skip their schema check, and their token estimates are computed once.
 */
const sealed = new WeakSet<object>();

function deepFreeze(value: unknown): void {
  if (value === null || typeof value !== 'object' || Object.isFrozen(value)) return;
  Object.freeze(value);
  for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key]);
}

/**
 * Seals a message that is known to satisfy `MessageSchema` and, at `status: complete`,
 * `validateMessage`'s invariants (parsed from the store, built by `createMessage` from valid
 * parts, or checked): deep-freezes it and remembers it, so that `normalizeRequest` and the stores
 * do not check it again and the token heuristic estimates it once. Returns the same
 * object, now read-only: seal only messages you own (e.g. a copy), since freezing also freezes
 * the objects nested in it.
 *
 * A sealed message that is changed must be replaced by a new object (`{ ...message, ... }`),
 * which is unsealed and checked again.
 */
export function sealMessage<T extends Message>(message: T): Readonly<T> {
  deepFreeze(message);
  sealed.add(message);
  return message;
}

/** Whether `value` is a message sealed by {@link sealMessage} (validated and immutable). */
export function isSealedMessage(value: unknown): value is Message {
  return typeof value === 'object' && value !== null && sealed.has(value);
}

/**
 * Deep-freezes a tool definition so its token estimate is computed once (the session's tool
 * registry freezes the definitions it hands out). Returns the same object.
 */
export function freezeToolDefinition<T extends ToolDefinition>(tool: T): Readonly<T> {
  deepFreeze(tool);
  return tool;
}

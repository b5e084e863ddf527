import { isSealedMessage, type Message, sealMessage } from '@yourtool/core';

/**
 * The stored copy of a message a write stored, as a later load reads it, sealed: the one copy a
 * turn's conversation and the history cache hold. A store that hands the stored message back
 * (`@yourtool/store`) gives it; for one that returns nothing, the message sent is it: sealed
 * already when the session checked it, else a sealed private copy (an unsealed message is one
 * the store checked before it wrote it), so nothing the session wrote is parsed again.
 */
export function storedCopy(result: unknown, sent: Message): Message {
  if (isSealedMessage(result) && result.id === sent.id) return result;
  if (isSealedMessage(sent)) return sent;
  return sealMessage(copyMessage(sent));
}

/**
 * A sealed private copy of a message the session checked (so the store takes it without
 * checking it again, and the caller's copy stays unfrozen); the message itself when it cannot
 * be copied (a value structured cloning refuses), for the store to check and refuse.
 */
export function sealedCopy(message: Message): Message {
  try {
    return sealMessage(copyMessage(message));
  } catch {
    return message;
  }
}

/** A deep copy of a message; throws what `structuredClone` throws for a value it refuses. */
function copyMessage(message: Message): Message {
  return (copyJson(message) as Message | undefined) ?? structuredClone(message);
}

/**
 * A deep copy of plain JSON-like data (plain objects, arrays, primitives, `undefined` members),
 * several times faster than `structuredClone` for a message; undefined when `value` holds
 * anything else, which `structuredClone` copies (or refuses) instead.
 */
function copyJson(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) {
    return typeof value === 'function' || typeof value === 'symbol' ? undefined : value;
  }
  if (Array.isArray(value)) {
    const out: unknown[] = new Array(value.length);
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      const copy = copyJson(item);
      if (copy === undefined && item !== undefined) return undefined;
      out[i] = copy;
    }
    return out;
  }
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return undefined;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const item = (value as Record<string, unknown>)[key];
    const copy = copyJson(item);
    if (copy === undefined && item !== undefined) return undefined;
    out[key] = copy;
  }
  return out;
}

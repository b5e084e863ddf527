import type { Message } from '@yourtool/core';

// What a kept history costs in heap, estimated once per message as it joins the history cache
// (decision 0186): a walk over the message's values, never a JSON.stringify of the history.

/** Heap bytes of an object, besides its property values: header and one slot per property. */
const OBJECT_BYTES = 24;
/** Heap bytes of an array, besides its elements: header and backing store header. */
const ARRAY_BYTES = 32;
/** Heap bytes of one property or element slot (a pointer). */
const SLOT_BYTES = 8;
/** Heap bytes of a string besides its characters (header, length, hash). */
const STRING_BYTES = 16;
/** Heap bytes of a number that is not a small integer (a boxed double). */
const NUMBER_BYTES = 16;
/** A character above U+00FF: V8 keeps the whole string at two bytes a character. */
const TWO_BYTE = /[\u0100-\uffff]/;

/** Estimated heap bytes of a string's characters and header. */
function stringBytes(text: string): number {
  const perChar = text.length > 0 && TWO_BYTE.test(text) ? 2 : 1;
  return STRING_BYTES + text.length * perChar;
}

/**
 * Estimated heap bytes of a JSON-like value (what a stored message is): strings by their
 * length, objects and arrays by their slots, numbers as boxed doubles when not small integers.
 * Property names are not counted: V8 shares them between objects. Walks with its own stack, so
 * a deeply nested tool input cannot overflow the call stack.
 */
export function estimatedValueBytes(value: unknown): number {
  let bytes = 0;
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const next = pending.pop();
    if (typeof next === 'string') bytes += stringBytes(next);
    else if (typeof next === 'number') bytes += Number.isInteger(next) ? 0 : NUMBER_BYTES;
    else if (Array.isArray(next)) {
      bytes += ARRAY_BYTES + next.length * SLOT_BYTES;
      for (const item of next) pending.push(item);
    } else if (typeof next === 'object' && next !== null) {
      const values = Object.values(next);
      bytes += OBJECT_BYTES + values.length * SLOT_BYTES;
      for (const item of values) pending.push(item);
    }
  }
  return bytes;
}

/** Estimated heap bytes of the given messages, each walked once. */
export function estimatedMessagesBytes(messages: readonly Message[]): number {
  let bytes = 0;
  for (const message of messages) bytes += estimatedValueBytes(message);
  return bytes;
}

/**
 * Heap bytes of a kept history besides its messages and lists: the cache's entry and map slot,
 * the session's figures, the tool id map's own maps. Measured: 1,000 histories of 4 to 42
 * stored messages loaded from SQLite took 0.9 to 1.5 KB each more than their messages and
 * lists as estimated without it (decision 0186).
 */
const ENTRY_BYTES = 960;
/** Heap bytes of one tool id map link: an entry in each of its two maps, the provider's id. */
const TOOL_ID_LINK_BYTES = 2 * (3 * SLOT_BYTES) + STRING_BYTES + 40;
/** Heap bytes a message costs besides its values: its slot in core's set of sealed messages. */
const SEALED_ENTRY_BYTES = 2 * SLOT_BYTES;

/**
 * Estimated heap bytes of what a kept history holds besides its messages' values: the entry
 * itself, the message list and the conversation list (whose entries are mostly the same
 * message objects), and the tool id map's links.
 */
export function estimatedListsBytes(
  messageCount: number,
  conversationCount: number,
  toolIdLinks: number,
): number {
  return (
    ENTRY_BYTES +
    2 * ARRAY_BYTES +
    messageCount * (SLOT_BYTES + SEALED_ENTRY_BYTES) +
    conversationCount * SLOT_BYTES +
    toolIdLinks * TOOL_ID_LINK_BYTES
  );
}

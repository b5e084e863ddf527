import {
  type AppendMessageOptions,
  isSealedMessage,
  type Message,
  type SessionStore,
  sealMessage,
} from '@yourtool/core';
import type { TurnLeaseHolder } from './turn-lease.js';

/**
 * Every write of one turn to its session goes through here, so that at the end of the turn the
 * history cache can take in exactly what was stored: the stored messages (sealed) and how many
 * writes raised the store's revision.
 */
export class TurnWrites {
  /** The revision the turn's history was loaded at; null when it is not known to match. */
  start: number | null = null;
  /** Successful appends and updates. */
  count = 0;
  /** A write failed, or updated a message this turn did not append: forget the session. */
  failed = false;
  /** Whether the history cache took these writes in already. */
  settled = false;
  /**
   * The session's revision as the last write left it, when the store reports it
   * (`onRevision`); null before a write, or from a store that does not.
   */
  lastRevision: number | null = null;
  /** The stored state of every message written, by id, sealed. */
  readonly messages = new Map<string, Message>();
  /**
   * The turn's lease on its session, when the store keeps leases: each write takes, holds or
   * releases it in its own transaction (decision 0156).
   */
  readonly lease: TurnLeaseHolder | null;
  readonly #store: SessionStore;

  constructor(store: SessionStore, lease: TurnLeaseHolder | null = null) {
    this.#store = store;
    this.lease = lease;
  }

  /** Appends a message; resolves to the message as stored (sealed). */
  append(message: Message, options?: AppendMessageOptions): Promise<Message> {
    return this.#write('append', message, options);
  }

  /** Replaces a message this turn appended; resolves to the message as stored (sealed). */
  update(message: Message, options?: AppendMessageOptions): Promise<Message> {
    return this.#write('update', message, options);
  }

  async #write(
    kind: 'append' | 'update',
    message: Message,
    options: AppendMessageOptions | undefined,
  ): Promise<Message> {
    if (kind === 'update' && !this.messages.has(message.id)) this.failed = true;
    let revision: number | null = null;
    const lease = this.lease?.writeFor(message);
    const heard = { ...options, onRevision: (r: number) => (revision = r), lease };
    let result: unknown;
    try {
      result =
        kind === 'append'
          ? await this.#store.appendMessage(message, heard)
          : await this.#store.updateMessage(message, heard);
    } catch (error) {
      // whether the store counted it is unknown: the next turn loads the session again
      this.failed = true;
      throw lease && this.lease ? this.lease.failed(lease, error) : error;
    }
    if (lease) this.lease?.wrote(lease);
    const stored = storedMessage(result, message);
    this.lastRevision = revision;
    this.count++;
    this.messages.set(message.id, stored);
    return stored;
  }
}

/**
 * The message a write stored, as a later load reads it, sealed. A store that hands the stored
 * message back (`@yourtool/store`) gives it; for one that returns nothing, the message sent is
 * it: sealed already when the session checked it, else a sealed private copy (an unsealed
 * message is one the store checked before it wrote it), so nothing the session wrote is parsed
 * again.
 */
function storedMessage(result: unknown, sent: Message): Message {
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

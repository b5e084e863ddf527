import type { Message } from './schemas/message.js';
import { isSealedMessage } from './sealed.js';

/**
 * One step of a fold over a history: takes one more message (at `index` in the history) into
 * `state`, changing it in place.
 */
export type PrefixStep<S> = (state: S, message: Message, index: number) => void;

/** The fold of a history's sealed prefix. */
export interface SealedPrefix<S> {
  /**
   * The state after `messages[0 .. end)`. It stays the memo's: read it, or copy it before
   * folding more into it.
   */
  state: S;
  /** Where the sealed prefix ends: `messages[end]` is the first message not sealed. */
  end: number;
}

/** What a memo keeps for one history (per key): how far it folded `prefix`, and the result. */
interface Entry<S> {
  key: string;
  /** The shared array of the history's sealed messages it folded the first `length` of. */
  prefix: Message[];
  length: number;
  state: S;
}

/** Keys kept per history, the least recently used dropped first (a session's targets). */
const KEYS_PER_HISTORY = 4;

/**
 * Remembers a fold over the sealed messages a history starts with (decision 0148). Sealed
 * messages (`sealMessage`) cannot change, so the fold of the same objects is the same; a
 * session's next request carries the same sealed messages, then more, and folds only those.
 * The messages are compared by identity (one pointer comparison each), never by content; a
 * history that does not start with the remembered messages (compaction, another session,
 * an edit) is folded from its start.
 *
 * Histories are told apart by their first message (held weakly: a history that is dropped
 * takes its memo with it), and a history's folds by `key` (e.g. the target model and options,
 * when the fold depends on them; {@link KEYS_PER_HISTORY} kept).
 *
 * Owner and lifetime (decision 0165): everything a memo remembers is held by the instance, so
 * it lives as long as whoever created it. A fold that depends on more than the messages (a
 * target, a map, earlier turns) is held by its owner (an adapter, a session manager); only a
 * fold of the sealed messages alone may sit in a module, being a fact about them. Bound: per
 * history (weakly, by its first message) one array of its sealed messages and at most
 * {@link KEYS_PER_HISTORY} folds.
 */
export class SealedPrefixMemo<S> {
  readonly #initial: () => S;
  readonly #histories = new WeakMap<Message, Array<Entry<S>>>();
  /**
   * The sealed messages each history was seen to start with, by its first message (held
   * weakly), shared by this memo's keys: one array per history, however many folds remember
   * it. It only grows; a history that goes another way after some message gets a new array
   * (and the folds remembered over the old one start again).
   */
  readonly #seen = new WeakMap<Message, Message[]>();

  /** `initial` makes the state before any message. */
  constructor(initial: () => S) {
    this.#initial = initial;
  }

  /**
   * The fold of `messages`' sealed prefix: the remembered state moved forward by `step` over
   * the sealed messages that follow what it covers, or a new fold when `messages` does not
   * start with the remembered messages. Everything `step` depends on besides the message must
   * be in `key`.
   */
  run(messages: readonly Message[], step: PrefixStep<S>, key = ''): SealedPrefix<S> {
    const first = messages[0];
    if (first === undefined || !isSealedMessage(first)) {
      return { state: this.#initial(), end: 0 };
    }
    const entries = this.#histories.get(first) ?? [];
    this.#histories.set(first, entries);
    const entry = this.#entry(entries, messages, key);
    try {
      this.#extend(entry, messages, step);
    } catch (error) {
      // a step that threw may have left the state half-changed: nothing of it is kept
      entries.splice(entries.indexOf(entry), 1);
      throw error;
    }
    return { state: entry.state, end: entry.length };
  }

  /** The remembered fold of `key` when `messages` start with what it covers, else a new one. */
  #entry(entries: Array<Entry<S>>, messages: readonly Message[], key: string): Entry<S> {
    const shared = this.#seen.get(messages[0] as Message);
    const at = entries.findIndex((e) => e.key === key);
    let entry = at >= 0 ? (entries.splice(at, 1)[0] as Entry<S>) : undefined;
    if (!entry || entry.prefix !== shared || !startsWith(messages, entry.prefix, entry.length)) {
      entry = { key, prefix: shared ?? [], length: 0, state: this.#initial() };
    }
    entries.push(entry);
    if (entries.length > KEYS_PER_HISTORY) entries.shift();
    return entry;
  }

  /** Folds the sealed messages after what `entry` covers, recording them in the shared array. */
  #extend(entry: Entry<S>, messages: readonly Message[], step: PrefixStep<S>): void {
    const first = messages[0] as Message;
    if (this.#seen.get(first) !== entry.prefix) this.#seen.set(first, entry.prefix);
    while (entry.length < messages.length) {
      const at = entry.length;
      const message = messages[at] as Message;
      if (!isSealedMessage(message)) break;
      if (at === entry.prefix.length) entry.prefix.push(message);
      else if (entry.prefix[at] !== message) {
        // this history goes another way from here: a new shared array, up to here
        entry.prefix = entry.prefix.slice(0, at);
        entry.prefix.push(message);
        this.#seen.set(first, entry.prefix);
      }
      step(entry.state, message, at);
      entry.length = at + 1;
    }
  }
}

/** Whether `messages` starts with exactly the first `length` objects of `prefix`. */
function startsWith(
  messages: readonly Message[],
  prefix: readonly Message[],
  length: number,
): boolean {
  if (length > messages.length || length > prefix.length) return false;
  for (let i = 0; i < length; i++) if (messages[i] !== prefix[i]) return false;
  return true;
}

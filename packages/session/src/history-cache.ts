import {
  type Logger,
  type Message,
  type SessionRecord,
  type SessionStats,
  type SessionStore,
  sealMessage,
  sessionStatsOf,
  sumDecimalStrings,
  ToolIdMap,
  timestampToEpochMicros,
} from '@yourtool/core';
import { conversationOf, extendConversation } from './conversation.js';
import { errorText } from './errors.js';
import { estimatedListsBytes, estimatedMessagesBytes } from './history-size.js';

/** A session's history as the manager last loaded and wrote it. */
interface KnownHistory {
  /** The store's `revision` of the session that `messages` are exactly. */
  revision: number;
  /** Every stored message of the session, in the store's order, sealed. */
  messages: readonly Message[];
  /** `conversationOf(messages)`, kept up to date with them. */
  conversation: readonly Message[];
  toolIdMap: ToolIdMap;
  /** The session's figures over `messages`. */
  stats: SessionStats;
  /** Estimated heap bytes of `messages` alone, each message walked once when it joined. */
  messageBytes: number;
  /** Estimated heap bytes of the whole entry: `messageBytes` and the lists around them. */
  bytes: number;
}

/** How much a {@link HistoryCache} keeps. */
export interface HistoryCacheLimits {
  /** Estimated heap bytes all kept histories may take together; 0 keeps none. */
  readonly bytes: number;
  /** Histories kept at most (`keptSessions`); Infinity for no count bound, 0 keeps none. */
  readonly sessions: number;
}

/**
 * What one turn wrote to its session, as the cache takes it in at the turn's end (the turn's
 * log keeps it, decision 0162).
 */
export interface TurnWriteRecord {
  /** The revision the turn's history was loaded at; null when it is not known to match. */
  readonly start: number | null;
  /** Successful appends and updates. */
  readonly count: number;
  /** A write failed, or updated a message the turn did not append: forget the session. */
  readonly failed: boolean;
  /** Whether the cache took these writes in already (set by {@link HistoryCache.settle}). */
  settled: boolean;
  /** The session's revision as the turn's last write left it, when the store reports it. */
  readonly lastRevision: number | null;
  /** The stored copy of every message written, by id (sealed). */
  readonly storedCopies: ReadonlyMap<string, Message>;
}

/** A session's stored messages and tool id map, as a turn starts from them. */
export interface LoadedHistory {
  /** Every stored message, in the store's order, sealed (validated, read-only). */
  messages: readonly Message[];
  /** The conversation they amount to ({@link conversationOf}). */
  conversation: readonly Message[];
  toolIdMap: ToolIdMap;
  /** The store's revision these messages are exactly; null when not known. */
  revision: number | null;
}

/**
 * The histories a manager keeps between turns, so a turn reads one session row and no message
 * rows. A kept history is used while the store's `revision` is the one it describes; another
 * writer, a repricing, a store without revisions or a failed write makes the next turn load
 * the session again (docs/decisions/0103). What is kept is bounded by its estimated heap bytes
 * (and optionally a count): the least recently used histories are dropped first, but never the
 * history of a session whose turn is running ({@link hold}), which the turn's end brings up to
 * date (docs/decisions/0186).
 */
export class HistoryCache {
  readonly #store: SessionStore;
  readonly #logger: Logger;
  readonly #limits: HistoryCacheLimits;
  /** By session id; the map's order is the eviction order, most recently used last. */
  readonly #known = new Map<string, KnownHistory>();
  /** Sessions whose turn is running in this manager: their histories are not dropped. */
  readonly #held = new Set<string>();
  /** The sum of the kept histories' `bytes`. */
  #bytes = 0;

  constructor(store: SessionStore, logger: Logger, limits: HistoryCacheLimits) {
    this.#store = store;
    this.#logger = logger;
    this.#limits = limits;
  }

  /** The estimated heap bytes of the histories kept now (what the byte budget bounds). */
  get keptBytes(): number {
    return this.#bytes;
  }

  /** How many histories are kept now. */
  get keptSessions(): number {
    return this.#known.size;
  }

  /** The estimated heap bytes of a session's kept history, or null when none is kept. */
  keptBytesOf(sessionId: string): number | null {
    return this.#known.get(sessionId)?.bytes ?? null;
  }

  /**
   * Keeps the session's history (once loaded) while its turn runs, whatever the budget: a
   * history dropped mid-turn would miss the turn's writes and be loaded again next turn. One
   * turn per session runs in a manager, so a set is enough; {@link release} ends the hold.
   */
  hold(sessionId: string): void {
    this.#held.add(sessionId);
  }

  /** Ends {@link hold} (after the turn's writes were settled) and drops what is over budget. */
  release(sessionId: string): void {
    this.#held.delete(sessionId);
    this.#trim();
  }

  /** Keeps `known` as the most recently used history, then drops what is over budget. */
  #remember(sessionId: string, known: KnownHistory): void {
    this.#forget(sessionId);
    this.#known.set(sessionId, known);
    this.#bytes += known.bytes;
    this.#trim();
  }

  /** Drops the session's kept history, if any. */
  #forget(sessionId: string): void {
    const known = this.#known.get(sessionId);
    if (!known) return;
    this.#known.delete(sessionId);
    this.#bytes -= known.bytes;
  }

  /** Drops the least recently used histories not held until within both limits. */
  #trim(): void {
    const { bytes, sessions } = this.#limits;
    for (const [id, known] of this.#known) {
      if (this.#bytes <= bytes && this.#known.size <= sessions) return;
      if (this.#held.has(id)) continue;
      this.#known.delete(id);
      this.#bytes -= known.bytes;
    }
  }

  /** Sets a kept entry's `bytes` anew (its messages or lists changed) and the total with it. */
  #resize(known: KnownHistory): void {
    const before = known.bytes;
    known.bytes = entryBytes(known);
    this.#bytes += known.bytes - before;
  }

  /**
   * Keeps an empty history for a session this manager just created (`session` as the store
   * returned it), so its first turn reads one session row and no message rows, as later turns
   * do. The first turn's revision check still reloads it should another writer come first.
   */
  seed(session: SessionRecord): void {
    if (session.revision === undefined || !this.#keepsAny() || this.#known.has(session.id)) return;
    this.#remember(session.id, knownHistory(session.revision, [], [], new ToolIdMap()));
  }

  /** Whether the limits let any history be kept. */
  #keepsAny(): boolean {
    return this.#limits.bytes > 0 && this.#limits.sessions > 0;
  }

  /**
   * The session's history: the kept one when `session.revision` (just read) is the one it
   * describes, else loaded from the store. A loaded history is kept only when the revision
   * read after loading is still the one read before, so the kept revision describes exactly
   * the messages kept, even while another writer (or this manager's own turn) writes.
   */
  async load(session: SessionRecord): Promise<LoadedHistory> {
    const known = this.#known.get(session.id);
    if (known && session.revision !== undefined && known.revision === session.revision) {
      this.#known.delete(session.id);
      this.#known.set(session.id, known);
      return known;
    }
    this.#forget(session.id);
    const loaded = await this.#store.loadMessages(session.id);
    for (const error of loaded.errors) {
      this.#logger.warn(
        { event: 'history_row_unreadable', session_id: session.id, row: error.rowId },
        error.message,
      );
    }
    const toolIdMap = await this.#store.loadToolIdMap(session.id);
    const messages = loaded.messages.map((m) => sealMessage(m));
    const conversation = conversationOf(messages);
    // a history with unreadable rows is loaded (and warned about) every turn until repaired
    const keep = session.revision !== undefined && loaded.errors.length === 0 && this.#keepsAny();
    const revision = keep ? await this.#revisionStill(session) : null;
    if (revision !== null) {
      this.#remember(session.id, knownHistory(revision, messages, conversation, toolIdMap));
    }
    return { messages, conversation, toolIdMap, revision };
  }

  /** The session's revision when it is still the one `session` was read at, else null. */
  async #revisionStill(session: SessionRecord): Promise<number | null> {
    const now = await this.#store.getSession(session.id);
    return now?.revision !== undefined && now.revision === session.revision ? now.revision : null;
  }

  /**
   * Brings the kept history of a session up to date with what a turn wrote (once per turn):
   * the stored messages join it in the store's order and its revision moves by the number of
   * writes. A failed write, or a turn that started from another revision than the kept one,
   * forgets the session.
   */
  settle(sessionId: string, writes: TurnWriteRecord): void {
    if (writes.settled) return;
    writes.settled = true;
    const known = this.#known.get(sessionId);
    if (!known) return;
    if (writes.failed || writes.start !== known.revision) {
      this.#forget(sessionId);
      return;
    }
    if (writes.count === 0) return;
    const added = [...writes.storedCopies.values()].sort(storeOrder);
    const [first] = added;
    const last = known.messages.at(-1);
    if (first && last && storeOrder(last, first) > 0) {
      // a message dated after this turn's (a writer whose clock runs ahead) stays last
      known.messages = [...known.messages, ...added].sort(storeOrder);
      known.conversation = conversationOf(known.messages);
      known.stats = sessionStatsOf(known.messages);
    } else {
      known.conversation = extendConversation(known, added);
      known.messages = [...known.messages, ...added];
      known.stats = combineStats(known.stats, sessionStatsOf(added));
    }
    known.revision += writes.count;
    known.messageBytes += estimatedMessagesBytes(added);
    this.#resize(known);
    this.#trim();
  }

  /**
   * The session's running total cost: from the kept history when nobody else wrote to the
   * session since it was read (the revision the turn's last write reported is the one its
   * writes made it, decision 0148; or the store's session row says so), else the store's
   * `sessionStats()` when it has one, else summed over the loaded messages; null when any
   * assistant message is unpriced or the figure cannot be read (logged).
   */
  async sessionCost(sessionId: string, writes: TurnWriteRecord): Promise<string | null> {
    const costOf = (stats: SessionStats) =>
      stats.unpriced_messages > 0 ? null : stats.total_cost_usd;
    try {
      this.settle(sessionId, writes);
      const known = this.#known.get(sessionId);
      if (known && writes.count > 0 && writes.lastRevision === known.revision) {
        return costOf(known.stats);
      }
      if (known) {
        const now = await this.#store.getSession(sessionId);
        if (now?.revision === known.revision) return costOf(known.stats);
        this.#forget(sessionId);
      }
      const stats = this.#store.sessionStats
        ? await this.#store.sessionStats(sessionId)
        : sessionStatsOf((await this.#store.loadMessages(sessionId)).messages);
      return costOf(stats);
    } catch (error) {
      this.#logger.warn(
        { event: 'session_cost_unreadable', session_id: sessionId, error: errorText(error) },
        'could not read the session cost',
      );
      return null;
    }
  }
}

/** A history to keep under `revision`, its figures and estimated size computed once. */
function knownHistory(
  revision: number,
  messages: readonly Message[],
  conversation: readonly Message[],
  toolIdMap: ToolIdMap,
): KnownHistory {
  const known: KnownHistory = {
    revision,
    messages,
    conversation,
    toolIdMap,
    stats: sessionStatsOf(messages),
    messageBytes: estimatedMessagesBytes(messages),
    bytes: 0,
  };
  known.bytes = entryBytes(known);
  return known;
}

/** A kept entry's estimated heap bytes: its messages, and the lists around them as they are now. */
function entryBytes(known: KnownHistory): number {
  const { messages, conversation, toolIdMap } = known;
  return (
    known.messageBytes + estimatedListsBytes(messages.length, conversation.length, toolIdMap.size)
  );
}

/** A timestamp as the canonical format writes it: `YYYY-MM-DDTHH:MM:SS.ffffffZ`. */
const CANONICAL_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

/** The store's load order: `created_at`, then id. */
function storeOrder(a: Message, b: Message): number {
  // two canonical timestamps (one fixed width, UTC) sort as their text does: no parsing
  const at =
    CANONICAL_TIMESTAMP.test(a.created_at) && CANONICAL_TIMESTAMP.test(b.created_at)
      ? a.created_at < b.created_at
        ? -1
        : a.created_at > b.created_at
          ? 1
          : 0
      : timestampToEpochMicros(a.created_at) - timestampToEpochMicros(b.created_at);
  if (at !== 0) return at;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/** The figures of two runs of messages, one after the other. */
function combineStats(before: SessionStats, after: SessionStats): SessionStats {
  return {
    message_count: before.message_count + after.message_count,
    last_model: after.last_model ?? before.last_model,
    total_cost_usd: sumDecimalStrings([before.total_cost_usd, after.total_cost_usd]),
    unpriced_messages: before.unpriced_messages + after.unpriced_messages,
  };
}

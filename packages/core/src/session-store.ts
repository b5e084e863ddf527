import { YourtoolError } from './errors.js';
import type { Message, Usage } from './schemas/message.js';
import type { ToolIdMap } from './tool-id-map.js';

/** A persisted session (canonical-format §10, table `sessions`). */
export interface SessionRecord {
  id: string;
  workspace_path: string;
  /** Canonical model id chosen with `/model`, if any. */
  active_model: string | null;
  /** The session's routing policy, stored as JSON. */
  routing_policy: Record<string, unknown> | null;
  schema_version: number;
  /** ISO-8601 UTC, microseconds. */
  created_at: string;
  updated_at: string;
  /**
   * A counter the store raises with every write to the session's messages (append, update,
   * usage update): a reader that keeps the history in memory reloads it when the counter is
   * not what its own writes made it (decision 0103). Absent when the store keeps none; the
   * session manager then reloads the history every turn.
   */
  revision?: number;
  /** Figures about the session's messages, when asked for (`listSessions({ withStats: true })`). */
  stats?: SessionStats;
  /**
   * The turn lease on the session as `getSession` read it, from stores that keep leases
   * ({@link TurnLeaseStore}), while a turn holds it (or held it and it expired): absent when
   * the session is free, from other stores, and from lists (decision 0156).
   */
  turn_lease?: TurnLeaseState;
  /**
   * Who the session belongs to, for budgets (decision 0182): an opaque user id, tenant id and
   * tags. Absent when not set; stores that keep none never return them.
   */
  user?: string;
  /** The tenant the session belongs to (decision 0182). */
  tenant?: string;
  /** The session's tags, e.g. an agent or feature name (decision 0182). */
  tags?: string[];
}

/** A turn lease as a read saw it. */
export interface TurnLeaseState {
  /** The id of the turn holding it. */
  id: string;
  /**
   * Milliseconds until it expires unless renewed, measured on the store's clock (the database
   * server's, for PostgreSQL) when it was read; 0 or less when it has expired, and may be
   * taken.
   */
  expires_in_ms: number;
}

/** A turn's claim on its session: who holds the lease, for how long (decision 0156). */
export interface TurnLease {
  /** Unique per turn: the lease is held by this id, and only this id renews or releases it. */
  id: string;
  /** How long the lease lives after each take or renewal, in milliseconds (1 or more). */
  ttlMs: number;
}

/**
 * What a write does to its session's turn lease, in the write's own transaction (decision
 * 0156): `take` it (free, expired, or already this turn's), `hold` it (the write is refused
 * unless this turn still holds it; the lease is renewed) or `release` it (likewise refused
 * unless held; the session is free once the write commits).
 */
export type TurnLeaseWrite = { take: TurnLease } | { hold: TurnLease } | { release: TurnLease };

/** What a session holds, in figures: for session lists and cost displays. */
export interface SessionStats {
  /** Messages stored, every role and status. */
  message_count: number;
  /** Canonical id of the model of the newest assistant message, `null` before the first reply. */
  last_model: string | null;
  /**
   * Exact sum of `usage.cost_usd` over the session's assistant messages, as a decimal string
   * (`"0"` for none). Unpriced messages are not in it: see `unpriced_messages`.
   */
  total_cost_usd: string;
  /** Assistant messages that carry usage but no price (`cost_usd: null`): never counted as free. */
  unpriced_messages: number;
}

/** What creating a session takes. */
export interface CreateSessionInput {
  /** Defaults to a new `sess_<ulid>`. */
  id?: string;
  workspace_path: string;
  active_model?: string | null;
  routing_policy?: Record<string, unknown> | null;
  /**
   * Who the session belongs to, for budgets (decision 0182): an opaque user id, tenant id and
   * tags. Absent when not set; stores that keep none never return them.
   */
  user?: string;
  /** The tenant the session belongs to (decision 0182). */
  tenant?: string;
  /** The session's tags, e.g. an agent or feature name (decision 0182). */
  tags?: string[];
}

/** Fields of a session that can change. */
export interface SessionPatch {
  workspace_path?: string;
  active_model?: string | null;
  routing_policy?: Record<string, unknown> | null;
}

/** Lifecycle of a tool call row. */
export type ToolCallStatus = 'pending' | 'succeeded' | 'failed' | 'cancelled';

/** A persisted tool call (table `tool_calls`): one per tool use block. */
export interface ToolCallRecord {
  /** The canonical tool use id. */
  id: string;
  session_id: string;
  /** The assistant message holding the tool use. */
  message_id: string;
  /** The tool message answering it, once answered. */
  result_message_id: string | null;
  name: string;
  status: ToolCallStatus;
  /** The provider's id for the call when it generated it. */
  provider_id: string | null;
  provider: string | null;
  created_at: string;
  completed_at: string | null;
}

/** A stored row that could not be read. The rest of the session still loads. */
export class CorruptRowError extends YourtoolError {
  /** Table of the row. */
  readonly table: 'sessions' | 'messages' | 'tool_calls';
  /** Primary key of the row. */
  readonly rowId: string;

  constructor(
    table: 'sessions' | 'messages' | 'tool_calls',
    rowId: string,
    reason: string,
    options?: { cause?: unknown },
  ) {
    super('corrupt_row', `${table} row ${rowId} cannot be read: ${reason}`, options);
    this.table = table;
    this.rowId = rowId;
  }
}

/** Messages read from the store, with the rows that could not be read. */
export interface LoadedMessages {
  messages: Message[];
  errors: CorruptRowError[];
}

/** One page of a session's messages. */
export interface MessagePage extends LoadedMessages {
  /** Pass as `after` to get the next page; `null` on the last page. */
  next_cursor: string | null;
}

/** Options of {@link SessionStore.appendMessage}. */
export interface AppendMessageOptions {
  /**
   * The session's tool id map: for an assistant message with tool uses, the provider ids it
   * holds are stored on the `tool_calls` rows (`provider_id`, `provider`).
   */
  toolIdMap?: ToolIdMap;
  /**
   * Called once the write is committed, with the session's `revision` as this write left it
   * (by stores that keep revisions; others never call it). A caller that knows the revision
   * its history was read at can tell from it whether anyone else wrote to the session in
   * between, without reading the session again (decision 0148).
   */
  onRevision?: (revision: number) => void;
  /**
   * The turn lease this write takes, holds or releases, in its transaction. Only for stores
   * that keep leases ({@link TurnLeaseStore}); others ignore it, so check
   * {@link supportsTurnLeases} before relying on it.
   * @throws TurnLeaseHeldError (`take`: another turn holds an unexpired lease),
   * TurnLeaseLostError (`hold`, `release`: this turn no longer holds it); nothing is written.
   */
  lease?: TurnLeaseWrite;
}

/**
 * Thrown by a write that would take a session's turn lease another turn holds: a turn is
 * running on the session, in this process or another (decision 0156). Nothing was written.
 */
export class TurnLeaseHeldError extends YourtoolError {
  /** The session. */
  readonly sessionId: string;
  /** Milliseconds until the holder's lease expires unless it is renewed (store clock). */
  readonly expiresInMs: number;

  constructor(sessionId: string, expiresInMs: number) {
    super(
      'turn_lease_held',
      `session ${sessionId} has a turn running (its lease expires in ${Math.max(0, Math.round(expiresInMs))} ms unless renewed)`,
    );
    this.sessionId = sessionId;
    this.expiresInMs = expiresInMs;
  }
}

/**
 * Thrown by a write or renewal of a turn whose lease is gone: it expired and another turn took
 * it, or it was released. The turn must stop writing: the session is another turn's now.
 * Nothing was written.
 */
export class TurnLeaseLostError extends YourtoolError {
  /** The session. */
  readonly sessionId: string;
  /** The lost lease's id. */
  readonly leaseId: string;

  constructor(sessionId: string, leaseId: string) {
    super(
      'turn_lease_lost',
      `the turn ${leaseId} no longer holds the lease on session ${sessionId} (it expired and another turn took it, or it was released)`,
    );
    this.sessionId = sessionId;
    this.leaseId = leaseId;
  }
}

/**
 * The optional capability of a store that keeps turn leases (decision 0156): one turn at a
 * time per session across every process that shares the store. A store that has these methods
 * must also honour {@link AppendMessageOptions.lease} in `appendMessage` and `updateMessage`
 * and report the lease in `getSession` ({@link SessionRecord.turn_lease}). `@yourtool/store`
 * (SQLite, PostgreSQL) and `MemorySessionStore` (one process) do.
 *
 * When another turn's lease expired, the `take` that claims the session finishes that turn's
 * rows in its transaction: every `partial` assistant message becomes `error` with
 * `metadata.error.rule: 'turn_lease_expired'` (and its pending tool calls `cancelled`).
 */
export interface TurnLeaseStore {
  /**
   * Renews a lease this turn holds (the heartbeat): it lives `lease.ttlMs` from now.
   * @throws TurnLeaseLostError when the turn no longer holds it.
   */
  renewTurnLease(sessionId: string, lease: TurnLease): Promise<void>;
  /**
   * Releases a lease; resolves to `false` when this turn did not hold it (any more), which is
   * no error: nothing is changed then.
   */
  releaseTurnLease(sessionId: string, lease: TurnLease): Promise<boolean>;
}

/** Whether `store` keeps turn leases ({@link TurnLeaseStore}). */
export function supportsTurnLeases(store: SessionStore): store is SessionStore & TurnLeaseStore {
  const candidate = store as Partial<TurnLeaseStore>;
  return (
    typeof candidate.renewTurnLease === 'function' &&
    typeof candidate.releaseTurnLease === 'function'
  );
}

/**
 * Durable sessions: what the session manager needs from a store. `@yourtool/store` implements
 * it on SQLite and PostgreSQL; tests and embedders may implement it on anything.
 *
 * Guarantees every implementation gives:
 * - an assistant message and its `tool_calls` rows are written in one transaction; a tool
 *   message and the update marking its call answered, likewise;
 * - messages load in creation order (`created_at`, then id);
 * - rows are never rewritten on read; a row that cannot be read is reported in `errors`
 *   (a {@link CorruptRowError} naming it) and the rest still loads.
 */
export interface SessionStore {
  createSession(input: CreateSessionInput): Promise<SessionRecord>;
  /** `null` when there is no such session. */
  getSession(id: string): Promise<SessionRecord | null>;
  /** Sessions, most recently updated first. */
  listSessions(options?: {
    limit?: number;
    /** Opaque cursor from a previous page. */
    cursor?: string;
    workspace_path?: string;
    /** Adds {@link SessionStats} to each session (costs a query per page). */
    withStats?: boolean;
  }): Promise<{ sessions: SessionRecord[]; next_cursor: string | null }>;
  updateSession(id: string, patch: SessionPatch): Promise<SessionRecord>;

  /**
   * Appends a message (and its tool call rows, or the answer to one) in one transaction. A
   * store may resolve to the stored message, as `loadMessages` would read it and sealed
   * (`sealMessage`), so the caller need not read or parse its own write; `void` otherwise.
   */
  appendMessage(message: Message, options?: AppendMessageOptions): Promise<Message | void>;
  /**
   * Replaces a stored message's content and metadata, e.g. when it moves from `partial` to
   * `complete` or `cancelled`; new tool uses get their rows in the same transaction. Resolves
   * like `appendMessage`.
   */
  updateMessage(message: Message, options?: AppendMessageOptions): Promise<Message | void>;
  /** A session's messages, in order. */
  loadMessages(sessionId: string): Promise<LoadedMessages>;
  /** A page of a session's messages after `after` (a cursor from the previous page). */
  pageMessages(
    sessionId: string,
    options: { after?: string | null; limit: number },
  ): Promise<MessagePage>;
  /**
   * Every stored message matching the filter, in batches, in order. Used to reprice history.
   * Unreadable rows are skipped and passed to `onError`.
   */
  iterateMessages(options?: {
    sessionId?: string;
    role?: Message['role'];
    batchSize?: number;
    signal?: AbortSignal;
    onError?: (error: CorruptRowError) => void;
  }): AsyncIterable<Message>;
  /** Replaces only `metadata.usage` of a message (repricing); nothing else in the row changes. */
  updateMessageUsage(messageId: string, usage: Usage): Promise<void>;

  /** Tool calls of a session that have no answer yet. */
  findUnansweredToolCalls(sessionId: string): Promise<ToolCallRecord[]>;
  /** How many tool calls of a session failed. */
  countFailedToolCalls(sessionId: string): Promise<number>;
  /** The session's tool id map, rebuilt from `tool_calls.provider_id` / `provider`. */
  loadToolIdMap(sessionId: string): Promise<ToolIdMap>;

  /**
   * Optional: a session's figures ({@link SessionStats}) computed by the store (cheaper than
   * loading the session). Callers fall back to loading the messages when it is absent.
   */
  sessionStats?(sessionId: string): Promise<SessionStats>;

  /** Optional: see {@link TurnLeaseStore} (decision 0156). */
  renewTurnLease?(sessionId: string, lease: TurnLease): Promise<void>;
  /** Optional: see {@link TurnLeaseStore} (decision 0156). */
  releaseTurnLease?(sessionId: string, lease: TurnLease): Promise<boolean>;

  /** Releases connections. */
  close(): Promise<void>;
}

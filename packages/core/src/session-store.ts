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
}

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

  /** Releases connections. */
  close(): Promise<void>;
}

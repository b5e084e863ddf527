import { newSessionId, nowTimestamp } from './ids.js';
import { MemoryToolCalls } from './memory-store-calls.js';
import {
  assertInvariants,
  checkedJson,
  checkedMessage,
  checkedUsage,
} from './memory-store-checks.js';
import { MemoryStoreError } from './memory-store-error.js';
import { type LeaseChange, MemoryTurnLeases } from './memory-store-lease.js';
import { checkedLimit, offsetOfCursor, pageAfter } from './memory-store-pages.js';
import type { Message, Usage } from './schemas/message.js';
import { sealMessage } from './sealed.js';
import { sessionStatsOf } from './session-stats.js';
import type {
  AppendMessageOptions,
  CreateSessionInput,
  LoadedMessages,
  MessagePage,
  SessionPatch,
  SessionRecord,
  SessionStats,
  SessionStore,
  ToolCallRecord,
  TurnLease,
  TurnLeaseStore,
} from './session-store.js';
import type { ToolIdMap } from './tool-id-map.js';

interface StoredSession {
  record: SessionRecord;
  /** Message ids in creation order (`created_at`, then id). */
  order: string[];
}

/**
 * A {@link SessionStore} kept in memory, for applications and tests that need no database. It
 * gives the guarantees of the interface and checks what `@yourtool/store` checks, so code
 * written against it behaves the same on SQLite or PostgreSQL:
 *
 * - messages are validated against the schema, and at `status: complete` against the canonical
 *   invariants (core's `validateMessage`); JSON deeper than 100 levels is refused; a refused
 *   write changes nothing;
 * - every message is copied on the way in and out (`structuredClone`), so a caller mutating a
 *   message it stored or loaded never changes the store;
 * - an assistant message's tool uses get tool call rows (with the provider ids of the given
 *   `ToolIdMap`); a tool message marks the calls it answers;
 * - messages load in `created_at` order, then by id.
 *
 * - turn leases ({@link TurnLeaseStore}, decision 0156) on the process's clock: one turn at a
 *   time per session among the managers sharing this store.
 *
 * Nothing survives the process. There are no corrupt rows, so `errors` is always empty.
 *
 * @example
 * const store = new MemorySessionStore();
 * const session = await store.createSession({ workspace_path: '/work/demo' });
 */
export class MemorySessionStore implements SessionStore, TurnLeaseStore {
  readonly #sessions = new Map<string, StoredSession>();
  readonly #leases = new MemoryTurnLeases();
  readonly #messages = new Map<string, Message>();
  readonly #calls = new MemoryToolCalls();
  #closed = false;

  /** Creates a session; the id defaults to a new `sess_<ulid>`. */
  async createSession(input: CreateSessionInput): Promise<SessionRecord> {
    this.#open();
    const id = input.id ?? newSessionId();
    if (this.#sessions.has(id)) {
      throw new MemoryStoreError('duplicate_session', `session ${id} already exists`);
    }
    if (typeof input.workspace_path !== 'string') {
      throw new MemoryStoreError('invalid_store_input', 'workspace_path must be a string');
    }
    const now = nowTimestamp();
    const record: SessionRecord = {
      id,
      workspace_path: input.workspace_path,
      active_model: input.active_model ?? null,
      routing_policy: input.routing_policy
        ? checkedJson(input.routing_policy, 'routing_policy')
        : null,
      schema_version: 1,
      created_at: now,
      updated_at: now,
      revision: 0,
      // the owner a budget is kept for (decision 0182), only when set
      ...(input.user ? { user: input.user } : {}),
      ...(input.tenant ? { tenant: input.tenant } : {}),
      ...(input.tags?.length ? { tags: [...new Set(input.tags)] } : {}),
    };
    this.#sessions.set(id, { record, order: [] });
    return structuredClone(record);
  }

  /** A session, or `null`. */
  async getSession(id: string): Promise<SessionRecord | null> {
    this.#open();
    const found = this.#sessions.get(id);
    if (!found) return null;
    const lease = this.#leases.state(id);
    return lease
      ? { ...structuredClone(found.record), turn_lease: lease }
      : structuredClone(found.record);
  }

  /** Sessions, most recently updated first; `cursor` is the offset of the next page. */
  async listSessions(
    options: { limit?: number; cursor?: string; workspace_path?: string; withStats?: boolean } = {},
  ): Promise<{ sessions: SessionRecord[]; next_cursor: string | null }> {
    this.#open();
    const limit = checkedLimit(options.limit ?? 50);
    const offset = offsetOfCursor(options.cursor);
    const all = [...this.#sessions.values()]
      .map((s) => s.record)
      .filter(
        (r) => options.workspace_path === undefined || r.workspace_path === options.workspace_path,
      )
      .sort((a, b) => b.updated_at.localeCompare(a.updated_at) || b.id.localeCompare(a.id));
    const page = all.slice(offset, offset + limit);
    return {
      sessions: page.map((r) =>
        options.withStats
          ? { ...structuredClone(r), stats: this.#stats(r.id) }
          : structuredClone(r),
      ),
      next_cursor: offset + limit < all.length ? String(offset + limit) : null,
    };
  }

  /** Changes a session's fields and bumps `updated_at`. */
  async updateSession(id: string, patch: SessionPatch): Promise<SessionRecord> {
    this.#open();
    const session = this.#session(id);
    const next: SessionRecord = {
      ...session.record,
      ...(patch.workspace_path !== undefined ? { workspace_path: patch.workspace_path } : {}),
      ...(patch.active_model !== undefined ? { active_model: patch.active_model } : {}),
      ...(patch.routing_policy !== undefined
        ? {
            routing_policy: patch.routing_policy
              ? checkedJson(patch.routing_policy, 'routing_policy')
              : null,
          }
        : {}),
      updated_at: nowTimestamp(),
    };
    session.record = next;
    return structuredClone(next);
  }

  /**
   * Appends a message, with its tool call rows or the answers it carries; returns the stored
   * message, sealed (the caller's own object when it was sealed: it was checked then).
   */
  async appendMessage(message: Message, options: AppendMessageOptions = {}): Promise<Message> {
    this.#open();
    const checked = checkedMessage(message);
    if (this.#messages.has(checked.id)) {
      throw new MemoryStoreError('duplicate_message', `message ${checked.id} is already stored`);
    }
    const session = this.#session(checked.session_id);
    const calls = this.#calls.rowsOf(checked, options);
    this.#calls.assertNew(calls, checked.id);
    this.#applyLease(session, options);
    this.#messages.set(checked.id, checked);
    this.#insertOrdered(session, checked);
    this.#calls.add(calls);
    this.#calls.answer(checked);
    session.record = {
      ...session.record,
      updated_at: nowTimestamp(),
      revision: (session.record.revision ?? 0) + 1,
    };
    options.onRevision?.(session.record.revision ?? 0);
    return checked;
  }

  /**
   * Replaces a stored message's content and metadata (its role and session stay); returns it as
   * stored (its original `created_at`), sealed.
   */
  async updateMessage(message: Message, options: AppendMessageOptions = {}): Promise<Message> {
    this.#open();
    const checked = checkedMessage(message);
    const before = this.#messages.get(checked.id);
    if (!before)
      throw new MemoryStoreError('unknown_message', `no message ${checked.id} is stored`);
    if (before.role !== checked.role || before.session_id !== checked.session_id) {
      throw new MemoryStoreError(
        'message_identity_changed',
        `message ${checked.id} cannot change its role or session`,
      );
    }
    const session = this.#session(checked.session_id);
    const calls = this.#calls.rowsOf(checked, options);
    this.#applyLease(session, options);
    const stored =
      checked.created_at === before.created_at
        ? checked
        : sealMessage({ ...structuredClone(checked), created_at: before.created_at });
    this.#messages.set(checked.id, stored);
    this.#calls.update(calls, checked);
    this.#calls.answer(checked);
    session.record = {
      ...session.record,
      updated_at: nowTimestamp(),
      revision: (session.record.revision ?? 0) + 1,
    };
    options.onRevision?.(session.record.revision ?? 0);
    return stored;
  }

  /** A session's messages, in order. */
  async loadMessages(sessionId: string): Promise<LoadedMessages> {
    this.#open();
    const session = this.#sessions.get(sessionId);
    if (!session) return { messages: [], errors: [] };
    return { messages: session.order.map((id) => this.#copy(id)), errors: [] };
  }

  /** A page of a session's messages after the message id given as `after`. */
  async pageMessages(
    sessionId: string,
    options: { after?: string | null; limit: number },
  ): Promise<MessagePage> {
    this.#open();
    const limit = checkedLimit(options.limit);
    const order = this.#sessions.get(sessionId)?.order ?? [];
    const page = pageAfter(order, options.after, limit);
    return {
      messages: page.ids.map((id) => this.#copy(id)),
      errors: [],
      next_cursor: page.next_cursor,
    };
  }

  /** Every stored message matching the filter, in order (sessions in creation order). */
  async *iterateMessages(
    options: { sessionId?: string; role?: Message['role']; signal?: AbortSignal } = {},
  ): AsyncIterable<Message> {
    this.#open();
    const sessions =
      options.sessionId === undefined
        ? [...this.#sessions.values()]
        : [this.#sessions.get(options.sessionId)].filter((s): s is StoredSession => !!s);
    for (const session of sessions) {
      for (const id of [...session.order]) {
        if (options.signal?.aborted) throw options.signal.reason;
        const message = this.#messages.get(id);
        if (!message || (options.role !== undefined && message.role !== options.role)) continue;
        yield structuredClone(message);
      }
    }
  }

  /** Replaces only `metadata.usage` of a message. */
  async updateMessageUsage(messageId: string, usage: Usage): Promise<void> {
    this.#open();
    const message = this.#messages.get(messageId);
    if (!message)
      throw new MemoryStoreError('unknown_message', `no message ${messageId} is stored`);
    const checked = checkedUsage(usage, messageId);
    const next = { ...message, metadata: { ...message.metadata, usage: checked } };
    if (next.metadata.status === 'complete') assertInvariants(next);
    this.#messages.set(messageId, next);
    const session = this.#sessions.get(next.session_id);
    if (session) {
      session.record = { ...session.record, revision: (session.record.revision ?? 0) + 1 };
    }
  }

  /** Tool calls of a session with no answer yet, in creation order. */
  async findUnansweredToolCalls(sessionId: string): Promise<ToolCallRecord[]> {
    this.#open();
    return this.#calls.unanswered(sessionId);
  }

  /** How many tool calls of a session failed. */
  async countFailedToolCalls(sessionId: string): Promise<number> {
    this.#open();
    return this.#calls.countFailed(sessionId);
  }

  /** The session's tool id map, from the provider ids recorded on its tool calls. */
  async loadToolIdMap(sessionId: string): Promise<ToolIdMap> {
    this.#open();
    return this.#calls.toolIdMap(sessionId);
  }

  /**
   * Renews a turn lease this turn holds (decision 0156).
   * @throws TurnLeaseLostError when it does not hold it.
   */
  async renewTurnLease(sessionId: string, lease: TurnLease): Promise<void> {
    this.#open();
    this.#leases.renew(sessionId, lease);
  }

  /** Releases a turn lease; false when `lease.id` did not hold it. */
  async releaseTurnLease(sessionId: string, lease: TurnLease): Promise<boolean> {
    this.#open();
    return this.#leases.release(sessionId, lease);
  }

  /** Further calls fail with `MemoryStoreError` (`store_closed`). */
  async close(): Promise<void> {
    this.#closed = true;
  }

  /** The figures of one session (zeros for an unknown one). */
  async sessionStats(sessionId: string): Promise<SessionStats> {
    this.#open();
    return this.#stats(sessionId);
  }

  /**
   * Checks and applies a write's lease (before the write changes anything: a refusal throws
   * here); a take over an expired lease finishes the dead turn's `partial` rows.
   */
  #applyLease(session: StoredSession, options: AppendMessageOptions): void {
    if (!options.lease) return;
    const change: LeaseChange = this.#leases.check(session.record.id, options.lease);
    if (change.tookOver) this.#finishAbandoned(session);
    change.commit();
  }

  /** The `partial` assistant rows of a turn whose lease expired, finished at `error`. */
  #finishAbandoned(session: StoredSession): void {
    for (const id of session.order) {
      const message = this.#messages.get(id) as Message;
      if (message.role !== 'assistant' || message.metadata.status !== 'partial') continue;
      // one more revision: a history kept with the row as it was is stale now
      session.record = { ...session.record, revision: (session.record.revision ?? 0) + 1 };
      const metadata = {
        ...message.metadata,
        status: 'error' as const,
        error: { rule: 'turn_lease_expired', message: ABANDONED_REASON },
      };
      this.#messages.set(id, sealMessage({ ...structuredClone(message), metadata }));
      this.#calls.cancelPending(id);
    }
  }

  #stats(sessionId: string): SessionStats {
    const order = this.#sessions.get(sessionId)?.order ?? [];
    return sessionStatsOf(order.map((id) => this.#messages.get(id) as Message));
  }

  #open(): void {
    if (this.#closed) throw new MemoryStoreError('store_closed', 'the store is closed');
  }

  #session(id: string): StoredSession {
    const session = this.#sessions.get(id);
    if (!session) throw new MemoryStoreError('unknown_session', `no session ${id} is stored`);
    return session;
  }

  #copy(id: string): Message {
    return structuredClone(this.#messages.get(id) as Message);
  }

  #insertOrdered(session: StoredSession, message: Message): void {
    const order = session.order;
    const before = (id: string) => {
      const other = this.#messages.get(id) as Message;
      return (
        other.created_at < message.created_at ||
        (other.created_at === message.created_at && other.id < message.id)
      );
    };
    // appends are almost always the newest: check the end first
    let at = order.length;
    while (at > 0 && !before(order[at - 1] as string)) at--;
    order.splice(at, 0, message.id);
  }
}

/** Why a `partial` row of a turn whose lease expired was finished at `error`. */
const ABANDONED_REASON =
  'the turn writing this reply stopped renewing its lease on the session (its process ended or lost the store); the turn that took the session next finished the row';

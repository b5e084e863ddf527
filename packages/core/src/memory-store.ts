import { sumDecimalStrings } from './decimal.js';
import { YourtoolError } from './errors.js';
import { isUlid, newSessionId, nowTimestamp } from './ids.js';
import { checkJsonDepth } from './json-depth.js';
import { type LeaseChange, MemoryTurnLeases } from './memory-store-lease.js';
import { issuesFromZod } from './parse.js';
import { type Message, MessageSchema, type Usage, UsageSchema } from './schemas/message.js';
import { isSealedMessage, sealMessage } from './sealed.js';
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
  ToolCallStatus,
  TurnLease,
  TurnLeaseStore,
} from './session-store.js';
import { ToolIdMap } from './tool-id-map.js';
import { validateMessage } from './validate-message.js';

/**
 * A write the in-memory store refused: an unknown session, a message that fails the schema or,
 * at `status: complete`, the canonical invariants, a duplicate id, a changed role. `code` says
 * which; nothing was written.
 */
export class MemoryStoreError extends YourtoolError {}

type StoredCall = ToolCallRecord;

interface StoredSession {
  record: SessionRecord;
  /** Message ids in creation order (`created_at`, then id). */
  order: string[];
}

const MESSAGE_STATUS_TO_CALL: Record<string, ToolCallStatus> = {
  complete: 'pending',
  partial: 'pending',
  cancelled: 'cancelled',
  error: 'failed',
};

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
  readonly #calls = new Map<string, StoredCall>();
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
        ? this.#json(input.routing_policy, 'routing_policy')
        : null,
      schema_version: 1,
      created_at: now,
      updated_at: now,
      revision: 0,
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
    const limit = options.limit ?? 50;
    if (!Number.isInteger(limit) || limit < 1) {
      throw new MemoryStoreError(
        'invalid_store_input',
        `limit must be a positive integer, got ${limit}`,
      );
    }
    const offset = options.cursor === undefined ? 0 : Number(options.cursor);
    if (!Number.isInteger(offset) || offset < 0) {
      throw new MemoryStoreError(
        'invalid_store_input',
        `cursor "${options.cursor}" is not one this store gave`,
      );
    }
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
              ? this.#json(patch.routing_policy, 'routing_policy')
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
    const checked = this.#check(message);
    if (this.#messages.has(checked.id)) {
      throw new MemoryStoreError('duplicate_message', `message ${checked.id} is already stored`);
    }
    const session = this.#session(checked.session_id);
    const calls = this.#callsOf(checked, options);
    for (const call of calls) {
      if (this.#calls.has(call.id)) {
        throw new MemoryStoreError(
          'duplicate_tool_call',
          `tool use ${call.id} in message ${checked.id} is already stored`,
        );
      }
    }
    this.#applyLease(session, options);
    this.#messages.set(checked.id, checked);
    this.#insertOrdered(session, checked);
    for (const call of calls) this.#calls.set(call.id, call);
    this.#answer(checked);
    session.record = {
      ...session.record,
      updated_at: nowTimestamp(),
      revision: (session.record.revision ?? 0) + 1,
    };
    options.onRevision?.(session.record.revision ?? 0);
    return checked;
  }

  /** Replaces a stored message's content and metadata (its role and session stay). */
  /** Replaces a stored message; returns it as stored (its original `created_at`), sealed. */
  async updateMessage(message: Message, options: AppendMessageOptions = {}): Promise<Message> {
    this.#open();
    const checked = this.#check(message);
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
    const calls = this.#callsOf(checked, options);
    this.#applyLease(session, options);
    const stored =
      checked.created_at === before.created_at
        ? checked
        : sealMessage({ ...structuredClone(checked), created_at: before.created_at });
    this.#messages.set(checked.id, stored);
    const status = MESSAGE_STATUS_TO_CALL[checked.metadata.status] ?? 'pending';
    for (const call of calls) {
      const known = this.#calls.get(call.id);
      if (!known) this.#calls.set(call.id, call);
      else if (known.status === 'pending' && known.result_message_id === null) {
        this.#calls.set(call.id, {
          ...known,
          status,
          provider_id: known.provider_id ?? call.provider_id,
          provider: known.provider ?? call.provider,
          completed_at: status === 'pending' ? null : nowTimestamp(),
        });
      }
    }
    this.#answer(checked);
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
    if (!Number.isInteger(options.limit) || options.limit < 1) {
      throw new MemoryStoreError(
        'invalid_store_input',
        `limit must be a positive integer, got ${options.limit}`,
      );
    }
    const order = this.#sessions.get(sessionId)?.order ?? [];
    let start = 0;
    if (options.after) {
      const at = order.indexOf(options.after);
      if (at < 0) {
        throw new MemoryStoreError(
          'invalid_store_input',
          `cursor "${options.after}" is not one this store gave`,
        );
      }
      start = at + 1;
    }
    const ids = order.slice(start, start + options.limit);
    const last = ids.at(-1);
    return {
      messages: ids.map((id) => this.#copy(id)),
      errors: [],
      next_cursor: last !== undefined && start + options.limit < order.length ? last : null,
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
    const parsed = UsageSchema.safeParse(usage);
    if (!parsed.success) {
      const issues = issuesFromZod(parsed.error, 'usage');
      throw new MemoryStoreError(
        'invalid_store_input',
        `invalid usage for message ${messageId}: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`,
      );
    }
    const next = { ...message, metadata: { ...message.metadata, usage: parsed.data } };
    if (next.metadata.status === 'complete') this.#invariants(next);
    this.#messages.set(messageId, next);
    const session = this.#sessions.get(next.session_id);
    if (session) {
      session.record = { ...session.record, revision: (session.record.revision ?? 0) + 1 };
    }
  }

  /** Tool calls of a session with no answer yet, in creation order. */
  async findUnansweredToolCalls(sessionId: string): Promise<ToolCallRecord[]> {
    this.#open();
    return [...this.#calls.values()]
      .filter((c) => c.session_id === sessionId && c.result_message_id === null)
      .sort((a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id))
      .map((c) => ({ ...c }));
  }

  /** How many tool calls of a session failed. */
  async countFailedToolCalls(sessionId: string): Promise<number> {
    this.#open();
    let n = 0;
    for (const c of this.#calls.values())
      if (c.session_id === sessionId && c.status === 'failed') n++;
    return n;
  }

  /** The session's tool id map, from the provider ids recorded on its tool calls. */
  async loadToolIdMap(sessionId: string): Promise<ToolIdMap> {
    this.#open();
    const map = new ToolIdMap();
    for (const c of this.#calls.values()) {
      if (c.session_id !== sessionId || c.provider_id === null || c.provider === null) continue;
      map.set({ canonical_id: c.id, provider: c.provider, provider_id: c.provider_id });
    }
    return map;
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
      for (const call of this.#calls.values()) {
        if (call.message_id === id && call.status === 'pending') {
          this.#calls.set(call.id, { ...call, status: 'cancelled', completed_at: nowTimestamp() });
        }
      }
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

  #json<T>(value: T, subject: string): T {
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

  /** Schema, depth and (at complete) invariants; returns a private copy. */
  #check(message: Message): Message {
    if (isSealedMessage(message)) return this.#checkSealed(message);
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
    if (copy.metadata.status === 'complete') this.#invariants(copy);
    return sealMessage(copy);
  }

  /** A sealed message was checked against the schema and its invariants when it was sealed. */
  #checkSealed(message: Message): Message {
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

  #invariants(message: Message): void {
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

  #callsOf(message: Message, options: AppendMessageOptions): StoredCall[] {
    if (message.role !== 'assistant') return [];
    const provider = message.metadata.provider ?? null;
    const status = MESSAGE_STATUS_TO_CALL[message.metadata.status] ?? 'pending';
    const seen = new Set<string>();
    const out: StoredCall[] = [];
    for (const block of message.content) {
      if (block.type !== 'tool_use') continue;
      if (seen.has(block.id)) {
        throw new MemoryStoreError(
          'duplicate_tool_call',
          `tool use ${block.id} appears twice in message ${message.id}`,
        );
      }
      seen.add(block.id);
      out.push({
        id: block.id,
        session_id: message.session_id,
        message_id: message.id,
        result_message_id: null,
        name: block.name,
        status,
        provider_id:
          provider === null ? null : (options.toolIdMap?.getProviderId(provider, block.id) ?? null),
        provider,
        created_at: message.created_at,
        completed_at: status === 'pending' ? null : message.created_at,
      });
    }
    return out;
  }

  /** Marks the calls a tool message answers. */
  #answer(message: Message): void {
    if (message.role !== 'tool') return;
    for (const block of message.content) {
      if (block.type !== 'tool_result') continue;
      const call = this.#calls.get(block.tool_use_id);
      if (!call || call.session_id !== message.session_id) continue;
      this.#calls.set(call.id, {
        ...call,
        result_message_id: message.id,
        status: block.is_error ? 'failed' : 'succeeded',
        completed_at: nowTimestamp(),
      });
    }
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

/**
 * A session's figures ({@link SessionStats}) from its messages in order: the count, the model of
 * the newest assistant message, the exact sum of priced assistant messages' `cost_usd`, and how
 * many carried usage without a price. For stores without a cheaper `sessionStats`.
 */
export function sessionStatsOf(messages: readonly Message[]): SessionStats {
  const costs: string[] = [];
  let unpriced = 0;
  let lastModel: string | null = null;
  for (const message of messages) {
    // usage is on assistant messages, and on a session's compaction summaries (the summary call)
    if (message.role !== 'assistant' && !message.metadata.usage) continue;
    if (message.role === 'assistant' && message.metadata.model) lastModel = message.metadata.model;
    const usage = message.metadata.usage;
    if (!usage) continue;
    if (usage.cost_usd === null) unpriced++;
    else costs.push(usage.cost_usd);
  }
  return {
    message_count: messages.length,
    last_model: lastModel,
    total_cost_usd: sumDecimalStrings(costs),
    unpriced_messages: unpriced,
  };
}

import type {
  AppendMessageOptions,
  CreateSessionInput,
  LoadedMessages,
  Logger,
  Message,
  MessagePage,
  SessionPatch,
  SessionRecord,
  SessionStats,
  SessionStore,
  SharedAvailabilityProvider,
  ToolCallRecord,
  ToolIdMap,
  TurnLease,
  TurnLeaseStore,
  Usage,
} from '@yourtool/core';
import type { Kysely } from 'kysely';
import type { Connection } from './connect.js';
import { guarded, type StoreContext, storeContext } from './context.js';
import type { StoreDatabase, StoreDialect } from './database.js';
import { StoreError } from './errors.js';
import * as leases from './lease.js';
import type { IterateMessagesOptions } from './message-reads.js';
import * as reads from './message-reads.js';
import * as writes from './message-writes.js';
import { type MigrationReport, migrate } from './migrate.js';
import { pruneSessions } from './retention.js';
import type { PruneOptions, PruneReport } from './retention-policy.js';
import type { ListSessionsOptions } from './sessions.js';
import * as sessions from './sessions.js';
import { SqlAvailabilityStore } from './shared-availability.js';
import { sessionStats } from './stats.js';
import * as toolCalls from './tool-calls.js';
import type { DeletedSession, ImportSessionOptions, SessionExport } from './transfer.js';

/** The name of a store method, which its failures name (`StoreDriverError.operation`). */
type Operation = {
  [K in keyof SqlSessionStore]: SqlSessionStore[K] extends (...args: never[]) => unknown
    ? K
    : never;
}[keyof SqlSessionStore];

/**
 * A {@link SessionStore} on SQL: SQLite through better-sqlite3, or PostgreSQL through pg, with
 * the tables of canonical-format §10. Open one with {@link openStore}.
 *
 * Writes are transactions: an assistant message and its `tool_calls` rows, or a tool message
 * and the answer it records, are stored together or not at all. Reads go through core's
 * tolerant `parseMessage` and never rewrite a row; an unreadable row is reported as a
 * `CorruptRowError` naming it while the rest loads.
 *
 * Each method hands its operation (a function of its concern's module: sessions, stats,
 * message reads and writes, tool calls, migrations) to one private wrapper, the single place
 * that checks the store is open and turns driver failures into `StoreError`s.
 */
export class SqlSessionStore implements SessionStore, TurnLeaseStore, SharedAvailabilityProvider {
  /** `sqlite` or `postgres`. */
  readonly dialect: StoreDialect;
  /** The URL the store was opened with, password redacted. */
  readonly url: string;
  /** PostgreSQL: the schema holding the tables. */
  readonly schema: string | undefined;
  readonly #context: StoreContext;
  /** Redacted from driver errors (the connection's password). */
  readonly #secrets: readonly string[];
  #closed = false;

  /** Use {@link openStore}. */
  constructor(dialect: StoreDialect, url: string, connection: Connection, logger: Logger) {
    this.dialect = dialect;
    this.url = url;
    this.schema = connection.schema;
    this.#context = storeContext({ dialect, url, connection, logger });
    this.#secrets = connection.secrets ?? [];
  }

  /**
   * The typed kysely instance, for queries the store does not offer (reports, exports). Write
   * through the store's methods: they keep messages and tool calls consistent.
   */
  get db(): Kysely<StoreDatabase> {
    return this.#context.db;
  }

  /**
   * Runs `section` as one of the store's write transactions (SQLite: `BEGIN IMMEDIATE` behind
   * the file's lock), for the store's own companions such as `SqlBudgetLedger`.
   */
  writeTransaction<T>(section: (db: Kysely<StoreDatabase>) => Promise<T>): Promise<T> {
    return this.#run('writeTransaction', (ctx) => ctx.write(section));
  }

  /** Applies pending migrations. {@link openStore} does this unless told not to. */
  async migrate(): Promise<MigrationReport> {
    return this.#run('migrate', migrate);
  }

  // ---------------------------------------------------------------------------- sessions

  /**
   * Creates a session.
   * @throws DuplicateSessionError when the id is taken; InvalidStoreInputError (a text a
   * column cannot hold, e.g. a NUL in `workspace_path`), JsonTooDeepError (`routing_policy`).
   */
  async createSession(input: CreateSessionInput): Promise<SessionRecord> {
    return this.#run('createSession', (ctx) => sessions.createSession(ctx, input));
  }

  /**
   * A session, or `null` when there is none.
   * @throws CorruptRowError when its stored routing policy is unreadable.
   */
  async getSession(id: string): Promise<SessionRecord | null> {
    return this.#run('getSession', (ctx) => sessions.getSession(ctx, id));
  }

  /**
   * Sessions, most recently updated first (every append or update bumps `updated_at`).
   * A session row that cannot be read is skipped with a WARN.
   */
  async listSessions(
    options: ListSessionsOptions = {},
  ): Promise<{ sessions: SessionRecord[]; next_cursor: string | null }> {
    return this.#run('listSessions', (ctx) => sessions.listSessions(ctx, options));
  }

  /**
   * What a session holds, in figures: message count, the model of the newest assistant message,
   * the exact sum of its assistant messages' `cost_usd`, and how many were unpriced. Zeros for a
   * session without messages (or none at all). An assistant row whose metadata cannot be read is
   * reported like any corrupt row and left out of the cost.
   */
  async sessionStats(sessionId: string): Promise<SessionStats> {
    return this.#run('sessionStats', (ctx) => sessionStats(ctx, sessionId));
  }

  /** Changes a session's workspace, active model or routing policy. */
  async updateSession(id: string, patch: SessionPatch): Promise<SessionRecord> {
    return this.#run('updateSession', (ctx) => sessions.updateSession(ctx, id, patch));
  }

  /**
   * Deletes a session and every row of it, in every table (`tool_calls`, `messages`,
   * `sessions`), in one transaction: all of it or nothing.
   * @throws SessionNotFoundError when there is no such session (nothing is deleted).
   */
  async deleteSession(id: string): Promise<DeletedSession> {
    return this.#run('deleteSession', (ctx) => sessions.deleteSession(ctx, id));
  }

  /**
   * Every row of a session, read in one snapshot: the session (without `revision`), its
   * messages in load order and its tool calls in creation order, as they are stored (ids, times,
   * tool call states and provider ids). `sessionToLines()` writes it as canonical JSON lines.
   * Nothing is left out silently: an unreadable row throws its `CorruptRowError`, and a message
   * holding a block this version does not know throws {@link SessionNotExportableError}.
   * @throws SessionNotFoundError.
   */
  async exportSession(id: string): Promise<SessionExport> {
    return this.#run('exportSession', (ctx) => sessions.exportSession(ctx, id));
  }

  /**
   * Stores a session export (from {@link exportSession} or `parseSessionLines()`) exactly as
   * exported, in one transaction: the session with its times, every message with its id and
   * `created_at`, every tool call with its status, answer, provider id and times. Everything is
   * checked first, each message as {@link appendMessage} checks it; a refused import writes
   * nothing. Exporting the imported session gives the same export. A session id already
   * stored is refused, unless `options.ifExists` says to skip it (the stored session is
   * returned) or to replace it (in the same transaction); `options.onOutcome` hears which.
   * @throws InvalidStoreInputError (listing every problem), InvalidMessageError,
   * JsonTooDeepError; DuplicateSessionError, DuplicateMessageError, DuplicateToolCallError when
   * an id is already stored.
   */
  async importSession(
    data: SessionExport,
    options: ImportSessionOptions = {},
  ): Promise<SessionRecord> {
    return this.#run('importSession', (ctx) => sessions.importSession(ctx, data, options));
  }

  // ---------------------------------------------------------------------------- messages

  /**
   * Appends a message in one transaction: an assistant message with its `tool_calls` rows
   * (one per tool use; `provider_id` from `toolIdMap`), a tool message with the answer it
   * records on its call (`result_message_id`, `status`, `completed_at`).
   *
   * A message at `status: complete` must also keep the canonical format's invariants (core's
   * `validateMessage`); partial, cancelled and errored messages need not.
   *
   * @throws InvalidStoreInputError when the message fails core's schemas or holds text a
   * column cannot hold (a NUL in a tool name); InvalidMessageError (a complete message breaking
   * an invariant, naming each rule); JsonTooDeepError; SessionNotFoundError,
   * DuplicateMessageError, DuplicateToolCallError; StoreDriverError. Nothing is written then.
   *
   * Resolves to the stored message, as {@link loadMessages} would read it, sealed (frozen): a
   * sealed input itself, else a copy. A sealed message (core's `sealMessage`) is not checked
   * against the schema and the invariants again, only against what the database needs.
   */
  async appendMessage(message: Message, options: AppendMessageOptions = {}): Promise<Message> {
    return this.#run('appendMessage', (ctx) => writes.appendMessage(ctx, message, options));
  }

  /**
   * Appends many messages in a single transaction (all or nothing), e.g. to import a history
   * or for bulk loads. Tool results may answer tool uses of the same batch. Every message is
   * checked as {@link appendMessage} checks it before anything is written: one refused message
   * refuses the batch, and the sessions' `updated_at` do not change. Unlike
   * {@link appendMessage} it resolves to nothing: a bulk load has no use for copies of what it
   * wrote, and making them would cost it.
   */
  async appendMessages(
    messages: readonly Message[],
    options: AppendMessageOptions = {},
  ): Promise<void> {
    await this.#run('appendMessages', (ctx) => writes.appendMessages(ctx, messages, options));
  }

  /**
   * Replaces a stored message's content and metadata, e.g. when it moves from `partial` to
   * `complete` or `cancelled`. Its position (`created_at`), session and role do not change.
   * New tool uses get their rows in the same transaction; a message now `cancelled` or
   * `error` marks its still-pending tool calls `cancelled`. The message is checked as
   * {@link appendMessage} checks it (invariants too, when it is now `complete`) before
   * anything is written: a refused update leaves the stored row exactly as it was. Resolves to
   * the stored message, at its stored `created_at` (see {@link appendMessage}).
   */
  async updateMessage(message: Message, options: AppendMessageOptions = {}): Promise<Message> {
    return this.#run('updateMessage', (ctx) => writes.updateMessage(ctx, message, options));
  }

  /** A single message, or `null`. @throws CorruptRowError when its row is unreadable. */
  async getMessage(id: string): Promise<Message | null> {
    return this.#run('getMessage', (ctx) => reads.getMessage(ctx, id));
  }

  /**
   * A session's messages in order (`created_at`, then id). Unreadable rows are returned in
   * `errors` and the rest still loads. @throws SessionNotFoundError.
   */
  async loadMessages(sessionId: string): Promise<LoadedMessages> {
    return this.#run('loadMessages', (ctx) => reads.loadMessages(ctx, sessionId));
  }

  /**
   * A page of a session's messages after `after` (a cursor from the previous page; none for
   * the first page). `limit` from 1 to 10000. @throws SessionNotFoundError.
   */
  async pageMessages(
    sessionId: string,
    options: { after?: string | null; limit: number },
  ): Promise<MessagePage> {
    return this.#run('pageMessages', (ctx) => reads.pageMessages(ctx, sessionId, options));
  }

  /**
   * Every stored message matching the filter, in order (`created_at`, then id), read in
   * batches. Unreadable rows are skipped and passed to `onError`. Used to reprice history.
   */
  async *iterateMessages(options: IterateMessagesOptions = {}): AsyncGenerator<Message> {
    // Checked on the first `next()`; each batch's query is guarded, not the caller's loop body.
    this.#ensureOpen();
    yield* reads.iterateMessages(this.#context, options, (read) =>
      guarded('iterateMessages', this.#secrets, read),
    );
  }

  /**
   * Replaces `metadata.usage` of a stored message (repricing); nothing else in the row
   * changes, unknown metadata fields included.
   * @throws MessageNotFoundError; CorruptRowError when the row's metadata is unreadable.
   */
  async updateMessageUsage(messageId: string, usage: Usage): Promise<void> {
    return this.#run('updateMessageUsage', (ctx) =>
      writes.updateMessageUsage(ctx, messageId, usage),
    );
  }

  // -------------------------------------------------------------------------- tool calls

  /** Every tool call of a session, in creation order. @throws SessionNotFoundError. */
  async listToolCalls(sessionId: string): Promise<ToolCallRecord[]> {
    return this.#run('listToolCalls', (ctx) => toolCalls.listToolCalls(ctx, sessionId));
  }

  /** Tool calls of a session still `pending` (no result, not cancelled). */
  async findUnansweredToolCalls(sessionId: string): Promise<ToolCallRecord[]> {
    return this.#run('findUnansweredToolCalls', (ctx) =>
      toolCalls.findUnansweredToolCalls(ctx, sessionId),
    );
  }

  /** How many tool calls of a session failed (their result had `is_error: true`). */
  async countFailedToolCalls(sessionId: string): Promise<number> {
    return this.#run('countFailedToolCalls', (ctx) =>
      toolCalls.countFailedToolCalls(ctx, sessionId),
    );
  }

  /**
   * The session's tool id map, rebuilt from `tool_calls.provider_id` / `provider`. A link
   * that contradicts an earlier one is skipped with a WARN.
   */
  async loadToolIdMap(sessionId: string): Promise<ToolIdMap> {
    return this.#run('loadToolIdMap', (ctx) => toolCalls.loadToolIdMap(ctx, sessionId));
  }

  // ------------------------------------------------------------------------- turn leases

  /**
   * Renews a session's turn lease this turn holds (its heartbeat): it lives `lease.ttlMs` from
   * now, on the store's clock (decision 0156). Writes take, hold and release leases through
   * `appendMessage`'s and `updateMessage`'s `lease` option.
   * @throws TurnLeaseLostError when `lease.id` does not hold it; SessionNotFoundError.
   */
  async renewTurnLease(sessionId: string, lease: TurnLease): Promise<void> {
    return this.#run('renewTurnLease', (ctx) => leases.renewTurnLease(ctx, sessionId, lease));
  }

  /** Releases a session's turn lease; `false` when `lease.id` did not hold it (no change). */
  async releaseTurnLease(sessionId: string, lease: TurnLease): Promise<boolean> {
    return this.#run('releaseTurnLease', (ctx) => leases.releaseTurnLease(ctx, sessionId, lease));
  }

  /**
   * Removes the sessions that expired under a retention policy (decision 0184): idle longer than
   * `olderThanMs`, or their tags' age, with every row of theirs (messages, tool calls, tool
   * approvals, `session:<id>` budget rows), in transactions of `batchSize` sessions. A session
   * a turn holds (a live turn lease) or writes to meanwhile is left alone. `dryRun` only counts.
   * @throws InvalidStoreInputError naming a bad option.
   */
  async pruneSessions(options: PruneOptions): Promise<PruneReport> {
    return this.#run('pruneSessions', (ctx) => pruneSessions(ctx, options));
  }

  /** Availability verdicts shared through this database (decision 0183; migration 0007). */
  sharedAvailability(): SqlAvailabilityStore {
    return new SqlAvailabilityStore(this.#context.db as unknown as Kysely<unknown>, this.dialect);
  }

  /** Closes the database (the pool, for PostgreSQL). Later calls throw. Idempotent. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await guarded('close', this.#secrets, () => this.#context.db.destroy());
  }

  // ---------------------------------------------------------------------------- internals

  /**
   * The one guard every operation runs through: checks the store is open, then runs
   * `operation` on the store's context so that whatever fails in it surfaces as a
   * `StoreError`: the store's own errors as they are, anything from the driver or the
   * database as a `StoreDriverError` naming `name`, its code and cause, secrets redacted.
   */
  #run<T>(name: Operation, operation: (ctx: StoreContext) => Promise<T>): Promise<T> {
    return guarded(name, this.#secrets, () => {
      this.#ensureOpen();
      return operation(this.#context);
    });
  }

  #ensureOpen(): void {
    if (this.#closed) throw new StoreError('store_closed', `the store ${this.url} is closed`);
  }
}

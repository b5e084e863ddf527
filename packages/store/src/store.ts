import {
  type AppendMessageOptions,
  CorruptRowError,
  type CreateSessionInput,
  CURRENT_SCHEMA_VERSION,
  epochMicrosToTimestamp,
  issuesFromZod,
  isYourtoolError,
  type LoadedMessages,
  type Logger,
  type Message,
  type MessagePage,
  newSessionId,
  nowEpochMicros,
  type SessionPatch,
  type SessionRecord,
  type SessionStats,
  type SessionStore,
  silentLogger,
  sumDecimalStrings,
  type ToolCallRecord,
  ToolIdConflictError,
  ToolIdMap,
  type Usage,
  UsageSchema,
  validateMessage,
} from '@yourtool/core';
import { redactSecrets } from '@yourtool/core/adapter';
import { type Kysely, type KyselyPlugin, sql } from 'kysely';
import { Migrator } from 'kysely/migration';
import {
  checkKey,
  checkTextColumn,
  textColumnProblem,
  toJsonText,
  toStoreError,
} from './checks.js';
import {
  type Connection,
  connectPostgres,
  connectSqlite,
  type PostgresPoolOptions,
  type SqliteSynchronous,
} from './connect.js';
import { decodeCursor, encodeCursor, type Position } from './cursor.js';
import type { MessagesTable, StoreDatabase, StoreDialect, ToolCallsTable } from './database.js';
import {
  DuplicateMessageError,
  DuplicateSessionError,
  DuplicateToolCallError,
  InvalidMessageError,
  InvalidStoreInputError,
  MessageNotFoundError,
  SessionNotFoundError,
  StoreConnectionError,
  StoreError,
  type StoreInputIssue,
} from './errors.js';
import {
  type CheckedMessage,
  checkJsonObject,
  checkMessage,
  checkModel,
  chunks,
  isPlainObject,
  messageRow,
  ROWS_PER_STATEMENT,
  storedMessage,
  uniqueViolationTable,
} from './message-input.js';
import { storeMigrationProvider } from './migrations.js';
import { rowToMessage, rowToSession, rowToToolCall } from './rows.js';
import { checkSessionImport, importedSession, writeSessionImport } from './session-import.js';
import {
  type DeletedSession,
  deleteSessionRows,
  readSessionExport,
  type SessionExport,
} from './transfer.js';
import { parseStoreUrl, redactStoreUrl } from './url.js';

/** Options of {@link openStore}. */
export interface OpenStoreOptions {
  /**
   * Receives WARNs: tolerated unknown blocks or fields on read (core's `parseMessage`),
   * unreadable rows, tool results answering no stored call. Pino-compatible; silent by default.
   */
  logger?: Logger;
  /** Run pending migrations while opening (default `true`). */
  migrate?: boolean;
  /** SQLite: how long a writer waits for another writer, in ms (default 5000). */
  busyTimeoutMs?: number;
  /**
   * SQLite: `'normal'` (default) keeps every committed transaction when the process crashes
   * and may lose the last ones on power loss or OS crash; `'full'` also survives those, at an
   * fsync per commit. See docs/decisions/0017.
   */
  synchronous?: SqliteSynchronous;
  /**
   * PostgreSQL: the schema holding the tables (created if missing). Default: the URL's
   * `?schema=`, else `public`.
   */
  schema?: string;
  /** PostgreSQL: pool settings. */
  pool?: PostgresPoolOptions;
  /**
   * kysely plugins run on every query (e.g. for tracing). They must not rename tables,
   * columns or results.
   */
  plugins?: KyselyPlugin[];
}

/** Options of {@link SqlSessionStore.listSessions}. */
export interface ListSessionsOptions {
  /** Page size, 1 to 1000 (default 50). */
  limit?: number;
  /** Opaque cursor from a previous page. */
  cursor?: string;
  /** Only sessions of this workspace. */
  workspace_path?: string;
  /** Adds `stats` (message count, last model, exact total cost) to each session: two queries per page. */
  withStats?: boolean;
}

/** Options of {@link SqlSessionStore.iterateMessages}. */
export interface IterateMessagesOptions {
  sessionId?: string;
  role?: Message['role'];
  /** Rows read per query (default 500). */
  batchSize?: number;
  signal?: AbortSignal;
  onError?: (error: CorruptRowError) => void;
}

/** Outcome of {@link SqlSessionStore.migrate}. */
export interface MigrationReport {
  /** Names of the migrations applied now, in order (empty when already up to date). */
  applied: string[];
}

const MAX_PAGE = 10_000;
const DEFAULT_SESSION_PAGE = 50;
const DEFAULT_BATCH = 500;

function checkLimit(value: number | undefined, fallback: number, max: number, path: string) {
  const limit = value ?? fallback;
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > max) {
    throw new InvalidStoreInputError('options', [
      { path, message: `must be an integer from 1 to ${max}, got ${value}` },
    ]);
  }
  return limit;
}

/** A violation's identity, to tell the violations a change introduces from older ones. */
function violationKey(violation: { rule: string; path: string }): string {
  return `${violation.rule} ${violation.path}`;
}

/**
 * A repricing of a complete message must not make it break an invariant (a cost without a
 * `pricing_version`). Only the violations the new usage introduces count: a row stored before
 * the store checked invariants (or by another implementation) can still be repriced. See
 * docs/decisions/0060.
 * @throws InvalidMessageError naming the rules the new metadata breaks.
 */
function checkRepricing(
  row: MessagesTable,
  stored: Record<string, unknown>,
  next: Record<string, unknown>,
): void {
  if ((next.status ?? 'complete') !== 'complete') return;
  let content: unknown = [];
  try {
    content = JSON.parse(row.content_json);
  } catch {
    // An unreadable content is a violation before and after alike: it does not count.
  }
  let createdAt: unknown = row.created_at;
  try {
    createdAt = epochMicrosToTimestamp(Number(row.created_at));
  } catch {
    // idem
  }
  const candidate = {
    id: row.id,
    session_id: row.session_id,
    role: row.role,
    content,
    created_at: createdAt,
    schema_version: Number(row.schema_version),
  };
  const before = new Set(
    validateMessage({ ...candidate, metadata: stored }).violations.map(violationKey),
  );
  const introduced = validateMessage({ ...candidate, metadata: next }).violations.filter(
    (v) => !before.has(violationKey(v)),
  );
  if (introduced.length > 0) throw new InvalidMessageError(row.id, introduced);
}

function toolCallStatusOf(message: Message): 'pending' | 'cancelled' {
  const status = message.metadata.status;
  return status === 'cancelled' || status === 'error' ? 'cancelled' : 'pending';
}

/**
 * A {@link SessionStore} on SQL: SQLite through better-sqlite3, or PostgreSQL through pg, with
 * the tables of canonical-format §10. Open one with {@link openStore}.
 *
 * Writes are transactions: an assistant message and its `tool_calls` rows, or a tool message
 * and the answer it records, are stored together or not at all. Reads go through core's
 * tolerant `parseMessage` and never rewrite a row; an unreadable row is reported as a
 * `CorruptRowError` naming it while the rest loads.
 */
export class SqlSessionStore implements SessionStore {
  /** `sqlite` or `postgres`. */
  readonly dialect: StoreDialect;
  /** The URL the store was opened with, password redacted. */
  readonly url: string;
  /** PostgreSQL: the schema holding the tables. */
  readonly schema: string | undefined;
  readonly #db: Kysely<StoreDatabase>;
  readonly #connection: Connection;
  readonly #logger: Logger;
  /** Redacted from driver errors (the connection's password). */
  readonly #secrets: readonly string[];
  #closed = false;

  /** Use {@link openStore}. */
  constructor(dialect: StoreDialect, url: string, connection: Connection, logger: Logger) {
    this.dialect = dialect;
    this.url = url;
    this.schema = connection.schema;
    this.#connection = connection;
    this.#db = connection.db;
    this.#logger = logger;
    this.#secrets = connection.secrets ?? [];
  }

  /**
   * The typed kysely instance, for queries the store does not offer (reports, exports). Write
   * through the store's methods: they keep messages and tool calls consistent.
   */
  get db(): Kysely<StoreDatabase> {
    return this.#db;
  }

  /** Applies pending migrations. {@link openStore} does this unless told not to. */
  async migrate(): Promise<MigrationReport> {
    return this.#guard('migrate', () => this.#migrate());
  }

  async #migrate(): Promise<MigrationReport> {
    this.#ensureOpen();
    const provider = storeMigrationProvider(this.dialect);
    const run = async (db: Kysely<StoreDatabase>) => {
      const migrator = new Migrator(
        this.schema === undefined
          ? { db, provider }
          : { db, provider, migrationTableSchema: this.schema },
      );
      const { error, results = [] } = await migrator.migrateToLatest();
      if (error !== undefined) {
        const failed = results.find((r) => r.status === 'Error')?.migrationName ?? '(setup)';
        throw new StoreConnectionError(
          this.url,
          `migration ${failed} failed: ${(error as Error)?.message ?? String(error)}`,
          { cause: error },
        );
      }
      return { applied: results.filter((r) => r.status === 'Success').map((r) => r.migrationName) };
    };
    if (this.dialect === 'postgres') {
      await this.#db.schema
        .createSchema(this.schema ?? 'public')
        .ifNotExists()
        .execute()
        .catch(async (error: unknown) => {
          // Two instances creating the schema at once: the loser's "if not exists" can still
          // fail; it is fine as long as the schema is there now.
          const found = await sql<{
            n: number;
          }>`select count(*)::int as n from pg_namespace where nspname = ${this.schema ?? 'public'}`.execute(
            this.#db,
          );
          if ((found.rows[0]?.n ?? 0) === 0) throw error;
        });
      // PostgreSQL: kysely runs the migrations in a transaction under an advisory lock.
      return run(this.#db);
    }
    // SQLite: kysely takes no lock there, so several processes opening a new file at once
    // would race. One IMMEDIATE transaction makes the whole migration atomic and serialized.
    return this.#write(run);
  }

  // ---------------------------------------------------------------------------- sessions

  /**
   * Creates a session.
   * @throws DuplicateSessionError when the id is taken; InvalidStoreInputError (a text a
   * column cannot hold, e.g. a NUL in `workspace_path`), JsonTooDeepError (`routing_policy`).
   */
  async createSession(input: CreateSessionInput): Promise<SessionRecord> {
    return this.#guard('createSession', () => this.#createSession(input));
  }

  async #createSession(input: CreateSessionInput): Promise<SessionRecord> {
    const issues: StoreInputIssue[] = [];
    if (!isPlainObject(input)) {
      throw new InvalidStoreInputError('session', [{ path: '$', message: 'must be an object' }]);
    }
    if (typeof input.workspace_path !== 'string' || input.workspace_path === '') {
      issues.push({ path: 'workspace_path', message: 'must be a non-empty string' });
    }
    if (input.id !== undefined && (typeof input.id !== 'string' || input.id === '')) {
      issues.push({ path: 'id', message: 'must be a non-empty string' });
    }
    checkTextColumn(input.workspace_path, 'workspace_path', issues);
    checkTextColumn(input.id, 'id', issues);
    const activeModel = checkModel(input.active_model, 'active_model', issues);
    checkTextColumn(activeModel, 'active_model', issues);
    const policy = checkJsonObject(input.routing_policy, 'routing_policy', issues, 'session');
    if (issues.length > 0) throw new InvalidStoreInputError('session', issues);
    const now = nowEpochMicros();
    const row = {
      id: input.id ?? newSessionId(),
      workspace_path: input.workspace_path,
      active_model: activeModel ?? null,
      routing_policy_json: policy ?? null,
      schema_version: CURRENT_SCHEMA_VERSION,
      created_at: now,
      updated_at: now,
    };
    await this.#write(async (trx) => {
      const taken = await trx
        .selectFrom('sessions')
        .select('id')
        .where('id', '=', row.id)
        .executeTakeFirst();
      if (taken) throw new DuplicateSessionError(row.id);
      try {
        await trx.insertInto('sessions').values(row).execute();
      } catch (error) {
        if (uniqueViolationTable(error) !== undefined) throw new DuplicateSessionError(row.id);
        throw error;
      }
    });
    return rowToSession(row);
  }

  /**
   * A session, or `null` when there is none.
   * @throws CorruptRowError when its stored routing policy is unreadable.
   */
  async getSession(id: string): Promise<SessionRecord | null> {
    return this.#guard('getSession', async () => {
      this.#ensureOpen();
      checkKey(id, 'id');
      const row = await this.#db
        .selectFrom('sessions')
        .selectAll()
        .where('id', '=', id)
        .executeTakeFirst();
      return row ? rowToSession(row) : null;
    });
  }

  /**
   * Sessions, most recently updated first (every append or update bumps `updated_at`).
   * A session row that cannot be read is skipped with a WARN.
   */
  async listSessions(
    options: ListSessionsOptions = {},
  ): Promise<{ sessions: SessionRecord[]; next_cursor: string | null }> {
    return this.#guard('listSessions', () => this.#listSessions(options));
  }

  async #listSessions(
    options: ListSessionsOptions,
  ): Promise<{ sessions: SessionRecord[]; next_cursor: string | null }> {
    this.#ensureOpen();
    if (options.workspace_path !== undefined) checkKey(options.workspace_path, 'workspace_path');
    const limit = checkLimit(options.limit, DEFAULT_SESSION_PAGE, 1000, 'limit');
    const after = options.cursor === undefined ? undefined : decodeCursor(options.cursor);
    const rows = await this.#db
      .selectFrom('sessions')
      .selectAll()
      .$if(options.workspace_path !== undefined, (q) =>
        q.where('workspace_path', '=', options.workspace_path ?? ''),
      )
      .$if(after !== undefined, (q) =>
        q.where((eb) =>
          eb.or([
            eb('updated_at', '<', after?.at ?? 0),
            eb.and([eb('updated_at', '=', after?.at ?? 0), eb('id', '<', after?.id ?? '')]),
          ]),
        ),
      )
      .orderBy('updated_at', 'desc')
      .orderBy('id', 'desc')
      .limit(limit + 1)
      .execute();
    const page = rows.slice(0, limit);
    const sessions: SessionRecord[] = [];
    for (const row of page) {
      try {
        sessions.push(rowToSession(row));
      } catch (error) {
        if (!(error instanceof CorruptRowError)) throw error;
        this.#reportCorrupt(error);
      }
    }
    const last = page.at(-1);
    const next_cursor =
      rows.length > limit && last
        ? encodeCursor({ at: Number(last.updated_at), id: last.id })
        : null;
    if (options.withStats && sessions.length > 0) {
      const stats = await this.#statsFor(sessions.map((session) => session.id));
      for (const session of sessions) session.stats = stats.get(session.id) ?? emptyStats();
    }
    return { sessions, next_cursor };
  }

  /**
   * What a session holds, in figures: message count, the model of the newest assistant message,
   * the exact sum of its assistant messages' `cost_usd`, and how many were unpriced. Zeros for a
   * session without messages (or none at all). An assistant row whose metadata cannot be read is
   * reported like any corrupt row and left out of the cost.
   */
  async sessionStats(sessionId: string): Promise<SessionStats> {
    return this.#guard('sessionStats', async () => {
      this.#ensureOpen();
      checkKey(sessionId, 'sessionId');
      return (await this.#statsFor([sessionId])).get(sessionId) ?? emptyStats();
    });
  }

  async #statsFor(sessionIds: readonly string[]): Promise<Map<string, SessionStats>> {
    const counts = await this.#db
      .selectFrom('messages')
      .select(['session_id', (eb) => eb.fn.countAll<number | string | bigint>().as('n')])
      .where('session_id', 'in', sessionIds)
      .groupBy('session_id')
      .execute();
    // usage is on assistant messages and on compaction summaries (system messages)
    const assistants = await this.#db
      .selectFrom('messages')
      .select(['id', 'session_id', 'role', 'metadata_json'])
      .where('session_id', 'in', sessionIds)
      .where('role', 'in', ['assistant', 'system'])
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    const out = new Map<string, SessionStats>();
    for (const row of counts)
      out.set(row.session_id, { ...emptyStats(), message_count: Number(row.n) });
    const costs = new Map<string, string[]>();
    for (const row of assistants) {
      const stats = out.get(row.session_id);
      if (!stats) continue;
      let metadata: { model?: unknown; usage?: { cost_usd?: unknown } | null };
      try {
        metadata = JSON.parse(row.metadata_json);
      } catch (error) {
        this.#reportCorrupt(
          new CorruptRowError('messages', row.id, 'metadata_json is not valid JSON', {
            cause: error,
          }),
        );
        continue;
      }
      if (row.role === 'assistant' && typeof metadata.model === 'string' && metadata.model)
        stats.last_model = metadata.model;
      const usage = metadata.usage;
      if (!usage || typeof usage !== 'object') continue;
      const cost = usage.cost_usd;
      if (cost === null) stats.unpriced_messages++;
      else if (typeof cost === 'string' && /^\d+(?:\.\d+)?$/.test(cost)) {
        const list = costs.get(row.session_id) ?? [];
        list.push(cost);
        costs.set(row.session_id, list);
      }
    }
    for (const [id, list] of costs) {
      const stats = out.get(id);
      if (stats) stats.total_cost_usd = sumDecimalStrings(list);
    }
    return out;
  }

  /** Changes a session's workspace, active model or routing policy. */
  async updateSession(id: string, patch: SessionPatch): Promise<SessionRecord> {
    return this.#guard('updateSession', () => this.#updateSession(id, patch));
  }

  async #updateSession(id: string, patch: SessionPatch): Promise<SessionRecord> {
    checkKey(id, 'id');
    const issues: StoreInputIssue[] = [];
    if (!isPlainObject(patch)) {
      throw new InvalidStoreInputError('session patch', [
        { path: '$', message: 'must be an object' },
      ]);
    }
    const set: {
      workspace_path?: string;
      active_model?: string | null;
      routing_policy_json?: string | null;
      updated_at: number;
    } = { updated_at: nowEpochMicros() };
    if (patch.workspace_path !== undefined) {
      if (typeof patch.workspace_path !== 'string' || patch.workspace_path === '') {
        issues.push({ path: 'workspace_path', message: 'must be a non-empty string' });
      } else set.workspace_path = patch.workspace_path;
    }
    const activeModel = checkModel(patch.active_model, 'active_model', issues);
    if (activeModel !== undefined) set.active_model = activeModel;
    checkTextColumn(set.workspace_path, 'workspace_path', issues);
    checkTextColumn(set.active_model, 'active_model', issues);
    const policy = checkJsonObject(patch.routing_policy, 'routing_policy', issues, 'session patch');
    if (policy !== undefined) set.routing_policy_json = policy;
    if (issues.length > 0) throw new InvalidStoreInputError('session patch', issues);
    const row = await this.#write(async (trx) => {
      const result = await trx.updateTable('sessions').set(set).where('id', '=', id).execute();
      if (Number(result[0]?.numUpdatedRows ?? 0) === 0) throw new SessionNotFoundError(id);
      return trx.selectFrom('sessions').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    });
    return rowToSession(row);
  }

  /**
   * Deletes a session and every row of it, in every table (`tool_calls`, `messages`,
   * `sessions`), in one transaction: all of it or nothing.
   * @throws SessionNotFoundError when there is no such session (nothing is deleted).
   */
  async deleteSession(id: string): Promise<DeletedSession> {
    return this.#guard('deleteSession', async () => {
      this.#ensureOpen();
      checkKey(id, 'id');
      return this.#write((trx) => deleteSessionRows(trx, id, this.dialect));
    });
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
    return this.#guard('exportSession', async () => {
      this.#ensureOpen();
      checkKey(id, 'id');
      return this.#read((db) => readSessionExport(db, id, this.#logger));
    });
  }

  /**
   * Stores a session export (from {@link exportSession} or `parseSessionLines()`) exactly as
   * exported, in one transaction: the session with its times, every message with its id and
   * `created_at`, every tool call with its status, answer, provider id and times. Everything is
   * checked first, each message as {@link appendMessage} checks it; a refused import writes
   * nothing. Exporting the imported session gives the same export.
   * @throws InvalidStoreInputError (listing every problem), InvalidMessageError,
   * JsonTooDeepError; DuplicateSessionError, DuplicateMessageError, DuplicateToolCallError when
   * an id is already stored.
   */
  async importSession(data: SessionExport): Promise<SessionRecord> {
    return this.#guard('importSession', async () => {
      this.#ensureOpen();
      const checked = checkSessionImport(data);
      await this.#write((trx) => writeSessionImport(trx, checked));
      return importedSession(checked);
    });
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
    return this.#guard('appendMessage', async () => {
      const [checked] = await this.#append([message], options);
      return storedMessage(checked as CheckedMessage);
    });
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
    await this.#guard('appendMessages', () => this.#append(messages, options));
  }

  /** Checks and writes `messages` in one transaction; resolves to what was checked. */
  async #append(
    messages: readonly Message[],
    options: AppendMessageOptions,
  ): Promise<CheckedMessage[]> {
    this.#ensureOpen();
    if (messages.length === 0) return [];
    const checked = messages.map(checkMessage);
    const seen = new Set<string>();
    for (const { message } of checked) {
      if (seen.has(message.id)) throw new DuplicateMessageError(message.id);
      seen.add(message.id);
    }
    const toolCalls = checked.flatMap((c) => this.#toolCallRows(c, options));
    await this.#write(async (trx) => {
      const sessionIds = [...new Set(checked.map((c) => c.message.session_id))];
      // Bumping updated_at first also proves the sessions exist: one statement, not two.
      await this.#touchSessions(trx, sessionIds, true);
      for (const ids of chunks([...seen], 1000)) {
        const taken = await trx
          .selectFrom('messages')
          .select('id')
          .where('id', 'in', ids)
          .executeTakeFirst();
        if (taken) throw new DuplicateMessageError(taken.id);
      }
      for (const batch of chunks(checked, ROWS_PER_STATEMENT)) {
        try {
          await trx.insertInto('messages').values(batch.map(messageRow)).execute();
        } catch (error) {
          if (uniqueViolationTable(error) === 'messages') {
            throw new DuplicateMessageError(batch[0]?.message.id ?? '');
          }
          throw error;
        }
      }
      await this.#insertToolCalls(trx, toolCalls);
      for (const c of checked) await this.#recordAnswers(trx, c);
    });
    return checked;
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
    return this.#guard('updateMessage', () => this.#updateMessage(message, options));
  }

  async #updateMessage(message: Message, options: AppendMessageOptions): Promise<Message> {
    this.#ensureOpen();
    const checked = checkMessage(message);
    const next = checked.message;
    const createdAt = await this.#write(async (trx) => {
      const stored = await trx
        .selectFrom('messages')
        .select(['id', 'session_id', 'role', 'created_at'])
        .where('id', '=', next.id)
        .executeTakeFirst();
      if (!stored) throw new MessageNotFoundError(next.id);
      const issues: StoreInputIssue[] = [];
      if (stored.session_id !== next.session_id) {
        issues.push({ path: 'session_id', message: `is "${stored.session_id}" in the store` });
      }
      if (stored.role !== next.role) {
        issues.push({ path: 'role', message: `is "${stored.role}" in the store` });
      }
      if (issues.length > 0)
        throw new InvalidStoreInputError(`update of message ${next.id}`, issues);
      await trx
        .updateTable('messages')
        .set({
          content_json: checked.contentJson,
          metadata_json: checked.metadataJson,
          schema_version: next.schema_version,
        })
        .where('id', '=', next.id)
        .execute();

      const existing = await trx
        .selectFrom('tool_calls')
        .select(['id', 'provider_id'])
        .where('message_id', '=', next.id)
        .execute();
      const known = new Map(existing.map((r) => [r.id, r.provider_id]));
      const rows = this.#toolCallRows(
        { ...checked, createdAt: Number(stored.created_at) },
        options,
      );
      await this.#insertToolCalls(
        trx,
        rows.filter((r) => !known.has(r.id)),
      );
      for (const r of rows) {
        if (known.has(r.id) && known.get(r.id) === null && r.provider_id !== null) {
          await trx
            .updateTable('tool_calls')
            .set({ provider_id: r.provider_id, provider: r.provider })
            .where('id', '=', r.id)
            .execute();
        }
      }
      if (toolCallStatusOf(next) === 'cancelled') {
        await trx
          .updateTable('tool_calls')
          .set({ status: 'cancelled', completed_at: nowEpochMicros() })
          .where('message_id', '=', next.id)
          .where('status', '=', 'pending')
          .execute();
      }
      await this.#recordAnswers(trx, { ...checked, createdAt: Number(stored.created_at) });
      await this.#touchSessions(trx, [next.session_id]);
      return Number(stored.created_at);
    });
    return storedMessage(checked, createdAt);
  }

  /** A single message, or `null`. @throws CorruptRowError when its row is unreadable. */
  async getMessage(id: string): Promise<Message | null> {
    return this.#guard('getMessage', async () => {
      this.#ensureOpen();
      checkKey(id, 'id');
      const row = await this.#db
        .selectFrom('messages')
        .selectAll()
        .where('id', '=', id)
        .executeTakeFirst();
      return row ? rowToMessage(row, this.#logger) : null;
    });
  }

  /**
   * A session's messages in order (`created_at`, then id). Unreadable rows are returned in
   * `errors` and the rest still loads. @throws SessionNotFoundError.
   */
  async loadMessages(sessionId: string): Promise<LoadedMessages> {
    return this.#guard('loadMessages', () => this.#loadMessages(sessionId));
  }

  async #loadMessages(sessionId: string): Promise<LoadedMessages> {
    this.#ensureOpen();
    checkKey(sessionId, 'sessionId');
    await this.#requireSessions(this.#db, [sessionId]);
    const rows = await this.#db
      .selectFrom('messages')
      .selectAll()
      .where('session_id', '=', sessionId)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    return this.#readRows(rows);
  }

  /**
   * A page of a session's messages after `after` (a cursor from the previous page; none for
   * the first page). `limit` from 1 to 10000. @throws SessionNotFoundError.
   */
  async pageMessages(
    sessionId: string,
    options: { after?: string | null; limit: number },
  ): Promise<MessagePage> {
    return this.#guard('pageMessages', () => this.#pageMessages(sessionId, options));
  }

  async #pageMessages(
    sessionId: string,
    options: { after?: string | null; limit: number },
  ): Promise<MessagePage> {
    this.#ensureOpen();
    checkKey(sessionId, 'sessionId');
    const limit = checkLimit(options.limit, 100, MAX_PAGE, 'limit');
    const after = options.after ? decodeCursor(options.after) : undefined;
    await this.#requireSessions(this.#db, [sessionId]);
    const rows = await this.#messagesAfter({ sessionId }, after, limit + 1);
    const page = rows.slice(0, limit);
    const last = page.at(-1);
    return {
      ...this.#readRows(page),
      next_cursor:
        rows.length > limit && last
          ? encodeCursor({ at: Number(last.created_at), id: last.id })
          : null,
    };
  }

  /**
   * Every stored message matching the filter, in order (`created_at`, then id), read in
   * batches. Unreadable rows are skipped and passed to `onError`. Used to reprice history.
   */
  async *iterateMessages(options: IterateMessagesOptions = {}): AsyncGenerator<Message> {
    this.#ensureOpen();
    const batch = checkLimit(options.batchSize, DEFAULT_BATCH, MAX_PAGE, 'batchSize');
    if (options.sessionId !== undefined) checkKey(options.sessionId, 'sessionId');
    let after: Position | undefined;
    for (;;) {
      options.signal?.throwIfAborted();
      const at = after;
      const rows = await this.#guard('iterateMessages', () =>
        this.#messagesAfter(options, at, batch),
      );
      for (const row of rows) {
        options.signal?.throwIfAborted();
        try {
          yield rowToMessage(row, this.#logger);
        } catch (error) {
          if (!(error instanceof CorruptRowError)) throw error;
          this.#reportCorrupt(error);
          options.onError?.(error);
        }
      }
      const last = rows.at(-1);
      if (rows.length < batch || !last) return;
      after = { at: Number(last.created_at), id: last.id };
    }
  }

  /**
   * Replaces `metadata.usage` of a stored message (repricing); nothing else in the row
   * changes, unknown metadata fields included.
   * @throws MessageNotFoundError; CorruptRowError when the row's metadata is unreadable.
   */
  async updateMessageUsage(messageId: string, usage: Usage): Promise<void> {
    return this.#guard('updateMessageUsage', () => this.#updateMessageUsage(messageId, usage));
  }

  async #updateMessageUsage(messageId: string, usage: Usage): Promise<void> {
    this.#ensureOpen();
    checkKey(messageId, 'messageId');
    const parsed = UsageSchema.safeParse(usage);
    if (!parsed.success) {
      throw new InvalidStoreInputError('usage', issuesFromZod(parsed.error, 'usage'));
    }
    await this.#write(async (trx) => {
      const row = await trx
        .selectFrom('messages')
        .selectAll()
        .where('id', '=', messageId)
        .$if(this.dialect === 'postgres', (q) => q.forUpdate())
        .executeTakeFirst();
      if (!row) throw new MessageNotFoundError(messageId);
      let metadata: unknown;
      try {
        metadata = JSON.parse(row.metadata_json);
      } catch (cause) {
        throw new CorruptRowError('messages', messageId, 'metadata_json is not valid JSON', {
          cause,
        });
      }
      if (!isPlainObject(metadata)) {
        throw new CorruptRowError('messages', messageId, 'metadata_json is not a JSON object');
      }
      const stored = { ...metadata };
      metadata.usage = parsed.data;
      checkRepricing(row, stored, metadata);
      await trx
        .updateTable('messages')
        .set({ metadata_json: toJsonText(metadata, `message ${messageId}`, 'metadata') })
        .where('id', '=', messageId)
        .execute();
      // a repriced row is a change readers holding the history must see, or it would price the session from its old figure;
      // updated_at stays: repricing does not make a session recent
      await trx
        .updateTable('sessions')
        .set((eb) => ({ revision: eb('revision', '+', 1) }))
        .where('id', '=', row.session_id)
        .execute();
    });
  }

  // -------------------------------------------------------------------------- tool calls

  /** Every tool call of a session, in creation order. @throws SessionNotFoundError. */
  async listToolCalls(sessionId: string): Promise<ToolCallRecord[]> {
    return this.#guard('listToolCalls', () => this.#listToolCalls(sessionId));
  }

  async #listToolCalls(sessionId: string): Promise<ToolCallRecord[]> {
    this.#ensureOpen();
    checkKey(sessionId, 'sessionId');
    await this.#requireSessions(this.#db, [sessionId]);
    const rows = await this.#db
      .selectFrom('tool_calls')
      .selectAll()
      .where('session_id', '=', sessionId)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    return this.#readToolCalls(rows);
  }

  /** Tool calls of a session still `pending` (no result, not cancelled). */
  async findUnansweredToolCalls(sessionId: string): Promise<ToolCallRecord[]> {
    return this.#guard('findUnansweredToolCalls', () => this.#findUnansweredToolCalls(sessionId));
  }

  async #findUnansweredToolCalls(sessionId: string): Promise<ToolCallRecord[]> {
    this.#ensureOpen();
    checkKey(sessionId, 'sessionId');
    await this.#requireSessions(this.#db, [sessionId]);
    const rows = await this.#db
      .selectFrom('tool_calls')
      .selectAll()
      .where('session_id', '=', sessionId)
      .where('status', '=', 'pending')
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    return this.#readToolCalls(rows);
  }

  /** How many tool calls of a session failed (their result had `is_error: true`). */
  async countFailedToolCalls(sessionId: string): Promise<number> {
    return this.#guard('countFailedToolCalls', () => this.#countFailedToolCalls(sessionId));
  }

  async #countFailedToolCalls(sessionId: string): Promise<number> {
    this.#ensureOpen();
    checkKey(sessionId, 'sessionId');
    await this.#requireSessions(this.#db, [sessionId]);
    const row = await this.#db
      .selectFrom('tool_calls')
      .select((eb) => eb.fn.countAll<number>().as('failed'))
      .where('session_id', '=', sessionId)
      .where('status', '=', 'failed')
      .executeTakeFirst();
    return Number(row?.failed ?? 0);
  }

  /**
   * The session's tool id map, rebuilt from `tool_calls.provider_id` / `provider`. A link
   * that contradicts an earlier one is skipped with a WARN.
   */
  async loadToolIdMap(sessionId: string): Promise<ToolIdMap> {
    return this.#guard('loadToolIdMap', () => this.#loadToolIdMap(sessionId));
  }

  async #loadToolIdMap(sessionId: string): Promise<ToolIdMap> {
    this.#ensureOpen();
    checkKey(sessionId, 'sessionId');
    await this.#requireSessions(this.#db, [sessionId]);
    const rows = await this.#db
      .selectFrom('tool_calls')
      .select(['id', 'provider', 'provider_id'])
      .where('session_id', '=', sessionId)
      .where('provider_id', 'is not', null)
      .where('provider', 'is not', null)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    const map = new ToolIdMap();
    for (const row of rows) {
      try {
        map.set({
          canonical_id: row.id,
          provider: row.provider ?? '',
          provider_id: row.provider_id ?? '',
        });
      } catch (error) {
        if (!(error instanceof ToolIdConflictError)) throw error;
        this.#logger.warn(
          { event: 'tool_id_conflict', session_id: sessionId, tool_use_id: row.id },
          error.message,
        );
      }
    }
    return map;
  }

  /** Closes the database (the pool, for PostgreSQL). Later calls throw. Idempotent. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#guard('close', () => this.#db.destroy());
  }

  // ---------------------------------------------------------------------------- internals

  /**
   * Runs a store operation so that whatever fails in it surfaces as a `StoreError`: the
   * store's own errors as they are, anything from the driver or the database as a
   * `StoreDriverError` naming `operation`, its code and cause, secrets redacted.
   */
  async #guard<T>(operation: string, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      throw toStoreError(operation, error, this.#secrets);
    }
  }

  #ensureOpen(): void {
    if (this.#closed) throw new StoreError('store_closed', `the store ${this.url} is closed`);
  }

  /**
   * Runs `section` as one read transaction, so its queries see one snapshot: PostgreSQL
   * `REPEATABLE READ`, SQLite a deferred transaction (WAL: a snapshot from its first read).
   */
  async #read<T>(section: (db: Kysely<StoreDatabase>) => Promise<T>): Promise<T> {
    this.#ensureOpen();
    if (this.dialect === 'postgres') {
      return this.#db.transaction().setIsolationLevel('repeatable read').execute(section);
    }
    return this.#db.transaction().execute(section);
  }

  /**
   * Runs `section` as one write transaction. SQLite: `BEGIN IMMEDIATE` takes the write lock
   * up front, so a transaction never fails half-way on a lock upgrade; other processes wait up
   * to the busy timeout, writers of this thread queue on the file's lock.
   */
  async #write<T>(section: (trx: Kysely<StoreDatabase>) => Promise<T>): Promise<T> {
    this.#ensureOpen();
    const lock = this.#connection.writeLock;
    if (lock === undefined) return this.#db.transaction().execute(section);
    return lock.run(() =>
      this.#db.connection().execute(async (conn) => {
        await sql`begin immediate`.execute(conn);
        let result: T;
        try {
          result = await section(conn);
          await sql`commit`.execute(conn);
        } catch (error) {
          await sql`rollback`.execute(conn).catch(() => undefined);
          throw error;
        }
        return result;
      }),
    );
  }

  async #requireSessions(db: Kysely<StoreDatabase>, ids: readonly string[]): Promise<void> {
    for (const batch of chunks(ids, 1000)) {
      const found = await db.selectFrom('sessions').select('id').where('id', 'in', batch).execute();
      if (found.length === batch.length) continue;
      const present = new Set(found.map((r) => r.id));
      const missing = batch.find((id) => !present.has(id));
      throw new SessionNotFoundError(missing ?? '');
    }
  }

  /**
   * Bumps `updated_at` and `revision` of the sessions. With `require`, a session that is not there fails the
   * transaction with {@link SessionNotFoundError}.
   */
  async #touchSessions(
    trx: Kysely<StoreDatabase>,
    ids: readonly string[],
    require = false,
  ): Promise<void> {
    const now = nowEpochMicros();
    for (const batch of chunks(ids, 1000)) {
      const result = await trx
        .updateTable('sessions')
        .set((eb) => ({ updated_at: now, revision: eb('revision', '+', 1) }))
        .where('id', 'in', batch)
        .execute();
      if (require && Number(result[0]?.numUpdatedRows ?? 0) < batch.length) {
        await this.#requireSessions(trx, batch);
      }
    }
  }

  #toolCallRows(checked: CheckedMessage, options: AppendMessageOptions): ToolCallsTable[] {
    const { message } = checked;
    if (message.role !== 'assistant') return [];
    const provider = message.metadata.provider ?? null;
    const status = toolCallStatusOf(message);
    const rows: ToolCallsTable[] = [];
    for (const block of message.content) {
      if (block.type !== 'tool_use') continue;
      const providerId =
        provider !== null ? (options.toolIdMap?.getProviderId(provider, block.id) ?? null) : null;
      const problem = providerId === null ? undefined : textColumnProblem(providerId);
      if (problem !== undefined) {
        throw new InvalidStoreInputError(`message ${message.id}`, [
          { path: `toolIdMap (provider id of ${block.id})`, message: problem },
        ]);
      }
      rows.push({
        id: block.id,
        session_id: message.session_id,
        message_id: message.id,
        result_message_id: null,
        name: block.name,
        status,
        provider_id: providerId,
        provider,
        created_at: checked.createdAt,
        completed_at: status === 'cancelled' ? nowEpochMicros() : null,
      });
    }
    return rows;
  }

  async #insertToolCalls(trx: Kysely<StoreDatabase>, rows: ToolCallsTable[]): Promise<void> {
    if (rows.length === 0) return;
    const ids = new Map<string, string>();
    for (const row of rows) {
      if (ids.has(row.id)) throw new DuplicateToolCallError(row.id, row.message_id);
      ids.set(row.id, row.message_id);
    }
    // After the message rows: a taken id fails the transaction, which rolls them back too.
    for (const batch of chunks([...ids.keys()], 1000)) {
      const taken = await trx
        .selectFrom('tool_calls')
        .select('id')
        .where('id', 'in', batch)
        .executeTakeFirst();
      if (taken) throw new DuplicateToolCallError(taken.id, ids.get(taken.id) ?? '');
    }
    for (const batch of chunks(rows, ROWS_PER_STATEMENT)) {
      try {
        await trx.insertInto('tool_calls').values(batch).execute();
      } catch (error) {
        if (uniqueViolationTable(error) === 'tool_calls') {
          throw new DuplicateToolCallError(batch[0]?.id ?? '', batch[0]?.message_id ?? '');
        }
        throw error;
      }
    }
  }

  /** A tool message answers the calls its tool results name. */
  async #recordAnswers(trx: Kysely<StoreDatabase>, checked: CheckedMessage): Promise<void> {
    const { message } = checked;
    if (message.role !== 'tool') return;
    for (const block of message.content) {
      if (block.type !== 'tool_result') continue;
      const result = await trx
        .updateTable('tool_calls')
        .set({
          result_message_id: message.id,
          status: block.is_error ? 'failed' : 'succeeded',
          completed_at: checked.createdAt,
        })
        .where('id', '=', block.tool_use_id)
        .where('session_id', '=', message.session_id)
        .where('result_message_id', 'is', null)
        .execute();
      if (Number(result[0]?.numUpdatedRows ?? 0) === 0) {
        this.#logger.warn(
          {
            event: 'tool_result_unmatched',
            session_id: message.session_id,
            message_id: message.id,
            tool_use_id: block.tool_use_id,
          },
          `tool result ${message.id} answers ${block.tool_use_id}, which is not an unanswered tool call of session ${message.session_id}`,
        );
      }
    }
  }

  #messagesAfter(
    filter: { sessionId?: string | undefined; role?: Message['role'] | undefined },
    after: Position | undefined,
    limit: number,
  ): Promise<MessagesTable[]> {
    return this.#db
      .selectFrom('messages')
      .selectAll()
      .$if(filter.sessionId !== undefined, (q) =>
        q.where('session_id', '=', filter.sessionId ?? ''),
      )
      .$if(filter.role !== undefined, (q) => q.where('role', '=', filter.role ?? ''))
      .$if(after !== undefined, (q) =>
        q.where((eb) =>
          eb.or([
            eb('created_at', '>', after?.at ?? 0),
            eb.and([eb('created_at', '=', after?.at ?? 0), eb('id', '>', after?.id ?? '')]),
          ]),
        ),
      )
      .orderBy('created_at')
      .orderBy('id')
      .limit(limit)
      .execute();
  }

  #readRows(rows: readonly MessagesTable[]): LoadedMessages {
    const loaded: LoadedMessages = { messages: [], errors: [] };
    for (const row of rows) {
      try {
        loaded.messages.push(rowToMessage(row, this.#logger));
      } catch (error) {
        if (!(error instanceof CorruptRowError)) throw error;
        this.#reportCorrupt(error);
        loaded.errors.push(error);
      }
    }
    return loaded;
  }

  #readToolCalls(rows: readonly ToolCallsTable[]): ToolCallRecord[] {
    const out: ToolCallRecord[] = [];
    for (const row of rows) {
      try {
        out.push(rowToToolCall(row));
      } catch (error) {
        if (!(error instanceof CorruptRowError)) throw error;
        this.#reportCorrupt(error);
      }
    }
    return out;
  }

  #reportCorrupt(error: CorruptRowError): void {
    this.#logger.warn(
      { event: 'corrupt_row', table: error.table, row_id: error.rowId },
      error.message,
    );
  }
}

/**
 * Opens a store by URL and runs pending migrations:
 *
 * - `sqlite:./path/app.db` (directories are created), `sqlite::memory:`: SQLite through
 *   better-sqlite3, WAL mode, 5 s busy timeout, foreign keys on;
 * - `postgres://user:password@host:5432/db?schema=name`: PostgreSQL through `pg` (install it:
 *   it is an optional peer dependency), tables in `schema` (default `public`).
 *
 * @throws UnsupportedStoreUrlError, StoreConnectionError (never showing a password),
 * StoreDependencyError when `pg` is missing.
 */
export async function openStore(
  url: string,
  options: OpenStoreOptions = {},
): Promise<SqlSessionStore> {
  const location = parseStoreUrl(url);
  const redacted = redactStoreUrl(url);
  const logger = options.logger ?? silentLogger;
  let store: SqlSessionStore;
  if (location.dialect === 'sqlite') {
    const connection = await connectSqlite(location.filename, {
      redactedUrl: redacted,
      ...(options.busyTimeoutMs === undefined ? {} : { busyTimeoutMs: options.busyTimeoutMs }),
      ...(options.synchronous === undefined ? {} : { synchronous: options.synchronous }),
      ...(options.plugins === undefined ? {} : { plugins: options.plugins }),
    });
    store = new SqlSessionStore('sqlite', redacted, connection, logger);
  } else {
    const secrets = [location.password ?? '', url];
    const schema = options.schema ?? location.schema;
    const connection = await connectPostgres(location.connectionString, {
      logger,
      redactedUrl: redacted,
      secrets,
      ...(schema === undefined ? {} : { schema }),
      ...(options.pool === undefined ? {} : { pool: options.pool }),
      ...(options.plugins === undefined ? {} : { plugins: options.plugins }),
    });
    store = new SqlSessionStore('postgres', redacted, connection, logger);
    try {
      await sql`select 1`.execute(connection.db);
    } catch (cause) {
      await store.close().catch(() => undefined);
      throw new StoreConnectionError(
        redacted,
        redactSecrets((cause as Error).message ?? String(cause), secrets),
        { cause },
      );
    }
  }
  if (options.migrate !== false) {
    try {
      await store.migrate();
    } catch (error) {
      await store.close().catch(() => undefined);
      if (isYourtoolError(error)) throw error;
      throw new StoreConnectionError(redacted, `migrating: ${(error as Error).message}`, {
        cause: error,
      });
    }
  }
  return store;
}

function emptyStats(): SessionStats {
  return { message_count: 0, last_model: null, total_cost_usd: '0', unpriced_messages: 0 };
}

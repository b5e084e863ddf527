import {
  CorruptRowError,
  type CreateSessionInput,
  CURRENT_SCHEMA_VERSION,
  newSessionId,
  nowEpochMicros,
  type SessionPatch,
  type SessionRecord,
} from '@yourtool/core';
import { checkKey, checkTextColumn } from './checks.js';
import { checkLimit, reportCorrupt, type StoreContext } from './context.js';
import { decodeCursor, encodeCursor } from './cursor.js';
import {
  DuplicateSessionError,
  InvalidStoreInputError,
  SessionNotFoundError,
  type StoreInputIssue,
} from './errors.js';
import { storeNow } from './lease.js';
import {
  checkJsonObject,
  checkModel,
  isPlainObject,
  uniqueViolationTable,
} from './message-input.js';
import { selectSessionPostgres } from './postgres-reads.js';
import { rowToSession } from './rows.js';
import { checkSessionImport, importedSession, writeSessionImport } from './session-import.js';
import { checkOwner } from './session-owner.js';
import { selectSession } from './sqlite-direct.js';
import { emptyStats, statsFor } from './stats.js';
import {
  type DeletedSession,
  deleteSessionRows,
  type ImportConflict,
  type ImportSessionOptions,
  readSessionExport,
  type SessionExport,
} from './transfer.js';

// The session operations of SqlSessionStore: create, read, list, update, and whole sessions
// out (export), in (import) and away (delete).

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

/** A page of {@link SqlSessionStore.listSessions}. */
interface SessionList {
  sessions: SessionRecord[];
  next_cursor: string | null;
}

const DEFAULT_SESSION_PAGE = 50;

export async function createSession(
  ctx: StoreContext,
  input: CreateSessionInput,
): Promise<SessionRecord> {
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
  const owner = checkOwner(input, issues);
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
    ...owner,
  };
  await ctx.write(async (trx) => {
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

export async function getSession(ctx: StoreContext, id: string): Promise<SessionRecord | null> {
  checkKey(id, 'id');
  // every turn reads its session: on SQLite, a prepared statement run directly
  if (ctx.direct) {
    const row = await ctx.direct.read((sqlite) => selectSession(sqlite, id));
    return row ? rowToSession(row, nowEpochMicros()) : null;
  }
  // on PostgreSQL, a fixed text the server prepares once per connection
  const row = ctx.postgresAppend
    ? await selectSessionPostgres(ctx.db, id)
    : await ctx.db
        .selectFrom('sessions')
        .selectAll()
        .select(storeNow(ctx.dialect).as('store_now'))
        .where('id', '=', id)
        .executeTakeFirst();
  return row ? rowToSession(row, Number(row.store_now)) : null;
}

export async function listSessions(
  ctx: StoreContext,
  options: ListSessionsOptions,
): Promise<SessionList> {
  if (options.workspace_path !== undefined) checkKey(options.workspace_path, 'workspace_path');
  const limit = checkLimit(options.limit, DEFAULT_SESSION_PAGE, 1000, 'limit');
  const after = options.cursor === undefined ? undefined : decodeCursor(options.cursor);
  const rows = await ctx.db
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
      reportCorrupt(ctx.logger, error);
    }
  }
  const last = page.at(-1);
  const next_cursor =
    rows.length > limit && last ? encodeCursor({ at: Number(last.updated_at), id: last.id }) : null;
  if (options.withStats && sessions.length > 0) {
    const stats = await statsFor(
      ctx,
      sessions.map((session) => session.id),
    );
    for (const session of sessions) session.stats = stats.get(session.id) ?? emptyStats();
  }
  return { sessions, next_cursor };
}

/** The columns a session patch sets. */
interface SessionChanges {
  workspace_path?: string;
  active_model?: string | null;
  routing_policy_json?: string | null;
  updated_at: number;
}

export async function updateSession(
  ctx: StoreContext,
  id: string,
  patch: SessionPatch,
): Promise<SessionRecord> {
  checkKey(id, 'id');
  const set = sessionChanges(patch);
  const row = await ctx.write(async (trx) => {
    const result = await trx.updateTable('sessions').set(set).where('id', '=', id).execute();
    if (Number(result[0]?.numUpdatedRows ?? 0) === 0) throw new SessionNotFoundError(id);
    return trx.selectFrom('sessions').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  });
  return rowToSession(row);
}

/** The columns `patch` changes. @throws InvalidStoreInputError listing every problem. */
function sessionChanges(patch: SessionPatch): SessionChanges {
  const issues: StoreInputIssue[] = [];
  if (!isPlainObject(patch)) {
    throw new InvalidStoreInputError('session patch', [
      { path: '$', message: 'must be an object' },
    ]);
  }
  const set: SessionChanges = { updated_at: nowEpochMicros() };
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
  return set;
}

export function deleteSession(ctx: StoreContext, id: string): Promise<DeletedSession> {
  checkKey(id, 'id');
  return ctx.write((trx) => deleteSessionRows(trx, id, ctx.dialect));
}

export function exportSession(ctx: StoreContext, id: string): Promise<SessionExport> {
  checkKey(id, 'id');
  return ctx.read((db) => readSessionExport(db, id, ctx.logger));
}

const CONFLICTS: readonly ImportConflict[] = ['fail', 'skip', 'replace'];

export async function importSession(
  ctx: StoreContext,
  data: SessionExport,
  options: ImportSessionOptions = {},
): Promise<SessionRecord> {
  const ifExists = options.ifExists ?? 'fail';
  if (!CONFLICTS.includes(ifExists)) {
    throw new InvalidStoreInputError('options', [
      { path: 'ifExists', message: `must be "fail", "skip" or "replace", got "${ifExists}"` },
    ]);
  }
  const checked = checkSessionImport(data);
  const id = checked.session.id;
  const done = await ctx.write(async (trx) => {
    const stored = await trx
      .selectFrom('sessions')
      .selectAll()
      .where('id', '=', id)
      .$if(ctx.dialect === 'postgres', (q) => q.forUpdate())
      .executeTakeFirst();
    if (stored && ifExists === 'skip') {
      return { session: rowToSession(stored), action: 'skipped' as const, replaced: null };
    }
    if (!stored || ifExists === 'fail') {
      await writeSessionImport(trx, checked);
      return { session: importedSession(checked), action: 'imported' as const, replaced: null };
    }
    const replaced = await deleteSessionRows(trx, id, ctx.dialect);
    // a higher revision than the replaced session's, so a reader that kept it sees the change
    const next = { ...checked, session: { ...checked.session, revision: stored.revision + 1 } };
    await writeSessionImport(trx, next);
    return { session: importedSession(next), action: 'replaced' as const, replaced };
  });
  options.onOutcome?.({ session_id: id, action: done.action, replaced: done.replaced });
  return done.session;
}

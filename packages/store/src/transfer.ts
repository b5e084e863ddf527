import type { Logger, Message, SessionRecord, ToolCallRecord } from '@yourtool/core';
import type { Kysely } from 'kysely';
import type { StoreDatabase, StoreDialect } from './database.js';
import { SessionNotExportableError, SessionNotFoundError } from './errors.js';
import { rowToMessage, rowToSession, rowToToolCall } from './rows.js';

// Whole sessions in and out of the store: export (every row, read in one snapshot), import
// (every row as exported, ids and times kept, in one transaction) and delete (every row of
// every table, in one transaction). See docs/decisions/0144.

/** A session as an export carries it: its record, without the store's `revision` counter. */
export type ExportedSession = Omit<SessionRecord, 'revision' | 'stats'>;

/**
 * Everything the store holds about one session: the session row, its messages (in load order)
 * and its tool calls (in creation order), in the snake_case JSON of the data contract.
 */
export interface SessionExport {
  session: ExportedSession;
  messages: Message[];
  tool_calls: ToolCallRecord[];
}

/** What {@link SqlSessionStore.deleteSession} removed. */
export interface DeletedSession {
  session_id: string;
  /** Rows removed from `messages`. */
  messages: number;
  /** Rows removed from `tool_calls`. */
  tool_calls: number;
}

/** What {@link SqlSessionStore.importSession} does when the session's id is already stored. */
export type ImportConflict = 'fail' | 'skip' | 'replace';

/** What one {@link SqlSessionStore.importSession} did. */
export interface ImportOutcome {
  session_id: string;
  /**
   * `imported`: the session was not stored before; `skipped`: it was, and is left as it was
   * (`ifExists: 'skip'`); `replaced`: it was, and its rows were deleted and the import's written
   * in their place, in one transaction (`ifExists: 'replace'`).
   */
  action: 'imported' | 'skipped' | 'replaced';
  /** `replaced`: the rows the stored session had. */
  replaced: DeletedSession | null;
}

/** Options of {@link SqlSessionStore.importSession}. */
export interface ImportSessionOptions {
  /**
   * A session id already in the store: `'fail'` (default) throws `DuplicateSessionError`;
   * `'skip'` leaves the stored session as it is and writes nothing; `'replace'` deletes the
   * stored session's rows and writes the import's, in one transaction (a refused import leaves
   * the stored session as it was). Ids of messages and tool calls of another session are
   * refused either way.
   */
  ifExists?: ImportConflict;
  /** Called once the import is committed (or skipped), with what it did. */
  onOutcome?: (outcome: ImportOutcome) => void;
}

/**
 * Removes the session's rows from `tool_calls`, `messages` and `sessions`, in that order, inside
 * the caller's transaction. PostgreSQL: the session row is locked first, so a concurrent append
 * waits and then finds no session.
 * @throws SessionNotFoundError when there is no such session.
 */
export async function deleteSessionRows(
  trx: Kysely<StoreDatabase>,
  sessionId: string,
  dialect: StoreDialect,
): Promise<DeletedSession> {
  const found = await trx
    .selectFrom('sessions')
    .select('id')
    .where('id', '=', sessionId)
    .$if(dialect === 'postgres', (q) => q.forUpdate())
    .executeTakeFirst();
  if (!found) throw new SessionNotFoundError(sessionId);
  const toolCalls = await trx
    .deleteFrom('tool_calls')
    .where('session_id', '=', sessionId)
    .execute();
  const messages = await trx.deleteFrom('messages').where('session_id', '=', sessionId).execute();
  await trx.deleteFrom('sessions').where('id', '=', sessionId).execute();
  return {
    session_id: sessionId,
    messages: Number(messages[0]?.numDeletedRows ?? 0),
    tool_calls: Number(toolCalls[0]?.numDeletedRows ?? 0),
  };
}

/**
 * A logger that passes everything on and remembers the tolerant-read warnings that mean a loss
 * (a block or block field skipped, a newer schema version read in part). Unknown metadata
 * fields are preserved by the reader, so they are no loss.
 */
function lossWatcher(logger: Logger): { logger: Logger; losses: string[] } {
  const losses: string[] = [];
  const watching: Logger = {
    ...logger,
    warn(obj, msg) {
      const path = typeof obj.path === 'string' ? obj.path : '';
      if (obj.event === 'tolerant_read' && !path.startsWith('metadata.')) {
        losses.push(msg ?? `${path} would be skipped`);
      }
      logger.warn(obj, msg);
    },
  };
  return { logger: watching, losses };
}

/**
 * Reads every row of a session (inside the caller's snapshot). Strict where a tolerant read
 * would lose data: an unreadable row throws its `CorruptRowError`, and a message holding
 * something this version does not know throws {@link SessionNotExportableError}.
 * @throws SessionNotFoundError when there is no such session.
 */
export async function readSessionExport(
  db: Kysely<StoreDatabase>,
  sessionId: string,
  logger: Logger,
): Promise<SessionExport> {
  const row = await db
    .selectFrom('sessions')
    .selectAll()
    .where('id', '=', sessionId)
    .executeTakeFirst();
  if (!row) throw new SessionNotFoundError(sessionId);
  const { revision: _revision, ...session } = rowToSession(row);
  const messageRows = await db
    .selectFrom('messages')
    .selectAll()
    .where('session_id', '=', sessionId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  const watcher = lossWatcher(logger);
  const messages = messageRows.map((messageRow) => {
    const message = rowToMessage(messageRow, watcher.logger);
    const loss = watcher.losses.splice(0)[0];
    if (loss !== undefined) throw new SessionNotExportableError(sessionId, messageRow.id, loss);
    return message;
  });
  const toolCallRows = await db
    .selectFrom('tool_calls')
    .selectAll()
    .where('session_id', '=', sessionId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return { session, messages, tool_calls: toolCallRows.map(rowToToolCall) };
}

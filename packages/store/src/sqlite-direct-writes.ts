import {
  type AppendMessageOptions,
  type Logger,
  nowEpochMicros,
  type TurnLeaseWrite,
} from '@yourtool/core';
import type { SqliteDatabase } from 'kysely';
import type { ToolCallsTable } from './database.js';
import {
  DuplicateToolCallError,
  InvalidStoreInputError,
  MessageNotFoundError,
  type StoreInputIssue,
} from './errors.js';
import { type CheckedMessage, uniqueViolationTable } from './message-input.js';
import { insertMessageRow, touchSession } from './sqlite-direct.js';
import { toolCallStatusOf } from './tool-call-status.js';
import { toolCallRows } from './tool-calls.js';

// A turn's other writes on SQLite's prepared statements (issue 50): the assistant message with
// its tool call rows, the tool message answering them, and the update that finishes a streamed
// reply. Each mirrors its kysely twin statement for statement (`message-writes.ts`,
// `tool-calls.ts`), with the same columns, checks and errors, inside the direct path's one
// `BEGIN IMMEDIATE` transaction (`sqlite-direct.ts`).

const TOUCH_PLAIN =
  'update "sessions" set "updated_at" = ?, "revision" = "revision" + 1 where "id" = ? returning "revision"';
const SELECT_STORED =
  'select "id", "session_id", "role", "created_at" from "messages" where "id" = ?';
const UPDATE_MESSAGE =
  'update "messages" set "content_json" = ?, "metadata_json" = ?, "schema_version" = ? where "id" = ?';
const SELECT_CALLS_OF = 'select "id", "provider_id" from "tool_calls" where "message_id" = ?';
const SELECT_CALL = 'select "id" from "tool_calls" where "id" = ?';
const INSERT_CALL =
  'insert into "tool_calls" ("id", "session_id", "message_id", "result_message_id", "name", "status", "provider_id", "provider", "created_at", "completed_at") values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)';
const SET_PROVIDER = 'update "tool_calls" set "provider_id" = ?, "provider" = ? where "id" = ?';
const CANCEL_PENDING =
  'update "tool_calls" set "status" = ?, "completed_at" = ? where "message_id" = ? and "status" = ?';
const ANSWER_CALL =
  'update "tool_calls" set "result_message_id" = ?, "status" = ?, "completed_at" = ? where "id" = ? and "session_id" = ? and "result_message_id" is null';

/**
 * Inserts tool call rows, as `insertToolCalls` does: ids checked first, so a taken one is named.
 * @throws DuplicateToolCallError.
 */
function insertCalls(sqlite: SqliteDatabase, rows: readonly ToolCallsTable[]): void {
  if (rows.length === 0) return;
  const ids = new Map<string, string>();
  for (const row of rows) {
    if (ids.has(row.id)) throw new DuplicateToolCallError(row.id, row.message_id);
    ids.set(row.id, row.message_id);
  }
  const select = sqlite.prepare(SELECT_CALL);
  for (const [id, messageId] of ids) {
    if (select.all([id]).length > 0) throw new DuplicateToolCallError(id, messageId);
  }
  const insert = sqlite.prepare(INSERT_CALL);
  for (const r of rows) {
    const values = [r.id, r.session_id, r.message_id, r.result_message_id, r.name, r.status];
    try {
      insert.run([...values, r.provider_id, r.provider, r.created_at, r.completed_at]);
    } catch (error) {
      if (uniqueViolationTable(error) === 'tool_calls') {
        throw new DuplicateToolCallError(r.id, r.message_id);
      }
      throw error;
    }
  }
}

/** A tool message answers the calls its results name, as `recordAnswers` does. */
function recordAnswers(sqlite: SqliteDatabase, checked: CheckedMessage, logger: Logger): void {
  const { message } = checked;
  if (message.role !== 'tool') return;
  const answer = sqlite.prepare(ANSWER_CALL);
  for (const block of message.content) {
    if (block.type !== 'tool_result') continue;
    const status = block.is_error ? 'failed' : 'succeeded';
    const { changes } = answer.run([
      message.id,
      status,
      checked.createdAt,
      block.tool_use_id,
      message.session_id,
    ]);
    if (Number(changes) > 0) continue;
    logger.warn(
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

/** What a direct write of one message needs besides the connection. */
export interface DirectWrite {
  checked: CheckedMessage;
  options: AppendMessageOptions;
  lease: TurnLeaseWrite | undefined;
  logger: Logger;
}

/**
 * Appends one message in the open transaction, as `appendMessages` does for one: the session
 * touched with the lease applied, the row, its tool call rows, the answers it records.
 * Returns the session's new revision.
 * @throws as `appendPlainMessage`, and DuplicateToolCallError, InvalidStoreInputError.
 */
export function appendOneMessage(sqlite: SqliteDatabase, write: DirectWrite): number {
  const { checked, options, lease, logger } = write;
  const calls = toolCallRows(checked, options);
  const revision = touchSession(sqlite, checked.message.session_id, lease);
  insertMessageRow(sqlite, checked);
  insertCalls(sqlite, calls);
  recordAnswers(sqlite, checked, logger);
  return revision;
}

/**
 * Replaces a stored message in the open transaction, as `updateMessage` does: lease first, the
 * stored row's session and role checked, the row updated, its tool calls brought up to date,
 * the answers recorded, the session touched. Returns the stored position and the revision.
 * @throws MessageNotFoundError, InvalidStoreInputError, DuplicateToolCallError,
 * SessionNotFoundError, TurnLeaseHeldError, TurnLeaseLostError, TakeoverNeeded.
 */
export function updateOneMessage(
  sqlite: SqliteDatabase,
  write: DirectWrite,
): { createdAt: number; revision: number | undefined } {
  const { checked, options, lease, logger } = write;
  const next = checked.message;
  const leased = lease ? touchSession(sqlite, next.session_id, lease) : undefined;
  const [stored] = sqlite.prepare(SELECT_STORED).all([next.id]) as Array<{
    session_id: string;
    role: string;
    created_at: number | bigint;
  }>;
  if (!stored) throw new MessageNotFoundError(next.id);
  const issues: StoreInputIssue[] = [];
  if (stored.session_id !== next.session_id) {
    issues.push({ path: 'session_id', message: `is "${stored.session_id}" in the store` });
  }
  if (stored.role !== next.role) {
    issues.push({ path: 'role', message: `is "${stored.role}" in the store` });
  }
  if (issues.length > 0) throw new InvalidStoreInputError(`update of message ${next.id}`, issues);
  sqlite
    .prepare(UPDATE_MESSAGE)
    .run([checked.contentJson, checked.metadataJson, next.schema_version, next.id]);
  const placed = { ...checked, createdAt: Number(stored.created_at) };
  updateCalls(sqlite, placed, options);
  recordAnswers(sqlite, placed, logger);
  if (leased !== undefined) return { createdAt: placed.createdAt, revision: leased };
  const [touched] = sqlite.prepare(TOUCH_PLAIN).all([nowEpochMicros(), next.session_id]) as Array<{
    revision: number | bigint;
  }>;
  return {
    createdAt: placed.createdAt,
    revision: touched ? Number(touched.revision) : undefined,
  };
}

/** As `updateToolCalls`: rows for new tool uses, provider ids newly known, cancellations. */
function updateCalls(
  sqlite: SqliteDatabase,
  checked: CheckedMessage,
  options: AppendMessageOptions,
): void {
  const id = checked.message.id;
  const existing = sqlite.prepare(SELECT_CALLS_OF).all([id]) as Array<{
    id: string;
    provider_id: string | null;
  }>;
  const known = new Map(existing.map((r) => [r.id, r.provider_id]));
  const rows = toolCallRows(checked, options);
  insertCalls(
    sqlite,
    rows.filter((r) => !known.has(r.id)),
  );
  for (const r of rows) {
    if (known.has(r.id) && known.get(r.id) === null && r.provider_id !== null) {
      sqlite.prepare(SET_PROVIDER).run([r.provider_id, r.provider, r.id]);
    }
  }
  if (toolCallStatusOf(checked.message) === 'cancelled') {
    sqlite.prepare(CANCEL_PENDING).run(['cancelled', nowEpochMicros(), id, 'pending']);
  }
}

import {
  nowEpochMicros,
  type TurnLease,
  TurnLeaseHeldError,
  TurnLeaseLostError,
  type TurnLeaseWrite,
} from '@yourtool/core';
import type { SqliteDatabase } from 'kysely';
import type { SessionsTable } from './database.js';
import { DuplicateMessageError, SessionNotFoundError } from './errors.js';
import type { AsyncLock } from './lock.js';
import { type CheckedMessage, messageRow, uniqueViolationTable } from './message-input.js';
import type { SqliteGate } from './sqlite-gate.js';
import { GroupCommit } from './sqlite-group-commit.js';

// The hot path of a SQLite store, run on better-sqlite3's prepared statements directly: a turn
// reads its session row and appends plain messages (no tool call rows, no answers to record),
// and every statement built, compiled and awaited through kysely cost more than SQLite's own
// work (docs/decisions/0148). Every other operation, and every PostgreSQL one, goes through
// kysely; the SQL here writes exactly the columns the kysely path writes.

const SELECT_SESSION = 'select * from "sessions" where "id" = ?';
const TOUCH_SESSION =
  'update "sessions" set "updated_at" = ?, "revision" = "revision" + 1 where "id" = ? returning "revision"';
const SELECT_LEASE =
  'select "turn_lease_id", "turn_lease_expires_at" from "sessions" where "id" = ?';
// the session's touch and its lease in one statement: a turn's write costs no statement more
const TOUCH_TAKE =
  'update "sessions" set "updated_at" = ?, "revision" = "revision" + 1, "turn_lease_id" = ?, "turn_lease_expires_at" = ? where "id" = ? and ("turn_lease_id" is null or "turn_lease_id" = ?) returning "revision"';
const TOUCH_HOLD =
  'update "sessions" set "updated_at" = ?, "revision" = "revision" + 1, "turn_lease_expires_at" = ? where "id" = ? and "turn_lease_id" = ? returning "revision"';
const TOUCH_RELEASE =
  'update "sessions" set "updated_at" = ?, "revision" = "revision" + 1, "turn_lease_id" = null, "turn_lease_expires_at" = null where "id" = ? and "turn_lease_id" = ? returning "revision"';
const INSERT_MESSAGE =
  'insert into "messages" ("id", "session_id", "role", "content_json", "metadata_json", "created_at", "schema_version") values (?, ?, ?, ?, ?, ?, ?)';

/** Synchronous statements on the store's one SQLite connection, run at its turn. */
export interface SqliteDirect {
  /** Reads in one synchronous section (no other query of this store runs meanwhile). */
  read<T>(section: (sqlite: SqliteDatabase) => T): Promise<T>;
  /**
   * Writes in a `BEGIN IMMEDIATE` transaction, after the file's other writers of this thread
   * (the write lock) and while no other query of this store runs (the connection's gate): at
   * once, synchronously, in a transaction of its own when both are free; else in the batch of
   * writes waiting for them (`sqlite-group-commit.ts`), settling once that batch commits.
   */
  write<T>(section: (sqlite: SqliteDatabase) => T): Promise<T>;
}

/** Direct access to `sqlite`, the connection kysely's `db` runs on behind `gate`. */
export function sqliteDirect(
  gate: SqliteGate,
  sqlite: SqliteDatabase,
  writeLock: AsyncLock,
): SqliteDirect {
  // the connection is held for the section (at once when free): no kysely transaction is open
  const writes = new GroupCommit(gate, sqlite, writeLock);
  return {
    read: (section) => gate.run(() => section(sqlite)),
    write: (section) => writes.write(section),
  };
}

/** A `sessions` row as the driver reads it. */
export type SessionRow = Omit<
  SessionsTable,
  'revision' | 'turn_lease_id' | 'turn_lease_expires_at'
> & {
  revision: number;
  turn_lease_id: string | null;
  turn_lease_expires_at: number | null;
};

/** The session's row, or undefined. */
export function selectSession(sqlite: SqliteDatabase, id: string): SessionRow | undefined {
  return sqlite.prepare(SELECT_SESSION).all([id])[0] as SessionRow | undefined;
}

/**
 * Thrown inside a direct write whose `take` meets another turn's expired lease: the write is
 * rolled back and made on the kysely path, which also finishes the dead turn's rows.
 */
export class TakeoverNeeded extends Error {}

/**
 * Bumps the session's `updated_at` and `revision` and applies the write's lease, in one
 * statement, as `lease.ts` applies it on the kysely path (the process's clock: SQLite is one
 * machine's file). Returns the session's new revision.
 * @throws SessionNotFoundError, TurnLeaseHeldError, TurnLeaseLostError, TakeoverNeeded.
 */
export function touchSession(
  sqlite: SqliteDatabase,
  sessionId: string,
  write: TurnLeaseWrite | undefined,
): number {
  const now = nowEpochMicros();
  let rows: unknown[];
  if (!write) rows = sqlite.prepare(TOUCH_SESSION).all([now, sessionId]);
  else if ('take' in write) {
    const { id, ttlMs } = write.take;
    rows = sqlite.prepare(TOUCH_TAKE).all([now, id, now + ttlMs * 1000, sessionId, id]);
  } else if ('hold' in write) {
    const { id, ttlMs } = write.hold;
    rows = sqlite.prepare(TOUCH_HOLD).all([now, now + ttlMs * 1000, sessionId, id]);
  } else rows = sqlite.prepare(TOUCH_RELEASE).all([now, sessionId, write.release.id]);
  const [touched] = rows as Array<{ revision: number | bigint }>;
  if (touched) return Number(touched.revision);
  // nothing touched: no such session, or the lease is not this turn's to take, hold or release
  const [row] = sqlite.prepare(SELECT_LEASE).all([sessionId]) as Array<{
    turn_lease_id: string | null;
    turn_lease_expires_at: number | bigint | null;
  }>;
  if (!row || !write) throw new SessionNotFoundError(sessionId);
  if (!('take' in write)) {
    throw new TurnLeaseLostError(sessionId, ('hold' in write ? write.hold : write.release).id);
  }
  const until = Number(row.turn_lease_expires_at ?? 0);
  if (until > now) throw new TurnLeaseHeldError(sessionId, (until - now) / 1000);
  throw new TakeoverNeeded();
}

/** Whether {@link appendPlainMessage} can write `checked` (no tool call rows, no answers). */
export function isPlainMessage(checked: CheckedMessage): boolean {
  const { message } = checked;
  if (message.role === 'tool') return false;
  return message.role !== 'assistant' || !message.content.some((b) => b.type === 'tool_use');
}

/**
 * Appends one plain message in the open transaction, as `appendMessages` does: the session's
 * `updated_at` and `revision` bumped first with the write's turn lease applied (which proves it
 * exists and the lease is the turn's), then the row. Returns the session's new revision.
 * @throws SessionNotFoundError, DuplicateMessageError, TurnLeaseHeldError, TurnLeaseLostError,
 * TakeoverNeeded.
 */
export function appendPlainMessage(
  sqlite: SqliteDatabase,
  checked: CheckedMessage,
  lease?: TurnLeaseWrite,
): number {
  const revision = touchSession(sqlite, checked.message.session_id, lease);
  insertMessageRow(sqlite, checked);
  return revision;
}

/** Inserts a message's row in the open transaction. @throws DuplicateMessageError. */
export function insertMessageRow(sqlite: SqliteDatabase, checked: CheckedMessage): void {
  const row = messageRow(checked);
  try {
    sqlite
      .prepare(INSERT_MESSAGE)
      .run([
        row.id,
        row.session_id,
        row.role,
        row.content_json,
        row.metadata_json,
        row.created_at,
        row.schema_version,
      ]);
  } catch (error) {
    if (uniqueViolationTable(error) === 'messages') throw new DuplicateMessageError(row.id);
    throw error;
  }
}

const RENEW_LEASE =
  'update "sessions" set "turn_lease_expires_at" = ? where "id" = ? and "turn_lease_id" = ?';
const RELEASE_LEASE =
  'update "sessions" set "turn_lease_id" = null, "turn_lease_expires_at" = null where "id" = ? and "turn_lease_id" = ?';

/**
 * Renews a lease in the open transaction, as `lease.ts` does (the heartbeat).
 * @throws TurnLeaseLostError, SessionNotFoundError.
 */
export function renewLease(sqlite: SqliteDatabase, sessionId: string, lease: TurnLease): void {
  const until = nowEpochMicros() + lease.ttlMs * 1000;
  const { changes } = sqlite.prepare(RENEW_LEASE).run([until, sessionId, lease.id]);
  if (Number(changes) > 0) return;
  if (sqlite.prepare(SELECT_LEASE).all([sessionId]).length === 0) {
    throw new SessionNotFoundError(sessionId);
  }
  throw new TurnLeaseLostError(sessionId, lease.id);
}

/** Releases a lease in the open transaction; false when `lease.id` did not hold it. */
export function releaseLease(sqlite: SqliteDatabase, sessionId: string, lease: TurnLease): boolean {
  return Number(sqlite.prepare(RELEASE_LEASE).run([sessionId, lease.id]).changes) > 0;
}

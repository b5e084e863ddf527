import {
  nowEpochMicros,
  type TurnLease,
  TurnLeaseHeldError,
  TurnLeaseLostError,
  type TurnLeaseWrite,
} from '@yourtool/core';
import { type Kysely, type RawBuilder, sql } from 'kysely';
import type { StoreContext } from './context.js';
import type { StoreDatabase, StoreDialect } from './database.js';
import { InvalidStoreInputError, SessionNotFoundError } from './errors.js';
import { isPlainObject } from './message-input.js';
import {
  releaseLease as releaseLeaseDirect,
  renewLease as renewLeaseDirect,
} from './sqlite-direct.js';

// A session's turn lease (docs/decisions/0156): two columns of `sessions`, taken, held and
// released inside the transactions of a turn's writes, renewed by the turn's heartbeat. Times
// are epoch microseconds on the store's clock: the database server's for PostgreSQL (the
// machines sharing it may disagree), the process's for SQLite (one machine, one file).

/** Why a `partial` row of a turn whose lease expired is finished at `error`. */
export const ABANDONED_REASON =
  'the turn writing this reply stopped renewing its lease on the session (its process ended or lost the store); the turn that took the session next finished the row';

/** The store's clock, in epoch microseconds, as SQL. */
export function storeNow(dialect: StoreDialect): RawBuilder<number> {
  return dialect === 'postgres'
    ? sql<number>`(extract(epoch from clock_timestamp()) * 1000000)::bigint`
    : sql<number>`${nowEpochMicros()}`;
}

/** @throws InvalidStoreInputError for a lease without an id or a whole TTL of 1 ms or more. */
export function checkLease(lease: TurnLease, path: string): TurnLease {
  const issues = [];
  if (!isPlainObject(lease) || typeof lease.id !== 'string' || lease.id === '') {
    issues.push({ path: `${path}.id`, message: 'must be a non-empty string' });
  }
  const ttl = (lease as { ttlMs?: unknown } | null)?.ttlMs;
  if (typeof ttl !== 'number' || !Number.isSafeInteger(ttl) || ttl < 1) {
    issues.push({ path: `${path}.ttlMs`, message: `must be a whole number of 1 or more` });
  }
  if (issues.length > 0) throw new InvalidStoreInputError('turn lease', issues);
  return lease;
}

/** The lease of a write, checked; undefined when it has none. */
export function checkLeaseWrite(write: TurnLeaseWrite | undefined): TurnLeaseWrite | undefined {
  if (write === undefined) return undefined;
  if ('take' in write) checkLease(write.take, 'lease.take');
  else if ('hold' in write) checkLease(write.hold, 'lease.hold');
  else if ('release' in write) checkLease(write.release, 'lease.release');
  else {
    throw new InvalidStoreInputError('turn lease', [
      { path: 'lease', message: 'must be { take }, { hold } or { release }' },
    ]);
  }
  return write;
}

/**
 * Bumps the session's `updated_at` and `revision` as every write does, and applies the write's
 * lease, inside the write's transaction: a hold or release in the same statement (no statement
 * more), a take after reading the row (locked, on PostgreSQL), finishing the `partial` rows of
 * another turn whose lease expired first. Resolves to the session's new revision.
 * @throws TurnLeaseHeldError, TurnLeaseLostError, SessionNotFoundError.
 */
export async function touchWithLease(
  trx: Kysely<StoreDatabase>,
  dialect: StoreDialect,
  sessionId: string,
  write: TurnLeaseWrite,
): Promise<number> {
  const taken = 'take' in write ? await takeLease(trx, dialect, sessionId, write.take) : null;
  const lease = 'take' in write ? write.take : 'hold' in write ? write.hold : write.release;
  const row = await trx
    .updateTable('sessions')
    .set((eb) => ({
      updated_at: nowEpochMicros(),
      revision: eb('revision', '+', 1),
      ...(taken !== null
        ? { turn_lease_id: lease.id, turn_lease_expires_at: taken + lease.ttlMs * 1000 }
        : 'release' in write
          ? { turn_lease_id: null, turn_lease_expires_at: null }
          : { turn_lease_expires_at: expiresAt(dialect, lease) }),
    }))
    .where('id', '=', sessionId)
    // a take checked the (locked) row already
    .$if(taken === null, (q) => q.where('turn_lease_id', '=', lease.id))
    .returning('revision')
    .executeTakeFirst();
  if (row) return Number(row.revision);
  await requireSession(trx, sessionId);
  throw new TurnLeaseLostError(sessionId, lease.id);
}

/** Renews a lease in the open transaction. @throws TurnLeaseLostError, SessionNotFoundError. */
async function renewLease(
  trx: Kysely<StoreDatabase>,
  dialect: StoreDialect,
  sessionId: string,
  lease: TurnLease,
): Promise<void> {
  const changed = await trx
    .updateTable('sessions')
    .set({ turn_lease_expires_at: expiresAt(dialect, lease) })
    .where('id', '=', sessionId)
    .where('turn_lease_id', '=', lease.id)
    .executeTakeFirst();
  if (Number(changed.numUpdatedRows) === 0) {
    await requireSession(trx, sessionId);
    throw new TurnLeaseLostError(sessionId, lease.id);
  }
}

/** `lease.ttlMs` from now on the store's clock, as SQL. */
function expiresAt(dialect: StoreDialect, lease: TurnLease): RawBuilder<number> {
  return sql<number>`${storeNow(dialect)} + ${lease.ttlMs * 1000}`;
}

/**
 * Checks a take against the session's (locked) row, finishing the rows of another turn whose
 * lease expired; the touch that follows sets the lease. Resolves to the store's time, in epoch
 * microseconds. @throws TurnLeaseHeldError, SessionNotFoundError.
 */
async function takeLease(
  trx: Kysely<StoreDatabase>,
  dialect: StoreDialect,
  sessionId: string,
  lease: TurnLease,
): Promise<number> {
  // PostgreSQL: the row is locked until the write commits, so two takers take turns
  const row = await trx
    .selectFrom('sessions')
    .select(['turn_lease_id', 'turn_lease_expires_at', storeNow(dialect).as('now')])
    .where('id', '=', sessionId)
    .$if(dialect === 'postgres', (q) => q.forUpdate())
    .executeTakeFirst();
  if (!row) throw new SessionNotFoundError(sessionId);
  const now = Number(row.now);
  const holder = row.turn_lease_id;
  const until = row.turn_lease_expires_at === null ? 0 : Number(row.turn_lease_expires_at);
  if (holder !== null && holder !== lease.id) {
    if (until > now) throw new TurnLeaseHeldError(sessionId, (until - now) / 1000);
    await finishAbandoned(trx, sessionId);
  }
  return now;
}

/**
 * Finishes the `partial` assistant rows of a session whose previous turn's lease expired: each
 * at `status: error` with `metadata.error` `{ rule: 'turn_lease_expired', message }`, its
 * pending tool calls `cancelled`. Resolves to how many rows it finished.
 */
async function finishAbandoned(trx: Kysely<StoreDatabase>, sessionId: string): Promise<number> {
  const rows = await trx
    .selectFrom('messages')
    .select(['id', 'metadata_json'])
    .where('session_id', '=', sessionId)
    .where('role', '=', 'assistant')
    .where('metadata_json', 'like', '%"status":"partial"%')
    .execute();
  let finished = 0;
  for (const row of rows) {
    let metadata: unknown;
    try {
      metadata = JSON.parse(row.metadata_json);
    } catch {
      continue; // an unreadable row stays as it is (reads report it)
    }
    if (!isPlainObject(metadata) || metadata.status !== 'partial') continue;
    const error = { rule: 'turn_lease_expired', message: ABANDONED_REASON };
    await trx
      .updateTable('messages')
      .set({ metadata_json: JSON.stringify({ ...metadata, status: 'error', error }) })
      .where('id', '=', row.id)
      .execute();
    await trx
      .updateTable('tool_calls')
      .set({ status: 'cancelled', completed_at: nowEpochMicros() })
      .where('message_id', '=', row.id)
      .where('status', '=', 'pending')
      .execute();
    finished++;
  }
  if (finished > 0) {
    // one more revision: a history kept with those rows as they were is stale now
    await trx
      .updateTable('sessions')
      .set((eb) => ({ revision: eb('revision', '+', 1) }))
      .where('id', '=', sessionId)
      .execute();
  }
  return finished;
}

/** @throws SessionNotFoundError when the session is not stored. */
async function requireSession(trx: Kysely<StoreDatabase>, sessionId: string): Promise<void> {
  const found = await trx
    .selectFrom('sessions')
    .select('id')
    .where('id', '=', sessionId)
    .executeTakeFirst();
  if (!found) throw new SessionNotFoundError(sessionId);
}

/** Renews a lease (the heartbeat). @throws TurnLeaseLostError, SessionNotFoundError. */
export async function renewTurnLease(
  ctx: StoreContext,
  sessionId: string,
  lease: TurnLease,
): Promise<void> {
  checkLease(lease, 'lease');
  if (ctx.direct) {
    // SQLite: a prepared statement, one synchronous transaction
    await ctx.direct.write((sqlite) => renewLeaseDirect(sqlite, sessionId, lease));
    return;
  }
  await ctx.write((trx) => renewLease(trx, ctx.dialect, sessionId, lease));
}

/** Releases a lease; false when `lease.id` did not hold it. */
export async function releaseTurnLease(
  ctx: StoreContext,
  sessionId: string,
  lease: TurnLease,
): Promise<boolean> {
  checkLease(lease, 'lease');
  if (ctx.direct) return ctx.direct.write((sqlite) => releaseLeaseDirect(sqlite, sessionId, lease));
  const changed = await ctx.write((trx) =>
    trx
      .updateTable('sessions')
      .set({ turn_lease_id: null, turn_lease_expires_at: null })
      .where('id', '=', sessionId)
      .where('turn_lease_id', '=', lease.id)
      .executeTakeFirst(),
  );
  return Number(changed.numUpdatedRows) > 0;
}

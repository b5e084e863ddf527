import type { AppendMessageOptions, TurnLeaseWrite } from '@yourtool/core';
import type { StoreContext } from './context.js';
import type { CheckedMessage } from './message-input.js';
import { appendPlainMessagePostgres } from './postgres-append.js';
import {
  answersOf,
  appendToolMessagePostgres,
  isPlainUpdate,
  updatePlainMessagePostgres,
} from './postgres-turn-writes.js';
import { isPlainMessage, TakeoverNeeded } from './sqlite-direct.js';
import { appendOneMessage, updateOneMessage } from './sqlite-direct-writes.js';

// The fast paths of a turn's writes, before the kysely transaction of `message-writes.ts`:
// SQLite's prepared statements in one synchronous transaction, PostgreSQL's single statements.
// Each resolves to null when the write must be made on the kysely path (a takeover of an
// expired lease, or on PostgreSQL anything the statement could not write), which names the
// error or finishes the dead turn's rows.

/** Null for a direct write that must be made on the kysely path (a takeover); else rethrows. */
function unlessTakeover(error: unknown): null {
  if (error instanceof TakeoverNeeded) return null;
  throw error;
}

/** Appends one message on a fast path; its session's new revision, or null. */
export async function fastAppend(
  ctx: StoreContext,
  checked: CheckedMessage,
  options: AppendMessageOptions,
  lease: TurnLeaseWrite | undefined,
): Promise<number | null> {
  const write = { checked, options, lease, logger: ctx.logger };
  if (ctx.direct) {
    return ctx.direct.write((sqlite) => appendOneMessage(sqlite, write)).catch(unlessTakeover);
  }
  if (!ctx.postgresAppend) return null;
  if (isPlainMessage(checked)) return appendPlainMessagePostgres(ctx.db, checked, lease);
  const answers = answersOf(checked);
  return answers ? appendToolMessagePostgres(ctx.db, write, answers) : null;
}

/** Updates one message on a fast path: its stored position and revision, or null. */
export async function fastUpdate(
  ctx: StoreContext,
  checked: CheckedMessage,
  options: AppendMessageOptions,
  lease: TurnLeaseWrite | undefined,
): Promise<{ createdAt: number; revision: number | undefined } | null> {
  if (ctx.direct) {
    const write = { checked, options, lease, logger: ctx.logger };
    return ctx.direct.write((sqlite) => updateOneMessage(sqlite, write)).catch(unlessTakeover);
  }
  if (!ctx.postgresAppend || !isPlainUpdate(checked)) return null;
  return updatePlainMessagePostgres(ctx.db, checked, lease);
}

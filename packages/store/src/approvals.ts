import { nowEpochMicros } from '@yourtool/core';
import type { Kysely } from 'kysely';
import type { SqlSessionStore } from './store.js';

/** Where a tool approval stands. */
export type ToolApprovalStatus = 'pending' | 'approved' | 'denied' | 'expired';

/** A tool approval as stored (table `tool_approvals`, decision 0177). */
export interface ToolApprovalRecord {
  session_id: string;
  tool_use_id: string;
  tool_name: string;
  status: ToolApprovalStatus;
  reason: string | null;
}

interface ApprovalsTable {
  session_id: string;
  tool_use_id: string;
  tool_name: string;
  status: string;
  reason: string | null;
  requested_at: number | bigint;
  answered_at: number | bigint | null;
}

const STATUSES: ReadonlySet<string> = new Set(['pending', 'approved', 'denied', 'expired']);

/**
 * Tool approvals in the session database, shared by every process using it (decision 0177):
 * the shape of `@yourtool/ai-sdk`'s `ApprovalStore`. Each answer is one conditional update,
 * so of two answers to one approval only the first counts.
 */
export class SqlApprovalStore {
  readonly #db: Kysely<{ tool_approvals: ApprovalsTable }>;

  /** Uses the store's connection (its migration 0004 made the table). */
  constructor(store: SqlSessionStore) {
    this.#db = store.db as unknown as Kysely<{ tool_approvals: ApprovalsTable }>;
  }

  /** Records a pending approval; one already recorded stays as it is. */
  async request(record: {
    session_id: string;
    tool_use_id: string;
    tool_name: string;
  }): Promise<void> {
    await this.#db
      .insertInto('tool_approvals')
      .values({
        ...record,
        status: 'pending',
        reason: null,
        requested_at: nowEpochMicros(),
        answered_at: null,
      })
      .onConflict((c) => c.columns(['session_id', 'tool_use_id']).doNothing())
      .execute();
  }

  /** Answers a pending approval; null when none is pending under these ids. */
  async answer(
    sessionId: string,
    toolUseId: string,
    answer: { approved: boolean; reason?: string | null },
  ): Promise<ToolApprovalRecord | null> {
    const status = answer.approved ? 'approved' : 'denied';
    const changed = await this.#settle(sessionId, toolUseId, status, answer.reason ?? null);
    return changed ? this.get(sessionId, toolUseId) : null;
  }

  /** One approval, or null. */
  async get(sessionId: string, toolUseId: string): Promise<ToolApprovalRecord | null> {
    const row = await this.#db
      .selectFrom('tool_approvals')
      .select(['session_id', 'tool_use_id', 'tool_name', 'status', 'reason'])
      .where('session_id', '=', sessionId)
      .where('tool_use_id', '=', toolUseId)
      .executeTakeFirst();
    return row ? recordOf(row) : null;
  }

  /** The session's pending approvals, oldest first. */
  async pending(sessionId: string): Promise<ToolApprovalRecord[]> {
    const rows = await this.#db
      .selectFrom('tool_approvals')
      .select(['session_id', 'tool_use_id', 'tool_name', 'status', 'reason'])
      .where('session_id', '=', sessionId)
      .where('status', '=', 'pending')
      .orderBy('requested_at')
      .execute();
    return rows.map(recordOf);
  }

  /** Marks a pending approval expired; false when it was not pending. */
  expire(sessionId: string, toolUseId: string): Promise<boolean> {
    return this.#settle(sessionId, toolUseId, 'expired', null);
  }

  async #settle(
    sessionId: string,
    toolUseId: string,
    status: ToolApprovalStatus,
    reason: string | null,
  ) {
    const result = await this.#db
      .updateTable('tool_approvals')
      .set({ status, reason, answered_at: nowEpochMicros() })
      .where('session_id', '=', sessionId)
      .where('tool_use_id', '=', toolUseId)
      .where('status', '=', 'pending')
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }
}

function recordOf(row: Omit<ApprovalsTable, 'requested_at' | 'answered_at'>): ToolApprovalRecord {
  const status = STATUSES.has(row.status) ? (row.status as ToolApprovalStatus) : 'expired';
  return { ...row, status };
}

/** Where an approval stands. */
export type ApprovalStatus = 'pending' | 'approved' | 'denied' | 'expired';

/** A tool approval asked by a waiting turn, and its answer once given. */
export interface ApprovalRecord {
  session_id: string;
  /** The canonical tool use id; also the approval id the client answers by. */
  tool_use_id: string;
  tool_name: string;
  status: ApprovalStatus;
  /** The reason the client gave with its answer, if any. */
  reason: string | null;
}

/**
 * Approvals shared by every instance serving a session (decision 0177): the waiting turn
 * records its question and polls for the answer; the instance that receives the answer
 * (any of them) writes it. `@yourtool/store`'s `SqlApprovalStore` keeps them in the session
 * database; {@link MemoryApprovalStore} in one process.
 */
export interface ApprovalStore {
  /** Records a pending approval (again: stays as it is). */
  request(record: { session_id: string; tool_use_id: string; tool_name: string }): Promise<void>;
  /**
   * Answers a pending approval; resolves to the answered record, or null when none is pending
   * (unknown id, already answered, expired).
   */
  answer(
    sessionId: string,
    toolUseId: string,
    answer: { approved: boolean; reason?: string | null },
  ): Promise<ApprovalRecord | null>;
  /** One approval, or null. */
  get(sessionId: string, toolUseId: string): Promise<ApprovalRecord | null>;
  /** The session's pending approvals. */
  pending(sessionId: string): Promise<ApprovalRecord[]>;
  /** Marks a pending approval expired; false when it was not pending any more. */
  expire(sessionId: string, toolUseId: string): Promise<boolean>;
}

/** An {@link ApprovalStore} in memory: for one process (tests, a single server). */
export class MemoryApprovalStore implements ApprovalStore {
  readonly #records = new Map<string, ApprovalRecord>();

  async request(record: { session_id: string; tool_use_id: string; tool_name: string }) {
    const key = `${record.session_id}\u0000${record.tool_use_id}`;
    if (!this.#records.has(key))
      this.#records.set(key, { ...record, status: 'pending', reason: null });
  }

  async answer(
    sessionId: string,
    toolUseId: string,
    answer: { approved: boolean; reason?: string | null },
  ) {
    const record = this.#records.get(`${sessionId}\u0000${toolUseId}`);
    if (record?.status !== 'pending') return null;
    record.status = answer.approved ? 'approved' : 'denied';
    record.reason = answer.reason ?? null;
    return { ...record };
  }

  async get(sessionId: string, toolUseId: string) {
    const record = this.#records.get(`${sessionId}\u0000${toolUseId}`);
    return record ? { ...record } : null;
  }

  async pending(sessionId: string) {
    return [...this.#records.values()]
      .filter((r) => r.session_id === sessionId && r.status === 'pending')
      .map((r) => ({ ...r }));
  }

  async expire(sessionId: string, toolUseId: string) {
    const record = this.#records.get(`${sessionId}\u0000${toolUseId}`);
    if (record?.status !== 'pending') return false;
    record.status = 'expired';
    return true;
  }
}

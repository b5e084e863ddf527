import type { ConfirmationRequest } from '@yourtool/session';
import type { ApprovalStore } from './approval-store.js';
import { ApprovalDeadlineError } from './errors.js';

/** What {@link waitForApproval} needs besides the request. */
export interface ApprovalWait {
  approvals: ApprovalStore;
  deadlineMs: number;
  pollMs: number;
  /** Called once the approval is recorded (the client is told then). */
  onAsked: () => void;
  /** Called when the answer refuses the tool. */
  onDenied: () => void;
}

/**
 * Records an approval and polls the store for its answer: resolves true (approved) or false
 * (denied, or the turn ended while waiting); past the deadline marks it expired and throws
 * {@link ApprovalDeadlineError}, which the session stores as "not run".
 */
export async function waitForApproval(
  request: ConfirmationRequest,
  wait: ApprovalWait,
): Promise<boolean> {
  const { approvals } = wait;
  const { session_id: sessionId, tool_use_id: toolUseId, signal } = request;
  await approvals.request({
    session_id: sessionId,
    tool_use_id: toolUseId,
    tool_name: request.tool,
  });
  wait.onAsked();
  const deadline = Date.now() + wait.deadlineMs;
  for (;;) {
    const record = await approvals.get(sessionId, toolUseId);
    if (record?.status === 'approved') return true;
    if (record?.status === 'denied') {
      wait.onDenied();
      return false;
    }
    if (signal.aborted || Date.now() >= deadline) {
      // an answer written meanwhile wins: expire only what is still pending
      if (!(await approvals.expire(sessionId, toolUseId))) continue;
      if (signal.aborted) return false;
      throw new ApprovalDeadlineError(request.tool, wait.deadlineMs);
    }
    await pause(Math.min(wait.pollMs, Math.max(1, deadline - Date.now())), signal);
  }
}

/** Waits `ms`, or less when `signal` aborts. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

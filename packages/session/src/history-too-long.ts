import type { ContextLimit, RouteTraceEntry } from '@yourtool/core';
import { NoRouteError } from '@yourtool/router';

/** Whether the turn tried to leave older turns out before it was refused. */
export type HistoryRecoveryOutcome = 'off' | 'not_enough';

/**
 * A turn refused because the session's history (tool results already bounded) is too long for
 * every model that could take it, while older turns could be compacted or left out (decision
 * 0155). A {@link NoRouteError} with the same trace, so existing handlers still catch it; its
 * message ends with what to do, naming the `SessionManager` options that do it.
 */
export class HistoryTooLongError extends NoRouteError {
  /** The model whose context window the history overshoots (the first the router tried). */
  readonly model: string;
  /** That window, the history's estimate and the turn's output tokens. */
  readonly limit: ContextLimit;
  /** `off`: `historyRecovery` is off; `not_enough`: leaving out every older turn was not enough. */
  readonly recovery: HistoryRecoveryOutcome;

  constructor(
    trace: RouteTraceEntry[],
    target: { model: string } & ContextLimit,
    recovery: HistoryRecoveryOutcome,
  ) {
    super(trace, { code: 'history_too_long', headline: 'the history is too long for this turn' });
    const { model, ...limit } = target;
    this.model = model;
    this.limit = limit;
    this.recovery = recovery;
    this.message = `${this.message}. ${guidance(target, recovery)}`;
  }
}

function guidance(target: { model: string } & ContextLimit, recovery: HistoryRecoveryOutcome) {
  const size = `about ${target.estimated_input_tokens} input tokens for ${target.model}'s context window of ${target.context_window}`;
  const compact =
    'compact it with the SessionManager option compaction: summarizeOlderTurns({ model }) (a stored summary of the oldest turns) or compaction: dropOldestTurns() (a stored note in their place)';
  if (recovery === 'not_enough') {
    return `Even with every older turn left out it needs ${size}: swap to a model with a larger context window (swapModel, or send with { model }), or send a shorter message.`;
  }
  return `It needs ${size}. To go on, leave the oldest turns out of the request (the SessionManager option historyRecovery: 'leave_out_oldest_turns', createRuntime's default; nothing stored changes), ${compact}, or swap to a model with a larger context window (swapModel).`;
}

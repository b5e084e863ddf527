import type { FallbackAttempt } from '@yourtool/core';
import { type OverflowRetry, retryAfterOverflow } from './compaction-step.js';
import { pump } from './event-queue.js';
import type { SessionEvent } from './events.js';
import { fallbackEvent, findFallback } from './fallback.js';
import { retryLeavingOut, routeToFit } from './history-fit.js';
import { callModel } from './model-call.js';
import { runToolUse } from './tool-step.js';
import type { CallOutcome, RoutedStep, TurnState } from './turn-state.js';

/**
 * Routes the turn's next call on its history with tool results bounded; a history too long
 * for every model is compacted (the hook, stored), or its oldest turns left out of the request
 * (`historyRecovery`, in memory), once, or refused saying what to do (decision 0155). A
 * compaction's event waits in `state.pending`.
 */
export async function routeStep(state: TurnState): Promise<RoutedStep> {
  return routeToFit(state);
}

/** Yields the events a compaction left while routing. */
export function* flushPending(state: TurnState): Generator<SessionEvent, void> {
  yield* state.pending.splice(0);
}

/**
 * One step of the tool loop: one model call, then another after each failure worth one. A
 * failure another model could fix goes on with routing.yaml's fallback (docs/decisions/0095);
 * a context overflow with no fallback compacts and retries once. A replaced attempt stays
 * stored (status `error`) but leaves the conversation: the next model does not see it and
 * its tool uses are not run.
 */
export async function* runStep(state: TurnState): AsyncGenerator<SessionEvent, CallOutcome> {
  let routed = state.firstRoute ?? (await routeStep(state));
  state.firstRoute = null;
  yield* flushPending(state);
  const failures: FallbackAttempt[] = [];
  let overflowCompacted = false;
  for (;;) {
    const { decision } = routed;
    yield {
      type: 'session.routed',
      step: state.steps,
      model: decision.model,
      decision: decision.record,
      trace: decision.trace,
    };
    state.telemetry?.routed(decision);
    // the call is tracked on the turn, so that a turn left early can end it; pulled here rather
    // than through a generator of its own, one layer fewer for every event of the stream
    const call = callModel({ turn: state, decision });
    state.call = call;
    let pulled = await call.next();
    while (!pulled.done) {
      yield pulled.value;
      pulled = await call.next();
    }
    state.call = null;
    const outcome = pulled.value;
    const fallback = findFallback(state, routed, failures, outcome.error);
    // a context overflow no fallback takes: compact and retry, once per step
    const overflow =
      !fallback && outcome.error?.error_class === 'context_overflow' ? outcome.error : null;
    const again: OverflowRetry | null =
      overflow && !overflowCompacted
        ? await afterOverflow(state, routed, failures, overflow)
        : null;
    overflowCompacted ||= again !== null;
    if (outcome.message) {
      if (fallback || again?.retry) state.log.keepReplaced(outcome.message);
      else state.log.keepReply(outcome.message);
      yield { type: 'session.assistant_message', step: state.steps, message: outcome.message };
    }
    if (again?.compacted) yield again.compacted;
    if (again?.retry) {
      routed = again.retry;
      continue;
    }
    if (!fallback || !outcome.error) return outcome;
    failures.push(fallback.attempt);
    state.telemetry?.fallback(decision, fallback.routed.decision, outcome.error);
    const discarded_message_id = outcome.message?.id ?? null;
    yield fallbackEvent(state, decision, fallback.routed.decision, {
      error: outcome.error,
      discarded_message_id,
    });
    routed = fallback.routed;
  }
}

/**
 * What a context overflow no fallback takes leads to: the compaction hook's retry when one is
 * set, else (with `historyRecovery`) a retry with the oldest turns left out, else nothing.
 */
async function afterOverflow(
  state: TurnState,
  routed: RoutedStep,
  failures: FallbackAttempt[],
  overflow: { message: string },
): Promise<OverflowRetry | null> {
  const { compaction, historyRecovery } = state.manager.settings;
  if (compaction) return retryAfterOverflow(state, routed, failures, overflow);
  if (historyRecovery === 'off') return null;
  const retry = await retryLeavingOut(state, routed, failures, overflow);
  return retry ? { retry, compacted: null } : null;
}

/**
 * Runs the tool uses the step's reply left unanswered, in order, storing each result. After a
 * cancel the remaining ones are answered without running (the tool step checks the signal).
 */
export async function* runToolUses(state: TurnState): AsyncGenerator<SessionEvent, void> {
  const { log } = state;
  for (const use of [...log.unanswered.values()]) {
    const span =
      state.telemetry?.startTool(use, state.manager.settings.tools.get(use.name), log.toolIdMap) ??
      null;
    const result = yield* pump(runToolUse(state, use, span), state.queue);
    if (span) state.telemetry?.endTool(span, result.outcome, result.message);
    await log.keepToolResult(use, result.message);
    yield {
      type: 'session.tool_result',
      step: state.steps,
      message: result.message,
      tool_name: use.name,
      is_error: result.is_error,
    };
  }
}

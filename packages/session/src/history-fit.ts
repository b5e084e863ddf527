import {
  type ContextLimit,
  createMessage,
  type FallbackAttempt,
  type Message,
} from '@yourtool/core';
import { NoRouteError, StrictRuleError } from '@yourtool/router';
import { boundedRouteInput } from './bound-targets.js';
import {
  CompactionError,
  type CompactionReason,
  type CompactionRecord,
  compactionOf,
  dropOldestTurns,
} from './compaction.js';
import {
  type CompactingTurn,
  compactHistory,
  compactionRequest,
  contextLimitedTarget,
  cutIndex,
} from './compaction-step.js';
import { errorText } from './errors.js';
import type { SessionEvent } from './events.js';
import { type HistoryRecoveryOutcome, HistoryTooLongError } from './history-too-long.js';
import { rememberCut, reuseLastCut } from './remembered-cuts.js';
import { type RoutedStep, turnStart } from './turn-state.js';

/**
 * What fitting the history to a model reads of the turn: what a compaction reads, and where
 * the events of a compaction made while routing wait to be yielded.
 */
export interface FittingTurn extends CompactingTurn {
  readonly pending: SessionEvent[];
}

/** A model and the window its history overshoots. */
type Target = { model: string } & ContextLimit;

/**
 * Routes the turn's next call on its history with tool results bounded (decision 0155): first
 * each result held to its one-result limit; when a context window alone refuses that, held to
 * that model's share of its window too. When it is still too long: the compaction hook (stored
 * summary, decision 0101) when one is set, else `historyRecovery` (the oldest turns left out of
 * the request, in memory), else {@link HistoryTooLongError} saying what to do.
 */
export async function routeToFit(state: FittingTurn): Promise<RoutedStep> {
  const { router } = state.manager.settings;
  let input = boundedRouteInput(state, null);
  let refused: unknown;
  try {
    return { input, decision: router.route(input) };
  } catch (error) {
    refused = error;
  }
  let target = contextLimitedTarget(refused);
  if (!target) throw refused;
  input = boundedRouteInput(state, target.model);
  try {
    return { input, decision: router.route(input) };
  } catch (error) {
    refused = error;
  }
  target = contextLimitedTarget(refused);
  if (!target) throw refused;
  return makeRoom(state, refused, target);
}

/** Compacts, or leaves out the oldest turns, and routes again; else throws what to do. */
async function makeRoom(state: FittingTurn, refused: unknown, target: Target): Promise<RoutedStep> {
  const { compaction, historyRecovery, router } = state.manager.settings;
  // whether anything before the turn's message could be left out (before any is)
  const older = state.history.slice(0, Math.max(0, turnStart(state))).some((m) => !compactionOf(m));
  if (compaction) {
    const done = await compactHistory(state, 'context_window', target);
    if (!done) throw refused;
    state.pending.push(done.event);
  } else if (historyRecovery === 'off') {
    throw tooLong(older, refused, target, 'off');
  } else {
    // the same messages as the last turn left out, while that still fits
    const reused = reuseLastCut(state, target.model);
    if (reused) return reused;
    if (!(await leaveOutOldestTurns(state, 'context_window', target))) {
      throw tooLong(older, refused, target, 'not_enough');
    }
  }
  const input = boundedRouteInput(state, target.model);
  try {
    return { input, decision: router.route(input) };
  } catch (error) {
    const again = compaction ? null : contextLimitedTarget(error);
    throw again ? tooLong(older, error, again, 'not_enough') : error;
  }
}

/**
 * The refusal with what to do (a {@link HistoryTooLongError}) when `older` turns could make
 * room: the router's own error when nothing before the turn's message could be left out (the
 * message alone is too long) or a strict rule refused the turn.
 */
function tooLong(
  older: boolean,
  refused: unknown,
  target: Target,
  recovery: HistoryRecoveryOutcome,
): unknown {
  if (!older || !(refused instanceof NoRouteError) || refused instanceof StrictRuleError) {
    return refused;
  }
  return new HistoryTooLongError(refused.trace, target, recovery);
}

/**
 * Leaves the oldest whole turns out of the turn's history, in memory (decision 0155): the cut
 * `dropOldestTurns()` plans for `target`, its note (how many messages were left out) as an
 * unstored system message in their place. Nothing is stored, changed or called; a
 * `history_turns_left_out` WARN says how many turns and messages. False when no cut fits.
 */
export async function leaveOutOldestTurns(
  state: FittingTurn,
  reason: CompactionReason,
  target: Target,
): Promise<boolean> {
  const request = compactionRequest(state, reason, target, () =>
    Promise.reject(new CompactionError('leaving turns out of a request calls no model')),
  );
  const result = await dropOldestTurns()(request);
  if (!result) return false;
  const { history } = state;
  const at = cutIndex(history, result, request.turn_start);
  const left = history.slice(0, at + 1).filter((m) => !compactionOf(m));
  const kept = history.slice(at + 1);
  const cutAt = history[at] as Message;
  const note = createMessage({
    session_id: state.inputs.session.id,
    role: 'system',
    content: [{ type: 'text', text: result.summary }],
    metadata: { status: 'complete' },
  });
  const record: CompactionRecord = {
    through_message_id: compactionOf(cutAt)?.through_message_id ?? cutAt.id,
    strategy: 'leave_out_oldest_turns',
    replaced_messages: left.length,
    reason,
    target_model: target.model,
    tokens_before: request.estimateTokens(history),
    tokens_after: request.estimateTokens([note, ...kept]),
  };
  // never stored: the record lets a second cut carry the note forward, and the next turns
  // leave out the same messages while that fits
  const placed = { ...note, metadata: { ...note.metadata, compaction: record } };
  history.splice(0, history.length, placed, ...kept);
  rememberCut(state, cutAt.id, placed);
  const turns = left.filter((m) => m.role === 'user').length;
  state.manager.settings.logger.warn(
    {
      event: 'history_turns_left_out',
      session_id: state.inputs.session.id,
      model: target.model,
      reason,
      turns,
      messages: left.length,
      context_window: target.context_window,
      tokens_before: record.tokens_before,
      tokens_after: record.tokens_after,
    },
    `left the oldest ${turns} turns (${left.length} messages) out of the request to fit ${target.model}'s context window of ${target.context_window} tokens; nothing stored changed (compaction: summarizeOlderTurns({ model }) would keep a summary of them)`,
  );
  return true;
}

/**
 * After a context overflow that no fallback takes, without a compaction hook but with
 * `historyRecovery`: leaves the oldest turns out (aiming lower, the estimate undercounted) and
 * routes again, once per step; the retry's record names the overflowed attempt in
 * `fallback_from`. Null when nothing can be left out or nothing takes the shorter history.
 */
export async function retryLeavingOut(
  state: FittingTurn,
  routed: RoutedStep,
  failures: FallbackAttempt[],
  overflow: { message: string },
): Promise<RoutedStep | null> {
  const { decision } = routed;
  const { router, maxOutputTokens, logger } = state.manager.settings;
  const left =
    !state.signal.aborted &&
    (await leaveOutOldestTurns(state, 'context_overflow', {
      model: decision.model,
      context_window: decision.capabilities.max_context_tokens,
      estimated_input_tokens: decision.estimated_input_tokens,
      max_output_tokens: maxOutputTokens,
    }));
  if (!left) return null;
  try {
    const input = boundedRouteInput(state, decision.model);
    const again = router.route(input);
    failures.push({
      model: decision.model,
      error_class: 'context_overflow',
      reason: overflow.message,
    });
    return {
      input,
      decision: { ...again, record: { ...again.record, fallback_from: [...failures] } },
    };
  } catch (refused) {
    logger.warn(
      {
        event: 'no_route_after_leaving_out',
        session_id: state.inputs.session.id,
        reason: errorText(refused),
      },
      'the shorter history found no model; the context overflow stands',
    );
    return null;
  }
}

/**
 * `router.fallback()` on the step's input; when a fallback's context window alone refuses it,
 * again with the tool results held to that model's share of its window (a smaller window gets
 * its own projection, decision 0155). Throws the router's refusal otherwise.
 */
export function fallbackToFit(
  state: FittingTurn,
  routed: RoutedStep,
  failures: readonly FallbackAttempt[],
): RoutedStep {
  const { router } = state.manager.settings;
  try {
    return {
      input: routed.input,
      decision: router.fallback(routed.input, routed.decision, failures),
    };
  } catch (refused) {
    const target = contextLimitedTarget(refused);
    if (!target) throw refused;
    const input = boundedRouteInput(state, target.model);
    return { input, decision: router.fallback(input, routed.decision, failures) };
  }
}

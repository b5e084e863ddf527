import type { AdapterError, ErrorClass, FallbackAttempt } from '@yourtool/core';
import type { RouteDecision } from '@yourtool/router';
import { errorText } from './errors.js';
import type { SessionEvent } from './events.js';
import { type FittingTurn, fallbackToFit } from './history-fit.js';
import type { RoutedStep } from './turn-state.js';

/** What a fallback reads of the turn: what fitting reads, and the step it happens in. */
export interface FallbackTurn extends FittingTurn {
  readonly steps: number;
}

/**
 * The error classes a turn falls back on (to the next model of routing.yaml's `fallbacks:`):
 * the retryable ones, once the adapter's own retries are spent, a context overflow, and auth
 * (one provider's key revoked or out of credit; the fallback is usually another provider).
 * Not invalid_request, cancelled or other: another model would not fix those.
 */
export const FALLBACK_ERROR_CLASSES: ReadonlySet<ErrorClass> = new Set<ErrorClass>([
  'auth',
  'rate_limit',
  'server_error',
  'network',
  'context_overflow',
]);

/** The model a failed call goes on with, and the attempt its routing record will name. */
export interface Fallback {
  routed: RoutedStep;
  attempt: FallbackAttempt;
}

/**
 * The model to try after `routed.decision` failed with `error`, or null: no error, an error
 * class no other model would fix, a cancelled turn, or no fallback configured or passing (the
 * router's `NoRouteError`, logged; the caller then ends the turn with the original error).
 * `failures` are the attempts of this step that failed before.
 */
export function findFallback(
  state: FallbackTurn,
  routed: RoutedStep,
  failures: readonly FallbackAttempt[],
  error: AdapterError | null,
): Fallback | null {
  if (!error || state.signal.aborted || !FALLBACK_ERROR_CLASSES.has(error.error_class)) {
    return null;
  }
  const { decision, input } = routed;
  const attempt: FallbackAttempt = {
    model: decision.model,
    error_class: error.error_class,
    reason: error.message,
  };
  try {
    return { routed: fallbackToFit(state, routed, [...failures, attempt]), attempt };
  } catch (refused) {
    state.manager.settings.logger.info?.(
      {
        event: 'no_fallback',
        session_id: input.session_id ?? null,
        model: decision.model,
        error_class: error.error_class,
        reason: errorText(refused),
      },
      `no fallback after ${decision.model} failed (${error.error_class})`,
    );
    return null;
  }
}

/**
 * The event telling a UI to discard what it showed of the failed reply: the turn goes on with
 * `to`, and the failed attempt's row (status `error`) is no longer part of the conversation.
 */
export function fallbackEvent(
  state: Pick<FallbackTurn, 'steps'>,
  from: RouteDecision,
  to: RouteDecision,
  failed: { error: AdapterError; discarded_message_id: string | null },
): SessionEvent {
  return {
    type: 'session.fallback',
    step: state.steps,
    from: from.model,
    to: to.model,
    error_class: failed.error.error_class,
    reason: failed.error.message,
    discarded_message_id: failed.discarded_message_id,
  };
}

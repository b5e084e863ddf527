import {
  type EventBus,
  nowTimestamp,
  type RouteTraceEntry,
  type RoutingConstraintFailureEvent,
  type RoutingConstraintFailureKind,
} from '@yourtool/core';
import {
  ChoiceUnavailableError,
  NoRouteError,
  SwapRefusedError,
  UnknownModelError,
} from './errors.js';

/** The reasons the rejected candidates of a trace give, each naming its model. */
function rejections(trace: readonly RouteTraceEntry[]): string[] {
  return trace.filter((t) => t.model !== null && !t.accepted).map((t) => `${t.model}: ${t.reason}`);
}

/**
 * The `routing_constraint_failure` event for an error the router throws, or null when the error
 * is no refusal: an unknown name ({@link UnknownModelError}) is a mistake of the caller, and a
 * configuration error is not about the turn.
 */
export function routingConstraintFailure(
  error: unknown,
  kind: RoutingConstraintFailureKind,
  sessionId: string | null,
): RoutingConstraintFailureEvent | null {
  const base = { type: 'routing_constraint_failure', session_id: sessionId, kind } as const;
  if (error instanceof SwapRefusedError) {
    return {
      ...base,
      requested_model: error.model,
      code: error.code,
      reasons: [...error.reasons],
      message: error.message,
      trace: [],
      timestamp: nowTimestamp(),
    };
  }
  if (error instanceof ChoiceUnavailableError && !(error instanceof UnknownModelError)) {
    return {
      ...base,
      requested_model: error.choice,
      code: error.code,
      reasons: [error.reason],
      message: error.message,
      trace: [...error.trace],
      timestamp: nowTimestamp(),
    };
  }
  if (error instanceof NoRouteError) {
    return {
      ...base,
      requested_model: null,
      code: error.code,
      reasons: rejections(error.trace),
      message: error.message,
      trace: [...error.trace],
      timestamp: nowTimestamp(),
    };
  }
  return null;
}

/**
 * Runs `fn`; a refusal it throws (a swap the history cannot survive, a turn no model may
 * take) is emitted on `bus` as `routing_constraint_failure` before it propagates.
 */
export function reportingRefusal<T>(
  bus: EventBus | undefined,
  kind: RoutingConstraintFailureKind,
  sessionId: string | null,
  fn: () => T,
): T {
  try {
    return fn();
  } catch (error) {
    const event = routingConstraintFailure(error, kind, sessionId);
    if (event) bus?.emit(event);
    throw error;
  }
}

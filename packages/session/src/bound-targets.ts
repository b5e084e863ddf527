import type { Message } from '@yourtool/core';
import { estimateRequestTokens } from '@yourtool/core/adapter';
import type { RouteDecision, RouteInput, Router } from '@yourtool/router';
import {
  type BoundTarget,
  boundToolResults,
  type ResolvedToolResultLimits,
} from './tool-result-bound.js';
import { type RoutingTurn, routeInputOf } from './turn-state.js';
import type { ManagerSettings } from './validate-options.js';

/**
 * The target of routing's first pass (decision 0155): no model chosen yet, so each result is
 * held to its one-result limit by core's token heuristic, and no share of a window applies.
 */
export const ROUTING_TARGET: BoundTarget = {
  model: 'any model',
  estimator: estimateRequestTokens,
  estimate: (messages: readonly Message[]) => estimateRequestTokens(messages),
  context_window: null,
};

/** A configured model as a bound target: its adapter's estimate and its context window. */
export function boundTargetOf(router: Router, model: string): BoundTarget {
  const id = router.registry.resolve(model);
  const adapter = router.registry.adapterFor(id);
  return {
    model: id,
    estimator: adapter,
    estimate: (messages) => adapter.estimateInputTokens(messages, [], null),
    context_window: router.registry.capabilitiesFor(id).max_context_tokens,
  };
}

/** The model a routing decision chose, as a bound target. */
export function decisionTarget(decision: RouteDecision): BoundTarget {
  const { adapter } = decision;
  return {
    model: decision.model,
    estimator: adapter,
    estimate: (messages) => adapter.estimateInputTokens(messages, [], null),
    context_window: decision.capabilities.max_context_tokens,
  };
}

/**
 * The manager's tool-result limits with each registered tool's own `max_result_tokens` (the
 * manager's `toolResults.perTool` wins over it).
 */
export function toolResultLimits(settings: ManagerSettings): ResolvedToolResultLimits {
  const own: Record<string, number> = {};
  for (const definition of settings.tools.definitions()) {
    const limit = settings.tools.get(definition.name)?.max_result_tokens;
    if (limit !== undefined) own[definition.name] = limit;
  }
  const { toolResults } = settings;
  return { ...toolResults, perTool: { ...own, ...toolResults.perTool } };
}

/**
 * The route input of the turn's next call, its tool results bounded for `model` (its
 * estimate, its window's share), or for routing's first pass when `model` is null.
 */
export function boundedRouteInput(state: RoutingTurn, model: string | null): RouteInput {
  const input = routeInputOf(state);
  const { settings } = state.manager;
  const target = model ? boundTargetOf(settings.router, model) : ROUTING_TARGET;
  const limits = toolResultLimits(settings);
  return { ...input, messages: boundToolResults(input.messages, limits, target, null) };
}

/**
 * The messages a call to `decision`'s model sends: the turn's history with its tool results
 * bounded for that model, each cut reported (`tool_result_truncated`). The history and the
 * store keep every result whole.
 */
export function requestMessages(state: RoutingTurn, decision: RouteDecision): Message[] {
  const { settings } = state.manager;
  return boundToolResults(state.history, toolResultLimits(settings), decisionTarget(decision), {
    logger: settings.logger,
    session_id: state.inputs.session.id,
  });
}

/**
 * The history a `/model` swap to `model` is checked with: its tool results bounded as that
 * model would receive them (by routing's first pass when `model` names no configured model;
 * the router's check then says why).
 */
export function swapMessages(
  settings: ManagerSettings,
  messages: readonly Message[],
  model: string,
): Message[] {
  let target = ROUTING_TARGET;
  try {
    target = boundTargetOf(settings.router, model);
  } catch {
    // an unknown or unconfigured name: checkSwap refuses it with its own error
  }
  return boundToolResults(messages, toolResultLimits(settings), target, null);
}

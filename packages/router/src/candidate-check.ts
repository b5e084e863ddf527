import type {
  AdapterCapabilities,
  ContextLimit,
  ProviderAdapter,
  RouteTraceEntry,
  RoutingPolicy,
} from '@yourtool/core';
import { UnknownModelError } from './errors.js';
import { capabilityProblems } from './requirements.js';
import type { RouterContext, TurnFacts } from './router-context.js';

/** Why a model is refused while its adapter has not learnt its capabilities. */
export const CAPABILITIES_NOT_DETECTED =
  'capabilities not detected yet (call router.prepare() before routing)';

/** A model a step of the chain offers, by the name it was given. */
export interface Candidate {
  policy: RoutingPolicy;
  name: string;
  reason: string;
  rule_name?: string;
  confidence?: number;
}

/** A candidate that passed every check. */
export interface Accepted {
  ok: true;
  model: string;
  adapter: ProviderAdapter;
  caps: AdapterCapabilities;
  estimate: number;
  reason: string;
  context_limited?: undefined;
}

/** A candidate refused, with why. */
export interface Refused {
  ok: false;
  model: string | null;
  reason: string;
  /** Close matches, when the name did not resolve. */
  suggestions?: string[];
  /** The name did not resolve at all. */
  unknown?: boolean;
  /** Set when the context window alone rejected the model. */
  context_limited?: ContextLimit;
  adapter?: undefined;
  caps?: undefined;
  estimate: number;
}

/** What checking one candidate found. */
export type Verdict = Accepted | Refused;

/** Why a model whose capabilities are unknown is refused: the failed detection, when one failed. */
export function notDetected(context: RouterContext, id: string): string {
  const failure = context.detectionFailures.get(id);
  if (!failure) return CAPABILITIES_NOT_DETECTED;
  return `capabilities could not be detected: ${failure.message} (router.prepare() at ${failure.at}; tried again on the next prepare)`;
}

/**
 * `verdict`, refused when it accepted a model a strict rule does not allow (`allowed` are the
 * rule's canonical ids).
 */
export function withinStrictRule(
  verdict: Verdict,
  ruleName: string,
  allowed: ReadonlySet<string>,
): Verdict {
  if (!verdict.ok || allowed.has(verdict.model)) return verdict;
  return {
    ok: false,
    model: verdict.model,
    reason: `strict rule "${ruleName}" matched and allows only ${[...allowed].join(', ') || 'no configured model'}`,
    estimate: verdict.estimate,
  };
}

/**
 * Checks a candidate against the registry (known? configured?), availability, whether its
 * capabilities are known, and its capabilities for this turn's history and request.
 */
export function checkCandidate(
  context: RouterContext,
  candidate: Candidate,
  turn: TurnFacts,
): Verdict {
  let id: string;
  try {
    id = context.registry.resolve(candidate.name);
  } catch (error) {
    if (error instanceof UnknownModelError) {
      return {
        ok: false,
        model: candidate.name,
        reason: error.message,
        suggestions: error.suggestions,
        unknown: true,
        estimate: 0,
      };
    }
    return { ok: false, model: candidate.name, reason: String(error), estimate: 0 };
  }
  const registered = context.registry.get(id);
  if (registered.status === 'not_configured') {
    return {
      ok: false,
      model: id,
      reason: `not configured: ${registered.not_configured_reason}`,
      estimate: 0,
    };
  }
  const verdict = context.availability?.check(id);
  if (verdict && !verdict.ok)
    return { ok: false, model: id, reason: verdict.reason ?? 'unavailable', estimate: 0 };
  const adapter = context.registry.adapterFor(id);
  if (adapter.capabilitiesDetected?.(id) === false) {
    return { ok: false, model: id, reason: notDetected(context, id), estimate: 0 };
  }
  const caps = context.registry.capabilitiesFor(id);
  const estimate = turn.estimate(adapter);
  const problems = capabilityProblems(caps, turn.needs, estimate);
  if (problems.length > 0) {
    // Only the window in the way (the same check passes with an empty history's estimate)?
    const contextOnly = capabilityProblems(caps, turn.needs, 0).length === 0;
    return {
      ok: false,
      model: id,
      reason: problems.join('; '),
      estimate,
      ...(contextOnly
        ? {
            context_limited: {
              context_window: caps.max_context_tokens,
              estimated_input_tokens: estimate,
              max_output_tokens: turn.needs.maxOutputTokens,
            },
          }
        : {}),
    };
  }
  return { ok: true, model: id, adapter, caps, estimate, reason: candidate.reason };
}

/** The trace entry for a checked candidate; `accepted` says why it was taken, if it was. */
export function traceEntry(
  policy: RoutingPolicy,
  verdict: Verdict,
  accepted: string,
): RouteTraceEntry {
  return {
    policy,
    model: verdict.model,
    accepted: verdict.ok,
    reason: verdict.ok ? accepted : verdict.reason,
    ...(verdict.context_limited ? { context_limited: verdict.context_limited } : {}),
  };
}

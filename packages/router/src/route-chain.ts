import type { RouteTraceEntry, RoutingPolicy } from '@yourtool/core';
import {
  type Candidate,
  checkCandidate,
  type Refused,
  traceEntry,
  withinStrictRule,
} from './candidate-check.js';
import { chainSteps } from './chain-steps.js';
import { decide } from './decision.js';
import {
  ChoiceUnavailableError,
  type ExplicitChoicePolicy,
  NoRouteError,
  StrictRuleError,
  UnknownModelError,
} from './errors.js';
import type { RouteDecision, RouteInput } from './route-types.js';
import { type RouterContext, turnFacts } from './router-context.js';
import type { RoutingRule } from './routing-config.js';
import { ruleModelIds } from './rule-candidates.js';
import { matchingRules } from './rule-match.js';

const isExplicit = (policy: RoutingPolicy): policy is ExplicitChoicePolicy =>
  policy === 'PER_MESSAGE_OVERRIDE' || policy === 'MANUAL_STICKY';

/** An explicit choice that was refused, and the trace up to it. */
interface RefusedChoice {
  candidate: Candidate;
  /** The candidate's policy, narrowed to an explicit choice's. */
  policy: ExplicitChoicePolicy;
  verdict: Refused;
  trace: RouteTraceEntry[];
}

/** The error for an explicit choice that cannot be honoured, logged as `choice_unavailable`. */
function choiceUnavailable(
  context: RouterContext,
  input: RouteInput,
  refused: RefusedChoice,
): ChoiceUnavailableError {
  const { candidate, policy, verdict, trace } = refused;
  const error = verdict.unknown
    ? new UnknownModelError(candidate.name, verdict.suggestions ?? [], {
        policy,
        trace,
      })
    : new ChoiceUnavailableError({
        choice: candidate.name,
        policy,
        reason: verdict.reason,
        suggestions: verdict.suggestions ?? [],
        trace,
      });
  context.logger.warn(
    {
      event: 'choice_unavailable',
      session_id: input.session_id ?? null,
      choice: candidate.name,
      policy,
      reason: verdict.reason,
    },
    error.message,
  );
  return error;
}

/** The error for a strict rule none of whose models can take the turn, logged. */
function strictRuleRefused(
  context: RouterContext,
  input: RouteInput,
  governing: RoutingRule,
  trace: RouteTraceEntry[],
): StrictRuleError {
  context.logger.warn(
    {
      event: 'strict_rule_refused',
      session_id: input.session_id ?? null,
      rule: governing.name,
      trace,
    },
    `strict rule ${governing.name} has no model that can take this turn`,
  );
  return new StrictRuleError(governing.name, trace);
}

/**
 * Routes one turn down the chain: the first candidate that passes its checks wins. Throws
 * {@link ChoiceUnavailableError} when an explicit choice cannot be honoured and the turn does
 * not fall through, {@link StrictRuleError} when a matching strict rule has no model that can
 * take the turn, {@link NoRouteError} when no candidate passes.
 */
export function routeTurn(context: RouterContext, input: RouteInput): RouteDecision {
  const turn = turnFacts(context, input);
  const trace: RouteTraceEntry[] = [];
  const explicitStrict = input.fallthrough !== true && context.explicitChoices === 'strict';
  const matched = matchingRules(context, turn);
  const governing = matched.find((rule) => rule.strict);
  const allowed = governing ? ruleModelIds(context.registry, governing) : null;
  for (const step of chainSteps(context, turn, matched, governing)) {
    if (step.candidates.length === 0) {
      trace.push({
        policy: step.policy,
        model: null,
        accepted: false,
        reason: step.none ?? 'no candidate',
      });
    }
    for (const candidate of step.candidates) {
      let verdict = checkCandidate(context, candidate, turn);
      if (governing && allowed && isExplicit(candidate.policy)) {
        verdict = withinStrictRule(verdict, governing.name, allowed);
      }
      trace.push(traceEntry(candidate.policy, verdict, candidate.reason));
      if (verdict.ok) return decide(context, { input, candidate, verdict, trace });
      if (isExplicit(candidate.policy) && explicitStrict) {
        throw choiceUnavailable(context, input, {
          candidate,
          policy: candidate.policy,
          verdict,
          trace,
        });
      }
    }
    if (step.policy === 'RULE' && governing) {
      // the privacy switch: a strict rule never lets a later step take its turn
      throw strictRuleRefused(context, input, governing, trace);
    }
  }
  context.logger.warn(
    { event: 'no_route', session_id: input.session_id ?? null, trace },
    'no model can take this turn',
  );
  throw new NoRouteError(trace);
}

import {
  nowTimestamp,
  type RouteTraceEntry,
  type RoutingDecisionRecord,
  routingModeForPolicy,
} from '@yourtool/core';
import type { Accepted, Candidate } from './candidate-check.js';
import type { RouteDecision, RouteInput } from './route-types.js';
import type { RouterContext } from './router-context.js';

/** A candidate that passed, with the trace that led to it. */
export interface Choice {
  input: RouteInput;
  candidate: Candidate;
  verdict: Accepted;
  trace: RouteTraceEntry[];
  /** Fields of the record that differ from the candidate's (a fallback keeps the first choice's). */
  overrides?: Partial<RoutingDecisionRecord>;
}

/** Builds, emits (`route.decided`) and returns the decision for a candidate that passed. */
export function decide(context: RouterContext, choice: Choice): RouteDecision {
  const { input, candidate, verdict, trace, overrides = {} } = choice;
  const probe = context.availability?.check(verdict.model).probe ?? false;
  context.availability?.routed(verdict.model);
  const alternatives = [
    ...new Set(trace.filter((t) => !t.accepted && t.model !== null).map((t) => t.model as string)),
  ];
  const record: RoutingDecisionRecord = {
    mode: routingModeForPolicy(candidate.policy),
    chosen_model: verdict.model,
    reason: candidate.reason,
    rule_name: candidate.rule_name ?? null,
    confidence: candidate.confidence ?? null,
    alternatives_considered: alternatives,
    ...overrides,
  };
  context.bus?.emit({
    type: 'route.decided',
    session_id: input.session_id ?? null,
    decision: record,
    policy: candidate.policy,
    trace,
    timestamp: nowTimestamp(),
  });
  return {
    model: verdict.model,
    adapter: verdict.adapter,
    capabilities: verdict.caps,
    policy: candidate.policy,
    record,
    trace,
    estimated_input_tokens: verdict.estimate,
    probe,
  };
}

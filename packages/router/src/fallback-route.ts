import type { FallbackAttempt, RouteTraceEntry } from '@yourtool/core';
import { type Candidate, checkCandidate, traceEntry, withinStrictRule } from './candidate-check.js';
import { decide } from './decision.js';
import { NoRouteError, StrictRuleError } from './errors.js';
import type { RouteDecision, RouteInput } from './route-types.js';
import { type RouterContext, type TurnFacts, turnFacts } from './router-context.js';
import type { RoutingConfig, RoutingRule } from './routing-config.js';
import { ruleModelIds } from './rule-candidates.js';
import { matchingRules } from './rule-match.js';

/** The fallbacks to try, where they come from, and the strict rule that owns them, if any. */
interface FallbackList {
  names: string[];
  /** What has no fallbacks left, for the trace: a rule or the failed model. */
  source: string;
  strictRule?: RoutingRule;
}

/** What a fallback search tries, and what limits it. */
interface FallbackPlan extends FallbackList {
  /** Only these canonical ids may take the turn (a strict rule governs it), or any. */
  allowed: Set<string> | null;
  /** Canonical ids (or names that do not resolve) of the models that failed in this turn. */
  failed: Set<string>;
  /** The canonical id of a name, or null when it does not resolve. */
  canonical: (name: string) => string | null;
}

/**
 * The rule's `fallbacks` when `previous` came from a rule that has them (a strict rule's even
 * when empty), otherwise the `fallbacks:` of every model tried in this turn, in order.
 */
function fallbackList(
  config: RoutingConfig,
  previous: RouteDecision,
  failures: readonly FallbackAttempt[],
  canonical: (name: string) => string | null,
): FallbackList {
  const fromRule =
    previous.policy === 'RULE' && previous.record.rule_name
      ? config.rules.find((r) => r.name === previous.record.rule_name)
      : undefined;
  if (fromRule?.strict) {
    return {
      names: [...(fromRule.fallbacks ?? [])],
      source: `rule ${fromRule.name}`,
      strictRule: fromRule,
    };
  }
  if (fromRule?.fallbacks && fromRule.fallbacks.length > 0) {
    return { names: [...fromRule.fallbacks], source: `rule ${fromRule.name}` };
  }
  const tried = [...failures.map((f) => canonical(f.model) ?? f.model), previous.model];
  const names: string[] = [];
  for (const model of [...new Set(tried)]) {
    for (const [key, list] of Object.entries(config.fallbacks)) {
      if (canonical(key) === model) names.push(...list);
    }
  }
  return { names, source: previous.model };
}

/** The fallback search of a turn: its candidates, the failed models, a governing strict rule. */
function planFallback(
  context: RouterContext,
  turn: TurnFacts,
  previous: RouteDecision,
  failures: readonly FallbackAttempt[],
): FallbackPlan {
  const canonical = (name: string): string | null => {
    try {
      return context.registry.resolve(name);
    } catch {
      return null;
    }
  };
  const failed = new Set<string>([previous.model]);
  for (const f of failures) failed.add(canonical(f.model) ?? f.model);
  const governing = matchingRules(context, turn).find((r) => r.strict);
  const list = fallbackList(turn.config, previous, failures, canonical);
  if (!list.strictRule && governing) {
    return {
      ...list,
      strictRule: governing,
      allowed: ruleModelIds(context.registry, governing),
      failed,
      canonical,
    };
  }
  return { ...list, allowed: null, failed, canonical };
}

/**
 * Re-routes a turn whose model failed (decision 0090): the planned fallbacks not failed yet,
 * deduplicated, each checked as routing checks a candidate; the decision keeps `previous`'s
 * policy, mode and rule and carries `fallback_from: failures`. Throws {@link NoRouteError}
 * (a {@link StrictRuleError} under a strict rule) when none passes or none is configured.
 */
export function fallbackTurn(
  context: RouterContext,
  input: RouteInput,
  previous: RouteDecision,
  failures: readonly FallbackAttempt[],
): RouteDecision {
  const turn = turnFacts(context, input);
  const policy = previous.policy;
  const trace: RouteTraceEntry[] = failures.map((f) => ({
    policy,
    model: f.model,
    accepted: false,
    reason: `failed (${f.error_class}): ${f.reason}`,
  }));
  const plan = planFallback(context, turn, previous, failures);
  const last = failures[failures.length - 1];
  const reason = last
    ? `fallback after ${last.model} failed (${last.error_class})`
    : `fallback after ${previous.model} failed`;
  const seen = new Set<string>();
  let offered = 0;
  for (const name of plan.names) {
    const id = plan.canonical(name);
    if (id !== null && (plan.failed.has(id) || seen.has(id))) continue;
    if (id !== null) seen.add(id);
    offered++;
    const candidate: Candidate = {
      policy,
      name,
      reason,
      ...(previous.record.rule_name ? { rule_name: previous.record.rule_name } : {}),
    };
    let verdict = checkCandidate(context, candidate, turn);
    if (plan.allowed && plan.strictRule) {
      verdict = withinStrictRule(verdict, plan.strictRule.name, plan.allowed);
    }
    trace.push(traceEntry(policy, verdict, reason));
    if (verdict.ok) {
      const overrides = {
        mode: previous.record.mode,
        confidence: previous.record.confidence ?? null,
        fallback_from: failures.map((f) => ({ ...f })),
      };
      return decide(context, { input, candidate, verdict, trace, overrides });
    }
  }
  if (offered === 0) {
    trace.push({
      policy,
      model: null,
      accepted: false,
      reason: `no fallbacks left for ${plan.source}`,
    });
  }
  context.logger.warn(
    { event: 'no_fallback', session_id: input.session_id ?? null, trace },
    'no fallback can take this turn',
  );
  if (plan.strictRule) throw new StrictRuleError(plan.strictRule.name, trace);
  throw new NoRouteError(trace);
}

import type { RoutingPolicy } from '@yourtool/core';
import type { Candidate } from './candidate-check.js';
import type { RouteInput } from './route-types.js';
import type { RouterContext, TurnFacts } from './router-context.js';
import type { RoutingConfig, RoutingRule } from './routing-config.js';
import { ruleCandidates } from './rule-candidates.js';
import { withinWorkspace } from './rule-match.js';

/** One step of the routing chain: the candidates it offers, in order. */
export interface Step {
  policy: RoutingPolicy;
  /** Why the step offers nothing, when it offers nothing. */
  none?: string;
  candidates: Candidate[];
}

/** A step offering the one model named for it (`@model`, `/model`, a workspace's), or nothing and why. */
function oneModelStep(
  policy: RoutingPolicy,
  choice: { name: string | null | undefined; reason: string; none: string },
): Step {
  if (!choice.name) return { policy, none: choice.none, candidates: [] };
  return { policy, candidates: [{ policy, name: choice.name, reason: choice.reason }] };
}

/** The pattern recommender's model, when it is confident enough. */
function patternStep(context: RouterContext, turn: TurnFacts): Step {
  const recommender = context.recommender;
  const recommendation = recommender?.(turn.input) ?? null;
  const minimum = turn.config.pattern.min_confidence;
  if (!recommendation) {
    return {
      policy: 'PATTERN',
      none: recommender ? 'no recommendation' : 'no recommender configured',
      candidates: [],
    };
  }
  if (recommendation.confidence < minimum) {
    return {
      policy: 'PATTERN',
      none: `recommendation ${recommendation.model} at confidence ${recommendation.confidence} is below ${minimum}`,
      candidates: [],
    };
  }
  return {
    policy: 'PATTERN',
    candidates: [
      {
        policy: 'PATTERN',
        name: recommendation.model,
        confidence: recommendation.confidence,
        reason: `pattern recommendation (confidence ${recommendation.confidence})${recommendation.reason ? `: ${recommendation.reason}` : ''}`,
      },
    ],
  };
}

/** The models of the delegation's tier that accept delegated work. */
function delegateStep(context: RouterContext, input: RouteInput): Step {
  const tier = input.delegate?.tier;
  if (!tier) return { policy: 'DELEGATE_REQUEST', none: 'no delegation requested', candidates: [] };
  return {
    policy: 'DELEGATE_REQUEST',
    none: `no model of tier ${tier} accepts delegation`,
    candidates: context.registry
      .modelsOfTier(tier)
      .filter((m) => m.can_delegate)
      .map((m) => ({
        policy: 'DELEGATE_REQUEST' as const,
        name: m.id,
        reason: `delegated to tier ${tier}`,
      })),
  };
}

/** The default of the innermost configured workspace holding the session's path. */
function workspaceStep(config: RoutingConfig, input: RouteInput): Step {
  const workspace = config.workspaces
    .filter((w) => withinWorkspace(input.workspace_path, w.path))
    .sort((a, b) => b.path.length - a.path.length)[0];
  return oneModelStep('WORKSPACE_DEFAULT', {
    name: workspace?.default,
    reason: `workspace default for ${workspace?.path}`,
    none: 'no workspace default applies',
  });
}

/**
 * The routing chain for one turn, in order: per-message override, session sticky, the matching
 * rules (only the governing strict rule when one matched), pattern recommendation, delegation,
 * workspace default, global default.
 */
export function chainSteps(
  context: RouterContext,
  turn: TurnFacts,
  matched: readonly RoutingRule[],
  governing: RoutingRule | undefined,
): Step[] {
  const { config, input } = turn;
  const override = oneModelStep('PER_MESSAGE_OVERRIDE', {
    name: input.override,
    reason: `per-message override @${input.override}`,
    none: 'no @model in the message',
  });
  const sticky = oneModelStep('MANUAL_STICKY', {
    name: input.sticky,
    reason: 'session model chosen with /model',
    none: 'no /model choice in this session',
  });
  // a matching strict rule governs the turn: the other rules are not consulted
  const rules = governing ? [governing] : matched;
  const rule: Step = {
    policy: 'RULE',
    none: 'no rule matched',
    candidates: rules.flatMap((r) => ruleCandidates(context.registry, r)),
  };
  return [
    override,
    sticky,
    rule,
    patternStep(context, turn),
    delegateStep(context, input),
    workspaceStep(config, input),
    {
      policy: 'GLOBAL_DEFAULT',
      candidates: [
        { policy: 'GLOBAL_DEFAULT', name: config.global_default, reason: 'global default' },
      ],
    },
  ];
}

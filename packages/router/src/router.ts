import {
  type AdapterCapabilities,
  type EventBus,
  type Logger,
  type Message,
  nowTimestamp,
  type ProviderAdapter,
  type RouteTraceEntry,
  type RoutingDecisionRecord,
  type RoutingPolicy,
  routingModeForPolicy,
  silentLogger,
  type ToolDefinition,
} from '@yourtool/core';
import type { AvailabilityTracker } from './availability.js';
import { NoRouteError, RouterConfigError, SwapRefusedError, UnknownModelError } from './errors.js';
import type { ModelRegistry } from './registry.js';
import { capabilityProblems, type TurnNeeds, turnNeeds } from './requirements.js';
import type { RoutingConfig, RoutingRule } from './routing-config.js';

/** What the router needs to know about one turn. */
export interface RouteInput {
  session_id?: string | null;
  /** The whole history, the new user message included. */
  messages: readonly Message[];
  tools?: readonly ToolDefinition[];
  system_prompt?: string | null;
  output_schema?: Record<string, unknown> | null;
  max_output_tokens: number;
  /** The turn asks for extended thinking. */
  thinking?: boolean;
  /** Per-message override (`@model` in the message). */
  override?: string | null;
  /** The session's sticky choice (`/model`). */
  sticky?: string | null;
  /** A tier the turn asks for. */
  tier?: string | null;
  /** A planner's delegation request: a model of this tier that accepts delegated work. */
  delegate?: { tier: string } | null;
  /** The session's workspace path. */
  workspace_path?: string | null;
}

/** A pluggable recommendation from past patterns, with a confidence in [0, 1]. */
export type PatternRecommender = (
  input: RouteInput,
) => { model: string; confidence: number; reason?: string } | null;

/** The outcome of routing one turn. */
export interface RouteDecision {
  /** Canonical id of the chosen model. */
  model: string;
  adapter: ProviderAdapter;
  capabilities: AdapterCapabilities;
  /** The chain step that chose it. */
  policy: RoutingPolicy;
  /** The compact record stored on the assistant message. */
  record: RoutingDecisionRecord;
  /** Every candidate considered, in order, with why it was taken or passed over. */
  trace: RouteTraceEntry[];
  /** The chosen adapter's input estimate for this history. */
  estimated_input_tokens: number;
  /** Whether this call is the probe of a model or provider coming back. */
  probe: boolean;
}

/** Options of {@link Router}. */
export interface RouterOptions {
  registry: ModelRegistry;
  /** The routing configuration, or a function returning the current one (hot reload). */
  config: RoutingConfig | (() => RoutingConfig);
  availability?: AvailabilityTracker;
  recommender?: PatternRecommender;
  /** Receives `route.decided`. */
  bus?: EventBus;
  logger?: Logger;
}

interface Candidate {
  policy: RoutingPolicy;
  name: string;
  reason: string;
  rule_name?: string;
  confidence?: number;
}

interface Step {
  policy: RoutingPolicy;
  /** Why the step offers nothing, when it offers nothing. */
  none?: string;
  candidates: Candidate[];
}

const lastUserText = (messages: readonly Message[]): string => {
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i];
    if (message?.role === 'user') {
      return message.content.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('\n');
    }
  }
  return '';
};

/** Each adapter's input estimate for one turn's history, computed once per adapter. */
const estimator = (input: RouteInput): ((adapter: ProviderAdapter) => number) => {
  const estimates = new Map<ProviderAdapter, number>();
  return (adapter) => {
    let estimate = estimates.get(adapter);
    if (estimate === undefined) {
      estimate = adapter.estimateInputTokens(
        input.messages,
        input.tools ?? [],
        input.system_prompt,
      );
      estimates.set(adapter, estimate);
    }
    return estimate;
  };
};

const withinWorkspace = (path: string | null | undefined, root: string): boolean => {
  if (!path) return false;
  const base = root.endsWith('/') ? root.slice(0, -1) : root;
  return path === base || path.startsWith(`${base}/`);
};

/**
 * The routing chain (per-message override → session sticky → configured rules → pattern
 * recommendation → delegation → workspace default → global default). Each candidate is checked
 * against the registry (configured?), availability, and its capabilities for this very history
 * (images anywhere in it, tools, thinking, structured output, output limit, context window
 * against the adapter's estimate); the first that passes wins. Every decision is emitted as
 * `route.decided` with the full trace.
 */
export class Router {
  readonly #registry: ModelRegistry;
  readonly #config: () => RoutingConfig;
  readonly #availability: AvailabilityTracker | undefined;
  readonly #recommender: PatternRecommender | undefined;
  readonly #bus: EventBus | undefined;
  readonly #logger: Logger;

  constructor(options: RouterOptions) {
    this.#registry = options.registry;
    const config = options.config;
    this.#config = typeof config === 'function' ? config : () => config;
    this.#availability = options.availability;
    this.#recommender = options.recommender;
    this.#bus = options.bus;
    this.#logger = options.logger ?? silentLogger;
  }

  /** The registry the router resolves names with. */
  get registry(): ModelRegistry {
    return this.#registry;
  }

  /** Routes one turn; throws {@link NoRouteError} (with the trace) when no candidate passes. */
  route(input: RouteInput): RouteDecision {
    const needs = turnNeeds(input);
    const trace: RouteTraceEntry[] = [];
    // One estimate per adapter for this history, however many of its models are candidates.
    const estimate = estimator(input);
    for (const step of this.#steps(input, needs, estimate)) {
      if (step.candidates.length === 0) {
        trace.push({
          policy: step.policy,
          model: null,
          accepted: false,
          reason: step.none ?? 'no candidate',
        });
        continue;
      }
      for (const candidate of step.candidates) {
        const verdict = this.#evaluate(candidate, needs, estimate);
        trace.push({
          policy: candidate.policy,
          model: verdict.model,
          accepted: verdict.ok,
          reason: verdict.ok ? candidate.reason : verdict.reason,
        });
        if (!verdict.ok || !verdict.adapter || !verdict.caps || !verdict.model) continue;
        const probe = this.#availability?.check(verdict.model).probe ?? false;
        this.#availability?.routed(verdict.model);
        const alternatives = [
          ...new Set(
            trace.filter((t) => !t.accepted && t.model !== null).map((t) => t.model as string),
          ),
        ];
        const record: RoutingDecisionRecord = {
          mode: routingModeForPolicy(candidate.policy),
          chosen_model: verdict.model,
          reason: candidate.reason,
          rule_name: candidate.rule_name ?? null,
          confidence: candidate.confidence ?? null,
          alternatives_considered: alternatives,
        };
        this.#bus?.emit({
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
    }
    this.#logger.warn(
      { event: 'no_route', session_id: input.session_id ?? null, trace },
      'no model can take this turn',
    );
    throw new NoRouteError(trace);
  }

  /**
   * Checks a manual swap (`/model`) against the session's history: refused with
   * {@link SwapRefusedError} ("Cannot swap to Claude Haiku 4.5: session contains images that
   * this model can't process. Active model unchanged.") when the model cannot take it or is not
   * configured; an unknown name throws `UnknownModelError` with suggestions. Returns the
   * canonical id to make sticky.
   */
  checkSwap(
    model: string,
    input: Omit<RouteInput, 'override' | 'sticky' | 'tier' | 'delegate' | 'workspace_path'>,
  ): string {
    const registered = this.#registry.get(model);
    const reasons: string[] = [];
    if (registered.status === 'not_configured') {
      reasons.push(`it is not configured (${registered.not_configured_reason})`);
    } else {
      const adapter = this.#registry.adapterFor(registered.id);
      const caps = this.#registry.capabilitiesFor(registered.id);
      const estimate = adapter.estimateInputTokens(
        input.messages,
        input.tools ?? [],
        input.system_prompt,
      );
      reasons.push(...capabilityProblems(caps, turnNeeds(input), estimate));
    }
    if (reasons.length > 0) {
      throw new SwapRefusedError(
        registered.id,
        `Cannot swap to ${registered.display_name}: ${reasons.join('; ')}. Active model unchanged.`,
        reasons,
      );
    }
    return registered.id;
  }

  #evaluate(
    candidate: Candidate,
    needs: TurnNeeds,
    estimateFor: (adapter: ProviderAdapter) => number,
  ):
    | {
        ok: true;
        model: string;
        adapter: ProviderAdapter;
        caps: AdapterCapabilities;
        estimate: number;
        reason: string;
      }
    | {
        ok: false;
        model: string | null;
        reason: string;
        adapter?: undefined;
        caps?: undefined;
        estimate: number;
      } {
    let id: string;
    try {
      id = this.#registry.resolve(candidate.name);
    } catch (error) {
      const hint = error instanceof UnknownModelError ? error.message : String(error);
      return { ok: false, model: candidate.name, reason: hint, estimate: 0 };
    }
    const registered = this.#registry.get(id);
    if (registered.status === 'not_configured') {
      return {
        ok: false,
        model: id,
        reason: `not configured: ${registered.not_configured_reason}`,
        estimate: 0,
      };
    }
    const verdict = this.#availability?.check(id);
    if (verdict && !verdict.ok)
      return { ok: false, model: id, reason: verdict.reason ?? 'unavailable', estimate: 0 };
    const adapter = this.#registry.adapterFor(id);
    const caps = this.#registry.capabilitiesFor(id);
    const estimate = estimateFor(adapter);
    const problems = capabilityProblems(caps, needs, estimate);
    if (problems.length > 0) return { ok: false, model: id, reason: problems.join('; '), estimate };
    return { ok: true, model: id, adapter, caps, estimate, reason: candidate.reason };
  }

  #steps(
    input: RouteInput,
    needs: TurnNeeds,
    estimateFor: (adapter: ProviderAdapter) => number,
  ): Step[] {
    const config = this.#config();
    const steps: Step[] = [];
    steps.push(
      input.override
        ? {
            policy: 'PER_MESSAGE_OVERRIDE',
            candidates: [
              {
                policy: 'PER_MESSAGE_OVERRIDE',
                name: input.override,
                reason: `per-message override @${input.override}`,
              },
            ],
          }
        : { policy: 'PER_MESSAGE_OVERRIDE', none: 'no @model in the message', candidates: [] },
    );
    steps.push(
      input.sticky
        ? {
            policy: 'MANUAL_STICKY',
            candidates: [
              {
                policy: 'MANUAL_STICKY',
                name: input.sticky,
                reason: 'session model chosen with /model',
              },
            ],
          }
        : { policy: 'MANUAL_STICKY', none: 'no /model choice in this session', candidates: [] },
    );
    const ruleCandidates = this.#ruleCandidates(config.rules, input, needs, estimateFor);
    steps.push({ policy: 'RULE', none: 'no rule matched', candidates: ruleCandidates });
    const recommendation = this.#recommender?.(input) ?? null;
    if (!recommendation) {
      steps.push({
        policy: 'PATTERN',
        none: this.#recommender ? 'no recommendation' : 'no recommender configured',
        candidates: [],
      });
    } else if (recommendation.confidence < config.pattern.min_confidence) {
      steps.push({
        policy: 'PATTERN',
        none: `recommendation ${recommendation.model} at confidence ${recommendation.confidence} is below ${config.pattern.min_confidence}`,
        candidates: [],
      });
    } else {
      steps.push({
        policy: 'PATTERN',
        candidates: [
          {
            policy: 'PATTERN',
            name: recommendation.model,
            confidence: recommendation.confidence,
            reason: `pattern recommendation (confidence ${recommendation.confidence})${recommendation.reason ? `: ${recommendation.reason}` : ''}`,
          },
        ],
      });
    }
    const delegateTier = input.delegate?.tier;
    steps.push(
      delegateTier
        ? {
            policy: 'DELEGATE_REQUEST',
            none: `no model of tier ${delegateTier} accepts delegation`,
            candidates: this.#registry
              .modelsOfTier(delegateTier)
              .filter((m) => m.can_delegate)
              .map((m) => ({
                policy: 'DELEGATE_REQUEST' as const,
                name: m.id,
                reason: `delegated to tier ${delegateTier}`,
              })),
          }
        : { policy: 'DELEGATE_REQUEST', none: 'no delegation requested', candidates: [] },
    );
    const workspace = config.workspaces
      .filter((w) => withinWorkspace(input.workspace_path, w.path))
      .sort((a, b) => b.path.length - a.path.length)[0];
    steps.push(
      workspace
        ? {
            policy: 'WORKSPACE_DEFAULT',
            candidates: [
              {
                policy: 'WORKSPACE_DEFAULT',
                name: workspace.default,
                reason: `workspace default for ${workspace.path}`,
              },
            ],
          }
        : { policy: 'WORKSPACE_DEFAULT', none: 'no workspace default applies', candidates: [] },
    );
    steps.push({
      policy: 'GLOBAL_DEFAULT',
      candidates: [
        { policy: 'GLOBAL_DEFAULT', name: config.global_default, reason: 'global default' },
      ],
    });
    return steps;
  }

  #ruleCandidates(
    rules: readonly RoutingRule[],
    input: RouteInput,
    needs: TurnNeeds,
    estimateFor: (adapter: ProviderAdapter) => number,
  ): Candidate[] {
    const candidates: Candidate[] = [];
    let estimate: number | undefined;
    const estimated = () => {
      if (estimate === undefined) {
        // rules see one estimate for the history: the global default's adapter's
        try {
          estimate = estimateFor(this.#registry.adapterFor(this.#config().global_default));
        } catch {
          estimate = 0;
        }
      }
      return estimate;
    };
    for (const rule of rules) {
      const when = rule.when;
      if (when.needs_images !== undefined && when.needs_images !== needs.imageMediaTypes.length > 0)
        continue;
      if (when.needs_tools !== undefined && when.needs_tools !== needs.tools) continue;
      if (when.needs_thinking !== undefined && when.needs_thinking !== needs.thinking) continue;
      if (
        when.needs_structured_output !== undefined &&
        when.needs_structured_output !== needs.structuredOutput
      )
        continue;
      if (when.tier !== undefined && when.tier !== input.tier) continue;
      if (when.workspace !== undefined && !withinWorkspace(input.workspace_path, when.workspace))
        continue;
      if (
        when.message_matches !== undefined &&
        !new RegExp(when.message_matches, 'i').test(lastUserText(input.messages))
      )
        continue;
      if (when.min_estimated_tokens !== undefined && estimated() < when.min_estimated_tokens)
        continue;
      if (when.max_estimated_tokens !== undefined && estimated() > when.max_estimated_tokens)
        continue;
      const names = rule.use
        ? [rule.use]
        : this.#registry.modelsOfTier(rule.use_tier ?? '').map((m) => m.id);
      for (const name of names) {
        candidates.push({
          policy: 'RULE',
          name,
          rule_name: rule.name,
          reason: `rule ${rule.name}`,
        });
      }
    }
    return candidates;
  }
}

/**
 * Checks that every model a routing configuration names resolves in the registry and every
 * tier it names has models; throws `RouterConfigError` listing each offending path. Pass it as
 * `validate` to `watchRoutingConfig` so a file naming an unknown model is refused.
 */
export function checkRoutingConfig(
  config: RoutingConfig,
  registry: ModelRegistry,
  source = '<inline>',
): void {
  const issues: Array<{ path: string; message: string }> = [];
  const resolves = (name: string, path: string) => {
    try {
      registry.resolve(name);
    } catch (error) {
      issues.push({ path, message: (error as Error).message });
    }
  };
  resolves(config.global_default, 'global_default');
  config.workspaces.forEach((w, i) => {
    resolves(w.default, `workspaces[${i}].default`);
  });
  config.rules.forEach((rule, i) => {
    if (rule.use) resolves(rule.use, `rules[${i}].use`);
    if (rule.use_tier && registry.modelsOfTier(rule.use_tier).length === 0) {
      issues.push({
        path: `rules[${i}].use_tier`,
        message: `no model has tier "${rule.use_tier}"`,
      });
    }
  });
  if (issues.length > 0) throw new RouterConfigError(source, issues);
}

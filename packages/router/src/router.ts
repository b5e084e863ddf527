import {
  type AdapterCapabilities,
  type ContextLimit,
  type EventBus,
  type FallbackAttempt,
  type Logger,
  type Message,
  nowTimestamp,
  type ProviderAdapter,
  type RouteTraceEntry,
  type RoutingConstraintFailureKind,
  type RoutingDecisionRecord,
  type RoutingPolicy,
  routingModeForPolicy,
  silentLogger,
  type ToolDefinition,
} from '@yourtool/core';
import { describeNetworkErrorCode, networkErrorCode, redactSecrets } from '@yourtool/core/adapter';
import type { AvailabilityTracker } from './availability.js';
import {
  ChoiceUnavailableError,
  ModelNotConfiguredError,
  NoRouteError,
  RouterConfigError,
  StrictRuleError,
  SwapRefusedError,
  UnknownModelError,
} from './errors.js';
import { compileMessagePattern } from './message-pattern.js';
import { routingConstraintFailure } from './refusal-event.js';
import type { ModelRegistry } from './registry.js';
import { capabilityProblems, type TurnNeeds, turnNeeds } from './requirements.js';
import type { RoutingConfig, RoutingRule, RuleCondition } from './routing-config.js';

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
  /**
   * Let routing choose when the explicit choice (`override` or `sticky`) cannot be honoured,
   * instead of throwing {@link ChoiceUnavailableError} (decision 0091).
   */
  fallthrough?: boolean;
}

/** What {@link Router.checkSwap} reads: the history and what the turns ask of a model. */
export type SwapInput = Omit<
  RouteInput,
  'override' | 'sticky' | 'tier' | 'delegate' | 'workspace_path' | 'fallthrough'
>;

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
  /** Receives `route.decided`, and `routing_constraint_failure` for each refusal. */
  bus?: EventBus;
  logger?: Logger;
  /**
   * What happens when an explicit choice (`@model` or `/model`) cannot be honoured: `'strict'`
   * (default) throws {@link ChoiceUnavailableError}; `'fall_through'` lets the chain continue,
   * as `fallthrough: true` on one turn does (decision 0091).
   */
  explicitChoices?: 'strict' | 'fall_through';
}

/** What {@link Router.prepare} did. */
export interface PrepareReport {
  /** Canonical ids whose capabilities were detected by this call. */
  detected: string[];
  /** Models whose detection failed (or was aborted), with the error; nothing is thrown. */
  failed: Array<{ model: string; error: Error }>;
}

/** Options of {@link Router.prepare}. */
export interface PrepareOptions {
  /** Stops waiting: models not detected yet are reported as failed with the abort reason. */
  signal?: AbortSignal;
  /** Only these models (ids or aliases). Default: every registered, configured model. */
  models?: readonly string[];
}

/** Why a model is refused while its adapter has not learnt its capabilities. */
export const CAPABILITIES_NOT_DETECTED =
  'capabilities not detected yet (call router.prepare() before routing)';

interface Candidate {
  policy: RoutingPolicy;
  name: string;
  reason: string;
  rule_name?: string;
  confidence?: number;
}

type Verdict =
  | {
      ok: true;
      model: string;
      adapter: ProviderAdapter;
      caps: AdapterCapabilities;
      estimate: number;
      reason: string;
      context_limited?: undefined;
    }
  | {
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
    };

const isExplicit = (policy: RoutingPolicy): policy is 'PER_MESSAGE_OVERRIDE' | 'MANUAL_STICKY' =>
  policy === 'PER_MESSAGE_OVERRIDE' || policy === 'MANUAL_STICKY';

const abortError = (signal: AbortSignal): Error =>
  signal.reason instanceof Error
    ? signal.reason
    : Object.assign(new Error('prepare() was aborted'), { name: 'AbortError' });

/** A failed detection for people: its message, and the transport failure under it when there is one. */
function describeFailure(error: Error): string {
  const code = networkErrorCode(error);
  if (code === undefined) return error.message;
  return `${error.message} (${describeNetworkErrorCode(code)}, ${code})`;
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
 * against the registry (configured?), availability, whether its capabilities are known, and its
 * capabilities for this very history (images anywhere in it, tools, thinking, structured output,
 * output limit, context window against the adapter's estimate); the first that passes wins.
 * Every decision is emitted as `route.decided` with the full trace.
 *
 * An explicit choice that cannot be honoured throws {@link ChoiceUnavailableError} unless the
 * turn opts into falling through; a matching `strict` rule governs the turn and throws
 * {@link StrictRuleError} rather than let another model take it; {@link Router.fallback}
 * re-routes a turn whose model failed; {@link Router.prepare} detects capabilities up front.
 */
export class Router {
  readonly #registry: ModelRegistry;
  readonly #config: () => RoutingConfig;
  readonly #availability: AvailabilityTracker | undefined;
  readonly #recommender: PatternRecommender | undefined;
  readonly #bus: EventBus | undefined;
  readonly #logger: Logger;
  readonly #explicitChoices: 'strict' | 'fall_through';
  /** Detections in flight, shared by concurrent `prepare()` calls. */
  readonly #detecting = new Map<string, Promise<void>>();
  /** The last failed detection of each model, so a refusal names the real cause. */
  readonly #detectionFailures = new Map<string, { message: string; at: string }>();
  /** Compiled `message_matches` patterns, by pattern and flags. */
  readonly #patterns = new Map<string, RegExp | null>();

  constructor(options: RouterOptions) {
    this.#registry = options.registry;
    const config = options.config;
    this.#config = typeof config === 'function' ? config : () => config;
    this.#availability = options.availability;
    this.#recommender = options.recommender;
    this.#bus = options.bus;
    this.#logger = options.logger ?? silentLogger;
    this.#explicitChoices = options.explicitChoices ?? 'strict';
  }

  /** The registry the router resolves names with. */
  get registry(): ModelRegistry {
    return this.#registry;
  }

  /**
   * Detects the capabilities routing needs before the first decision: for every registered,
   * configured model (or the given ones) whose adapter has `detectCapabilities` and reports
   * `capabilitiesDetected(id) === false`, calls `detectCapabilities(id, { signal })`,
   * concurrently. Failures (and models given by a name that does not resolve or is not
   * configured) are reported, never thrown; an aborted signal reports every model still
   * pending as failed with the abort reason. Cheap when everything is detected: no call is made.
   */
  async prepare(options: PrepareOptions = {}): Promise<PrepareReport> {
    const { signal } = options;
    const report: PrepareReport = { detected: [], failed: [] };
    const ids: string[] = [];
    if (options.models) {
      for (const name of options.models) {
        try {
          const model = this.#registry.get(name);
          if (model.status === 'not_configured') {
            throw new ModelNotConfiguredError(
              model.id,
              model.not_configured_reason ?? 'no adapter',
            );
          }
          if (!ids.includes(model.id)) ids.push(model.id);
        } catch (error) {
          report.failed.push({ model: name, error: error as Error });
        }
      }
    } else {
      for (const model of this.#registry.models()) {
        if (model.status === 'ready') ids.push(model.id);
      }
    }
    const pending = ids.flatMap((id) => {
      const adapter = this.#registry.adapterFor(id);
      if (!adapter.detectCapabilities || adapter.capabilitiesDetected?.(id) !== false) return [];
      return [{ id, adapter }];
    });
    if (pending.length === 0) return report;
    if (signal?.aborted) {
      const error = abortError(signal);
      for (const { id } of pending) report.failed.push({ model: id, error });
      return report;
    }
    let onAbort: (() => void) | undefined;
    const aborted = new Promise<never>((_, reject) => {
      if (!signal) return;
      onAbort = () => reject(abortError(signal));
      signal.addEventListener('abort', onAbort, { once: true });
    });
    // the race below may reject after every detection settled: never leave it unhandled
    aborted.catch(() => undefined);
    try {
      const outcomes = await Promise.allSettled(
        pending.map(({ id, adapter }) => {
          let detection = this.#detecting.get(id);
          if (!detection) {
            detection = (async () => {
              await adapter.detectCapabilities?.(id, signal ? { signal } : {});
            })().finally(() => this.#detecting.delete(id));
            this.#detecting.set(id, detection);
          }
          return Promise.race([detection, aborted]);
        }),
      );
      outcomes.forEach((outcome, i) => {
        const id = (pending[i] as { id: string }).id;
        if (outcome.status === 'fulfilled') {
          report.detected.push(id);
          this.#detectionFailures.delete(id);
        } else {
          const error =
            outcome.reason instanceof Error ? outcome.reason : new Error(String(outcome.reason));
          report.failed.push({ model: id, error });
          this.#detectionFailures.set(id, {
            message: redactSecrets(describeFailure(error)),
            at: new Date().toISOString(),
          });
        }
      });
    } finally {
      if (signal && onAbort) signal.removeEventListener('abort', onAbort);
    }
    if (report.failed.length > 0) {
      this.#logger.warn(
        {
          event: 'capability_detection_failed',
          models: report.failed.map((f) => ({ model: f.model, error: f.error.message })),
        },
        'capabilities of some models could not be detected',
      );
    }
    return report;
  }

  /** Why a model whose capabilities are unknown is refused: the failed detection, when one failed. */
  #notDetected(id: string): string {
    const failure = this.#detectionFailures.get(id);
    if (!failure) return CAPABILITIES_NOT_DETECTED;
    return `capabilities could not be detected: ${failure.message} (router.prepare() at ${failure.at}; tried again on the next prepare)`;
  }

  /** Whether the latest user text matches a rule's `message_matches` (compiled once). */
  #matches(when: RuleCondition, messages: readonly Message[]): boolean {
    const key = `${when.message_flags ?? ''}\u0000${when.message_matches}`;
    let regex = this.#patterns.get(key);
    if (regex === undefined) {
      const compiled = compileMessagePattern(when.message_matches ?? '', when.message_flags);
      regex = compiled.ok ? compiled.regex : null;
      this.#patterns.set(key, regex);
    }
    return regex !== null && regex.test(lastUserText(messages));
  }

  /**
   * Routes one turn. Throws {@link ChoiceUnavailableError} when an explicit choice cannot be
   * honoured (unless `input.fallthrough` or `explicitChoices: 'fall_through'`),
   * {@link StrictRuleError} when a matching strict rule has no model that can take the turn,
   * and {@link NoRouteError} (with the trace) when no candidate passes.
   */
  route(input: RouteInput): RouteDecision {
    return this.#reportingRefusal('turn', input, () => this.#route(input));
  }

  /** {@link route}'s chain, before a refusal is reported. */
  #route(input: RouteInput): RouteDecision {
    const config = this.#config();
    const needs = turnNeeds(input);
    const trace: RouteTraceEntry[] = [];
    // One estimate per adapter for this history, however many of its models are candidates.
    const estimate = estimator(input);
    const explicitStrict = input.fallthrough !== true && this.#explicitChoices === 'strict';
    const matched = this.#matchingRules(config, input, needs, estimate);
    const governing = matched.find((rule) => rule.strict);
    const allowed = governing ? this.#ruleModelIds(governing) : null;
    for (const step of this.#steps(config, input, matched, governing)) {
      if (step.candidates.length === 0) {
        trace.push({
          policy: step.policy,
          model: null,
          accepted: false,
          reason: step.none ?? 'no candidate',
        });
      }
      for (const candidate of step.candidates) {
        let verdict = this.#evaluate(candidate, needs, estimate);
        if (verdict.ok && governing && allowed && isExplicit(candidate.policy)) {
          if (!allowed.has(verdict.model)) {
            verdict = {
              ok: false,
              model: verdict.model,
              reason: `strict rule "${governing.name}" matched and allows only ${[...allowed].join(', ') || 'no configured model'}`,
              estimate: verdict.estimate,
            };
          }
        }
        trace.push({
          policy: candidate.policy,
          model: verdict.model,
          accepted: verdict.ok,
          reason: verdict.ok ? candidate.reason : verdict.reason,
          ...(verdict.context_limited ? { context_limited: verdict.context_limited } : {}),
        });
        if (verdict.ok) return this.#decide(input, candidate, verdict, trace);
        if (isExplicit(candidate.policy) && explicitStrict) {
          const error = verdict.unknown
            ? new UnknownModelError(candidate.name, verdict.suggestions ?? [], {
                policy: candidate.policy,
                trace,
              })
            : new ChoiceUnavailableError({
                choice: candidate.name,
                policy: candidate.policy,
                reason: verdict.reason,
                suggestions: verdict.suggestions ?? [],
                trace,
              });
          this.#logger.warn(
            {
              event: 'choice_unavailable',
              session_id: input.session_id ?? null,
              choice: candidate.name,
              policy: candidate.policy,
              reason: verdict.reason,
            },
            error.message,
          );
          throw error;
        }
      }
      if (step.policy === 'RULE' && governing) {
        // the privacy switch: a strict rule never lets a later step take its turn
        this.#logger.warn(
          {
            event: 'strict_rule_refused',
            session_id: input.session_id ?? null,
            rule: governing.name,
            trace,
          },
          `strict rule ${governing.name} has no model that can take this turn`,
        );
        throw new StrictRuleError(governing.name, trace);
      }
    }
    this.#logger.warn(
      { event: 'no_route', session_id: input.session_id ?? null, trace },
      'no model can take this turn',
    );
    throw new NoRouteError(trace);
  }

  /**
   * Re-routes a turn whose model failed (a retryable class after its retries, or
   * `context_overflow`), decision 0090. Candidates: the rule's `fallbacks` when `previous` came
   * from a rule that has them (only those when the rule is strict), otherwise the
   * `fallbacks:` of every model tried in this turn, in the order they were tried (the first
   * choice's list first), deduplicated. When a strict rule governs the turn, only its models are
   * candidates. Models named in `failures` are skipped; the others are checked as in
   * {@link route}. The decision keeps `previous`'s policy, mode and rule, says
   * `fallback after <model> failed (<error_class>)`, carries `fallback_from: failures`, and is
   * emitted as `route.decided`. Throws {@link NoRouteError} (a {@link StrictRuleError} under a
   * strict rule) when no fallback passes or none is configured.
   */
  fallback(
    input: RouteInput,
    previous: RouteDecision,
    failures: readonly FallbackAttempt[],
  ): RouteDecision {
    return this.#reportingRefusal('turn', input, () => this.#fallback(input, previous, failures));
  }

  /** {@link fallback}'s search, before a refusal is reported. */
  #fallback(
    input: RouteInput,
    previous: RouteDecision,
    failures: readonly FallbackAttempt[],
  ): RouteDecision {
    const config = this.#config();
    const needs = turnNeeds(input);
    const estimate = estimator(input);
    const policy = previous.policy;
    const trace: RouteTraceEntry[] = failures.map((f) => ({
      policy,
      model: f.model,
      accepted: false,
      reason: `failed (${f.error_class}): ${f.reason}`,
    }));
    const canonical = (name: string): string | null => {
      try {
        return this.#registry.resolve(name);
      } catch {
        return null;
      }
    };
    const failed = new Set<string>([previous.model]);
    for (const f of failures) failed.add(canonical(f.model) ?? f.model);
    const fromRule =
      policy === 'RULE' && previous.record.rule_name
        ? config.rules.find((r) => r.name === previous.record.rule_name)
        : undefined;
    const governing = this.#matchingRules(config, input, needs, estimate).find((r) => r.strict);
    let strictRule: RoutingRule | undefined;
    let names: string[];
    let source: string;
    if (fromRule?.strict) {
      strictRule = fromRule;
      names = [...(fromRule.fallbacks ?? [])];
      source = `rule ${fromRule.name}`;
    } else if (fromRule?.fallbacks && fromRule.fallbacks.length > 0) {
      names = [...fromRule.fallbacks];
      source = `rule ${fromRule.name}`;
    } else {
      const tried = [...failures.map((f) => canonical(f.model) ?? f.model), previous.model];
      names = [];
      for (const model of [...new Set(tried)]) {
        for (const [key, list] of Object.entries(config.fallbacks)) {
          if (canonical(key) === model) names.push(...list);
        }
      }
      source = previous.model;
    }
    let allowed: Set<string> | null = null;
    if (!strictRule && governing) {
      strictRule = governing;
      allowed = this.#ruleModelIds(governing);
    }
    const last = failures[failures.length - 1];
    const reason = last
      ? `fallback after ${last.model} failed (${last.error_class})`
      : `fallback after ${previous.model} failed`;
    const seen = new Set<string>();
    let offered = 0;
    for (const name of names) {
      const id = canonical(name);
      if (id !== null && (failed.has(id) || seen.has(id))) continue;
      if (id !== null) seen.add(id);
      offered++;
      const candidate: Candidate = {
        policy,
        name,
        reason,
        ...(previous.record.rule_name ? { rule_name: previous.record.rule_name } : {}),
      };
      let verdict = this.#evaluate(candidate, needs, estimate);
      if (verdict.ok && allowed && strictRule && !allowed.has(verdict.model)) {
        verdict = {
          ok: false,
          model: verdict.model,
          reason: `strict rule "${strictRule.name}" matched and allows only ${[...allowed].join(', ') || 'no configured model'}`,
          estimate: verdict.estimate,
        };
      }
      trace.push({
        policy,
        model: verdict.model,
        accepted: verdict.ok,
        reason: verdict.ok ? reason : verdict.reason,
        ...(verdict.context_limited ? { context_limited: verdict.context_limited } : {}),
      });
      if (verdict.ok) {
        return this.#decide(input, candidate, verdict, trace, {
          mode: previous.record.mode,
          confidence: previous.record.confidence ?? null,
          fallback_from: failures.map((f) => ({ ...f })),
        });
      }
    }
    if (offered === 0) {
      trace.push({
        policy,
        model: null,
        accepted: false,
        reason: `no fallbacks left for ${source}`,
      });
    }
    this.#logger.warn(
      { event: 'no_fallback', session_id: input.session_id ?? null, trace },
      'no fallback can take this turn',
    );
    if (strictRule) throw new StrictRuleError(strictRule.name, trace);
    throw new NoRouteError(trace);
  }

  /**
   * Checks a manual swap (`/model`) against the session's history: refused with
   * {@link SwapRefusedError} ("Cannot swap to Claude Haiku 4.5: session contains images that
   * this model can't process. Active model unchanged.") when the model cannot take it, is not
   * configured, or its capabilities are not detected yet; an unknown name throws
   * `UnknownModelError` with suggestions. Returns the canonical id to make sticky.
   */
  checkSwap(model: string, input: SwapInput): string {
    return this.#reportingRefusal('swap', input, () => this.#checkSwap(model, input));
  }

  /**
   * Runs `fn`; a refusal it throws (a swap the history cannot survive, a turn no model may
   * take) is emitted as `routing_constraint_failure` before it propagates.
   */
  #reportingRefusal<T>(
    kind: RoutingConstraintFailureKind,
    input: { session_id?: string | null },
    fn: () => T,
  ): T {
    try {
      return fn();
    } catch (error) {
      const event = routingConstraintFailure(error, kind, input.session_id ?? null);
      if (event) this.#bus?.emit(event);
      throw error;
    }
  }

  /** {@link checkSwap}'s checks, before a refusal is reported. */
  #checkSwap(model: string, input: SwapInput): string {
    const registered = this.#registry.get(model);
    const reasons: string[] = [];
    if (registered.status === 'not_configured') {
      reasons.push(`it is not configured (${registered.not_configured_reason})`);
    } else {
      const adapter = this.#registry.adapterFor(registered.id);
      if (adapter.capabilitiesDetected?.(registered.id) === false) {
        reasons.push(`its ${this.#notDetected(registered.id)}`);
      } else {
        const caps = this.#registry.capabilitiesFor(registered.id);
        const estimate = adapter.estimateInputTokens(
          input.messages,
          input.tools ?? [],
          input.system_prompt,
        );
        reasons.push(...capabilityProblems(caps, turnNeeds(input), estimate));
      }
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

  /** Builds, emits and returns the decision for a candidate that passed. */
  #decide(
    input: RouteInput,
    candidate: Candidate,
    verdict: Extract<Verdict, { ok: true }>,
    trace: RouteTraceEntry[],
    overrides: Partial<RoutingDecisionRecord> = {},
  ): RouteDecision {
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
      ...overrides,
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

  #evaluate(
    candidate: Candidate,
    needs: TurnNeeds,
    estimateFor: (adapter: ProviderAdapter) => number,
  ): Verdict {
    let id: string;
    try {
      id = this.#registry.resolve(candidate.name);
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
    if (adapter.capabilitiesDetected?.(id) === false) {
      return { ok: false, model: id, reason: this.#notDetected(id), estimate: 0 };
    }
    const caps = this.#registry.capabilitiesFor(id);
    const estimate = estimateFor(adapter);
    const problems = capabilityProblems(caps, needs, estimate);
    if (problems.length > 0) {
      // Only the window in the way (the same check passes with an empty history's estimate)?
      const contextOnly = capabilityProblems(caps, needs, 0).length === 0;
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
                max_output_tokens: needs.maxOutputTokens,
              },
            }
          : {}),
      };
    }
    return { ok: true, model: id, adapter, caps, estimate, reason: candidate.reason };
  }

  #steps(
    config: RoutingConfig,
    input: RouteInput,
    matched: readonly RoutingRule[],
    governing: RoutingRule | undefined,
  ): Step[] {
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
    // a matching strict rule governs the turn: the other rules are not consulted
    const rules = governing ? [governing] : matched;
    steps.push({
      policy: 'RULE',
      none: 'no rule matched',
      candidates: rules.flatMap((rule) => this.#ruleCandidates(rule)),
    });
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

  /** The rules whose condition holds for this turn, in configuration order. */
  #matchingRules(
    config: RoutingConfig,
    input: RouteInput,
    needs: TurnNeeds,
    estimateFor: (adapter: ProviderAdapter) => number,
  ): RoutingRule[] {
    let estimate: number | undefined;
    const estimated = () => {
      if (estimate === undefined) {
        // rules see one estimate for the history: the global default's adapter's
        try {
          estimate = estimateFor(this.#registry.adapterFor(config.global_default));
        } catch {
          estimate = 0;
        }
      }
      return estimate;
    };
    return config.rules.filter((rule) => {
      const when = rule.when;
      if (when.needs_images !== undefined && when.needs_images !== needs.imageMediaTypes.length > 0)
        return false;
      if (when.needs_tools !== undefined && when.needs_tools !== needs.tools) return false;
      if (when.needs_thinking !== undefined && when.needs_thinking !== needs.thinking) return false;
      if (
        when.needs_structured_output !== undefined &&
        when.needs_structured_output !== needs.structuredOutput
      )
        return false;
      if (when.tier !== undefined && when.tier !== input.tier) return false;
      if (when.workspace !== undefined && !withinWorkspace(input.workspace_path, when.workspace))
        return false;
      if (when.message_matches !== undefined && !this.#matches(when, input.messages)) return false;
      if (when.min_estimated_tokens !== undefined && estimated() < when.min_estimated_tokens)
        return false;
      if (when.max_estimated_tokens !== undefined && estimated() > when.max_estimated_tokens)
        return false;
      return true;
    });
  }

  /** A rule's model names: `use` or its tier's models, then its `fallbacks`. */
  #ruleNames(rule: RoutingRule): Array<{ name: string; fallback: boolean }> {
    const own = rule.use
      ? [rule.use]
      : this.#registry.modelsOfTier(rule.use_tier ?? '').map((m) => m.id);
    return [
      ...own.map((name) => ({ name, fallback: false })),
      ...(rule.fallbacks ?? []).map((name) => ({ name, fallback: true })),
    ];
  }

  /** The canonical ids a rule may send a turn to (its models and fallbacks that resolve). */
  #ruleModelIds(rule: RoutingRule): Set<string> {
    const ids = new Set<string>();
    for (const { name } of this.#ruleNames(rule)) {
      try {
        ids.add(this.#registry.resolve(name));
      } catch {
        // an unknown name allows nothing; checkRoutingConfig reports it
      }
    }
    return ids;
  }

  #ruleCandidates(rule: RoutingRule): Candidate[] {
    return this.#ruleNames(rule).map(({ name, fallback }) => ({
      policy: 'RULE' as const,
      name,
      rule_name: rule.name,
      reason: fallback ? `rule ${rule.name} (fallback)` : `rule ${rule.name}`,
    }));
  }
}

/**
 * Checks that every model a routing configuration names (defaults, rules, rule and model
 * `fallbacks`, and the keys of `fallbacks`) resolves in the registry and every tier it names
 * has models; throws `RouterConfigError` listing each offending path. Pass it as
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
    rule.fallbacks?.forEach((name, j) => {
      resolves(name, `rules[${i}].fallbacks[${j}]`);
    });
  });
  for (const [key, list] of Object.entries(config.fallbacks)) {
    const at = `fallbacks["${key}"]`;
    resolves(key, at);
    list.forEach((name, j) => {
      resolves(name, `${at}[${j}]`);
    });
  }
  if (issues.length > 0) throw new RouterConfigError(source, issues);
}

import { type EventBus, type FallbackAttempt, type Logger, silentLogger } from '@yourtool/core';
import type { AvailabilityTracker } from './availability.js';
import {
  type PrepareOptions,
  type PrepareReport,
  prepareCapabilities,
} from './capability-detection.js';
import { fallbackTurn } from './fallback-route.js';
import { reportingRefusal } from './refusal-event.js';
import type { ModelRegistry } from './registry.js';
import { routeTurn } from './route-chain.js';
import type { PatternRecommender, RouteDecision, RouteInput, SwapInput } from './route-types.js';
import type { RouterContext } from './router-context.js';
import type { RoutingConfig } from './routing-config.js';
import { checkSwap } from './swap-check.js';

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
  readonly #context: RouterContext;

  constructor(options: RouterOptions) {
    const config = options.config;
    this.#context = {
      registry: options.registry,
      config: typeof config === 'function' ? config : () => config,
      availability: options.availability,
      recommender: options.recommender,
      bus: options.bus,
      logger: options.logger ?? silentLogger,
      explicitChoices: options.explicitChoices ?? 'strict',
      detecting: new Map(),
      detectionFailures: new Map(),
      patterns: new Map(),
    };
  }

  /** The registry the router resolves names with. */
  get registry(): ModelRegistry {
    return this.#context.registry;
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
    return prepareCapabilities(this.#context, options);
  }

  /**
   * Routes one turn. Throws {@link ChoiceUnavailableError} when an explicit choice cannot be
   * honoured (unless `input.fallthrough` or `explicitChoices: 'fall_through'`),
   * {@link StrictRuleError} when a matching strict rule has no model that can take the turn,
   * and {@link NoRouteError} (with the trace) when no candidate passes.
   */
  route(input: RouteInput): RouteDecision {
    return reportingRefusal(this.#context.bus, 'turn', input.session_id ?? null, () =>
      routeTurn(this.#context, input),
    );
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
    return reportingRefusal(this.#context.bus, 'turn', input.session_id ?? null, () =>
      fallbackTurn(this.#context, input, previous, failures),
    );
  }

  /**
   * Checks a manual swap (`/model`) against the session's history: refused with
   * {@link SwapRefusedError} ("Cannot swap to Claude Haiku 4.5: session contains images that
   * this model can't process. Active model unchanged.") when the model cannot take it, is not
   * configured, or its capabilities are not detected yet; an unknown name throws
   * `UnknownModelError` with suggestions. Returns the canonical id to make sticky.
   */
  checkSwap(model: string, input: SwapInput): string {
    return reportingRefusal(this.#context.bus, 'swap', input.session_id ?? null, () =>
      checkSwap(this.#context, model, input),
    );
  }
}

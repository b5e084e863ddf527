import type { EventBus, Logger, ProviderAdapter } from '@yourtool/core';
import type { AvailabilityTracker } from './availability.js';
import type { ModelRegistry } from './registry.js';
import { type TurnNeeds, turnNeeds } from './requirements.js';
import type { PatternRecommender, RouteInput } from './route-types.js';
import type { RoutingConfig } from './routing-config.js';

/** A failed capability detection, kept so a refusal names the real cause. */
export interface DetectionFailure {
  message: string;
  at: string;
}

/** What every part of the router works with: its options and the state shared across turns. */
export interface RouterContext {
  readonly registry: ModelRegistry;
  /** The current routing configuration (a hot-reloaded file returns its latest version). */
  readonly config: () => RoutingConfig;
  readonly availability: AvailabilityTracker | undefined;
  readonly recommender: PatternRecommender | undefined;
  readonly bus: EventBus | undefined;
  readonly logger: Logger;
  readonly explicitChoices: 'strict' | 'fall_through';
  /** Detections in flight, shared by concurrent `prepare()` calls. */
  readonly detecting: Map<string, Promise<void>>;
  /** The last failed detection of each model. */
  readonly detectionFailures: Map<string, DetectionFailure>;
  /** Compiled `message_matches` patterns, by pattern and flags. */
  readonly patterns: Map<string, RegExp | null>;
}

/** What one routing of a turn reads: its input, the configuration and needs it is judged on. */
export interface TurnFacts {
  readonly input: RouteInput;
  readonly config: RoutingConfig;
  readonly needs: TurnNeeds;
  /** An adapter's input estimate for this history, computed once per adapter. */
  readonly estimate: (adapter: ProviderAdapter) => number;
}

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

/** The facts of one turn, read once: the current configuration, the turn's needs, its estimates. */
export function turnFacts(context: RouterContext, input: RouteInput): TurnFacts {
  return {
    input,
    config: context.config(),
    needs: turnNeeds(input),
    // One estimate per adapter for this history, however many of its models are candidates.
    estimate: estimator(input),
  };
}

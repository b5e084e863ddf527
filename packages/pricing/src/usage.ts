import { type Logger, silentLogger, type Usage } from '@yourtool/core';
import { type CostOptions, computeCost, type TokenCounts } from './cost.js';
import { InvalidUsageError } from './errors.js';
import type { PriceTable } from './table.js';

/** Options of {@link buildUsage}. */
export interface BuildUsageOptions extends CostOptions {
  /** Canonical id of the model that produced the tokens. */
  model: string;
  /** The price table in force. */
  table: PriceTable;
  /** Wall-clock duration of the call in milliseconds (rounded to an integer). */
  latencyMs: number;
  /** Receives a WARN (`event: "usage_unpriced"`) when the model cannot be priced. */
  logger?: Logger;
}

/**
 * Turns an adapter's `TokenUsage` into the `Usage` recorded on an assistant message: the
 * counts, the exact cost and the `pricing_version` that produced it, and the latency. A model
 * the table cannot price gets `cost_usd: null` and `pricing_version: null` (the format's
 * explicit "unpriced") and a WARN on `logger`.
 */
export function buildUsage(
  tokens: TokenCounts & { estimated?: boolean | undefined },
  options: BuildUsageOptions,
): Usage {
  if (!Number.isFinite(options.latencyMs) || options.latencyMs < 0) {
    throw new InvalidUsageError(
      'latencyMs',
      `must be a non-negative number of milliseconds, got ${options.latencyMs}`,
    );
  }
  const cost = computeCost(tokens, options.model, options.table, options);
  if (!cost.priced) {
    (options.logger ?? silentLogger).warn(
      {
        event: 'usage_unpriced',
        model: options.model,
        reason: cost.reason,
        pricing_version: options.table.pricing_version,
      },
      `no price for ${options.model} in pricing ${options.table.pricing_version}: ${cost.detail}`,
    );
  }
  const usage: Usage = {
    input_tokens: tokens.input_tokens,
    output_tokens: tokens.output_tokens,
    cached_input_tokens: tokens.cached_input_tokens ?? 0,
    cache_creation_input_tokens: tokens.cache_creation_input_tokens ?? 0,
    cost_usd: cost.cost_usd,
    pricing_version: cost.pricing_version,
    latency_ms: Math.round(options.latencyMs),
  };
  if (tokens.estimated === true) usage.estimated = true;
  return usage;
}

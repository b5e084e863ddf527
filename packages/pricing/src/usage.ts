import { type Logger, silentLogger, type Usage } from '@yourtool/core';
import { type CostOptions, type CostResult, computeCost, type TokenCounts } from './cost.js';
import { DECIMAL_STRING } from './decimal.js';
import { InvalidUsageError } from './errors.js';
import { modelToPrice } from './model-to-price.js';
import { providerCostDiffers } from './reconcile.js';
import type { PriceTable } from './table.js';

/** What {@link buildUsage} reads from an adapter's usage: core's `TokenUsage` fits. */
export interface UsageTokens extends TokenCounts {
  /** The counts are local estimates (the provider sent none). */
  estimated?: boolean | undefined;
  /** Of `output_tokens`, how many were reasoning (informational; copied as is). */
  reasoning_tokens?: number | undefined;
  /** The provider's own cost figure as a decimal string (OpenRouter's `usage.cost`). */
  provider_cost_usd?: string | null | undefined;
}

/** Options of {@link buildUsage}. */
export interface BuildUsageOptions extends CostOptions {
  /** Canonical id of the model that was requested. */
  model: string;
  /**
   * Canonical id of the model that answered, when the provider named it (`served_model`). The
   * call is priced as this model when the table knows it, else as `model` (see
   * {@link modelToPrice}).
   */
  servedModel?: string | null | undefined;
  /** The price table in force. */
  table: PriceTable;
  /** Wall-clock duration of the call in milliseconds (rounded to an integer). */
  latencyMs: number;
  /**
   * Receives a WARN when the model cannot be priced (`usage_unpriced`), when the provider's own
   * cost differs from ours by more than 1% (`provider_cost_mismatch`), and when a figure that
   * cannot be stored is left out (`usage_field_dropped`).
   */
  logger?: Logger;
}

/**
 * Turns an adapter's `TokenUsage` into the `Usage` recorded on an assistant message: the
 * counts, the exact cost and the `pricing_version` that produced it, and the latency. A model
 * the table cannot price gets `cost_usd: null` and `pricing_version: null` (the format's
 * explicit "unpriced") and a WARN on `logger`. The call is priced as the served model when the
 * table knows it. `reasoning_tokens` and the provider's own cost (`provider_cost_usd`) are
 * kept beside ours; a provider cost more than 1% away from ours is a WARN, never a correction.
 */
export function buildUsage(tokens: UsageTokens, options: BuildUsageOptions): Usage {
  if (!Number.isFinite(options.latencyMs) || options.latencyMs < 0) {
    throw new InvalidUsageError(
      'latencyMs',
      `must be a non-negative number of milliseconds, got ${options.latencyMs}`,
    );
  }
  const logger = options.logger ?? silentLogger;
  const model = modelToPrice(options.table, options.model, options.servedModel);
  const cost = computeCost(tokens, model, options.table, options);
  if (!cost.priced) {
    logger.warn(
      {
        event: 'usage_unpriced',
        model,
        ...(options.servedModel ? { served_model: options.servedModel } : {}),
        reason: cost.reason,
        pricing_version: options.table.pricing_version,
      },
      `no price for ${model} in pricing ${options.table.pricing_version}: ${cost.detail}`,
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
  copyReasoningTokens(tokens, usage, logger);
  copyProviderCost(tokens, usage, cost, logger);
  if (tokens.estimated === true) usage.estimated = true;
  return usage;
}

function dropped(logger: Logger, field: string, value: unknown, reason: string): void {
  logger.warn(
    { event: 'usage_field_dropped', field, value: String(value), reason },
    `usage.${field} left out: ${reason}`,
  );
}

function copyReasoningTokens(tokens: UsageTokens, usage: Usage, logger: Logger): void {
  const value = tokens.reasoning_tokens;
  if (value === undefined) return;
  if (Number.isSafeInteger(value) && value >= 0) usage.reasoning_tokens = value;
  else dropped(logger, 'reasoning_tokens', value, 'not a non-negative integer token count');
}

/** Keeps the provider's figure beside ours and WARNs when the two differ by more than 1%. */
function copyProviderCost(
  tokens: UsageTokens,
  usage: Usage,
  cost: CostResult,
  logger: Logger,
): void {
  const theirs = tokens.provider_cost_usd;
  if (theirs === undefined) return;
  if (theirs === null) {
    usage.provider_cost_usd = null;
    return;
  }
  if (typeof theirs !== 'string' || !DECIMAL_STRING.test(theirs)) {
    dropped(logger, 'provider_cost_usd', theirs, 'not a decimal string such as "0.000654"');
    return;
  }
  usage.provider_cost_usd = theirs;
  if (cost.priced && providerCostDiffers(cost.cost_usd, theirs)) {
    logger.warn(
      {
        event: 'provider_cost_mismatch',
        model: cost.model,
        cost_usd: cost.cost_usd,
        provider_cost_usd: theirs,
        pricing_version: cost.pricing_version,
      },
      `${cost.model}: the provider says the call cost ${theirs} USD, pricing ${cost.pricing_version} says ${cost.cost_usd} USD (more than 1% apart)`,
    );
  }
}

import type { TokenUsage } from '@yourtool/core';
import { numberToDecimalString } from './decimal.js';

/** OpenRouter's usage object: OpenAI's counters plus cache writes and its cost figures. */
export interface OpenRouterUsageLike {
  prompt_tokens?: number | null;
  completion_tokens?: number | null;
  prompt_tokens_details?: {
    cached_tokens?: number | null;
    cache_write_tokens?: number | null;
  } | null;
  completion_tokens_details?: { reasoning_tokens?: number | null } | null;
  /** What the call cost in USD (credits); with BYOK only OpenRouter's fee. */
  cost?: number | null;
  /** The call ran on the user's own upstream key (bring your own key). */
  is_byok?: boolean | null;
  /** `upstream_inference_cost`: what the upstream charged, for BYOK calls. */
  cost_details?: Record<string, unknown> | null;
}

/**
 * OpenRouter's own figure for what the call cost, as a decimal string written digit for digit
 * as the number came (`provider_cost_usd`): `usage.cost`, or for a BYOK call, whose `cost` is
 * only OpenRouter's fee, the upstream's `cost_details.upstream_inference_cost` (what our price
 * table prices). `undefined` when the reply carries no such figure.
 */
export function openRouterProviderCost(
  usage: OpenRouterUsageLike | null | undefined,
): string | undefined {
  if (!usage) return undefined;
  const upstream = usage.cost_details?.upstream_inference_cost;
  const figure = usage.is_byok === true && typeof upstream === 'number' ? upstream : usage.cost;
  if (typeof figure !== 'number') return undefined;
  return numberToDecimalString(figure) ?? undefined;
}

/**
 * Maps OpenRouter usage to canonical token counts (decision 0030): `prompt_tokens` is the whole
 * input, so `input_tokens = prompt_tokens − cached_tokens − cache_write_tokens`, with
 * `cached_input_tokens = cached_tokens` and `cache_creation_input_tokens = cache_write_tokens`.
 * `completion_tokens_details.reasoning_tokens` becomes `reasoning_tokens` (still counted in
 * `output_tokens`), and OpenRouter's cost figure `provider_cost_usd` (see
 * {@link openRouterProviderCost}), kept beside the locally computed cost.
 */
export function mapOpenRouterUsage(usage: OpenRouterUsageLike): TokenUsage {
  const prompt = usage.prompt_tokens ?? 0;
  const cached = Math.min(prompt, usage.prompt_tokens_details?.cached_tokens ?? 0);
  const written = Math.min(prompt - cached, usage.prompt_tokens_details?.cache_write_tokens ?? 0);
  const reasoning = usage.completion_tokens_details?.reasoning_tokens;
  const providerCost = openRouterProviderCost(usage);
  return {
    input_tokens: prompt - cached - written,
    output_tokens: usage.completion_tokens ?? 0,
    cached_input_tokens: cached,
    cache_creation_input_tokens: written,
    // a count the canonical usage could not hold is left out rather than failing the call
    ...(Number.isSafeInteger(reasoning) && (reasoning as number) >= 0
      ? { reasoning_tokens: reasoning as number }
      : {}),
    ...(providerCost !== undefined ? { provider_cost_usd: providerCost } : {}),
  };
}

/**
 * What OpenRouter reports about cost, as it came, kept in `provider_raw` for reference. The
 * figure is also `usage.provider_cost_usd`; `cost_usd` is computed locally from the price table.
 */
export function openRouterCost(usage: OpenRouterUsageLike | null | undefined): {
  cost: number | null;
  is_byok: boolean | null;
  cost_details: Record<string, unknown> | null;
} {
  return {
    cost: typeof usage?.cost === 'number' ? usage.cost : null,
    is_byok: typeof usage?.is_byok === 'boolean' ? usage.is_byok : null,
    cost_details: usage?.cost_details ?? null,
  };
}

import type { Usage } from '@yourtool/core';
import { type TelemetryAttributes, YOURTOOL_ATTRIBUTES as YOURTOOL } from '@yourtool/core/adapter';
import { sumCosts } from '@yourtool/pricing';

/** The sum of one count over usages. */
export function sum(usages: readonly Usage[], pick: (u: Usage) => number): number {
  return usages.reduce((n, u) => n + pick(u), 0);
}

/** Input tokens as the conventions count them: cache reads and writes included. */
export function inputTokens(usage: Usage): number {
  return usage.input_tokens + usage.cached_input_tokens + usage.cache_creation_input_tokens;
}

/**
 * `yourtool.cost_usd` (the exact decimal string) and `yourtool.pricing_version`, or
 * `yourtool.unpriced` when any of the usages has no price (never counted as free).
 */
export function costAttributes(usages: readonly Usage[]): TelemetryAttributes {
  const costs = usages.map((u) => u.cost_usd);
  if (costs.includes(null)) return { [YOURTOOL.unpriced]: true };
  return {
    [YOURTOOL.costUsd]: sumCosts(costs as string[]),
    [YOURTOOL.pricingVersion]: usages.find((u) => u.pricing_version)?.pricing_version ?? undefined,
  };
}

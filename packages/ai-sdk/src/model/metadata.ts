import type { JSONObject, JSONValue } from '@ai-sdk/provider';
import type { TokenUsage } from '@yourtool/core';
import { computeCost, type PriceTable } from '@yourtool/pricing';
import { METADATA_KEY } from './prompt.js';

/** What a finished call reports besides content: the facts `providerMetadata.yourtool` carries. */
export interface CallFacts {
  request_id: string;
  model: string;
  usage: TokenUsage;
  served_model?: string | null;
  provider_response_id?: string | null;
  provider_raw?: Record<string, unknown> | null;
}

/**
 * The call's provider metadata under `yourtool`: request id, requested and served model, the
 * provider's response id, our round-trip data, and the cost when a price table was given.
 */
export function callMetadata(facts: CallFacts, prices?: PriceTable): Record<string, JSONObject> {
  const own: Record<string, JSONValue> = {
    request_id: facts.request_id,
    model: facts.model,
    served_model: facts.served_model ?? null,
    provider_response_id: facts.provider_response_id ?? null,
  };
  if (facts.provider_raw)
    own.provider_raw = JSON.parse(JSON.stringify(facts.provider_raw)) as JSONObject;
  if (prices) {
    const cost = computeCost(facts.usage, facts.model, prices);
    own.cost_usd = cost.cost_usd;
    own.pricing_version = cost.pricing_version;
  }
  return { [METADATA_KEY]: own };
}

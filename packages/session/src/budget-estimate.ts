import { usdToMicros } from '@yourtool/core';
import { type CacheWriteTtl, computeCost, type PriceTable } from '@yourtool/pricing';

/** What one model call may cost at most, for {@link estimateWorstCaseMicros}. */
export interface WorstCaseInput {
  /** The model as the price table knows it (`provider:model`). */
  model: string;
  /** Estimated input tokens of the request (system prompt, messages, tools). */
  inputTokens: number;
  /** `max_output_tokens` of the call. */
  maxOutputTokens: number;
  /** The thinking budget, in tokens, when thinking is on (billed as output). */
  thinkingTokens?: number;
  /** Whether prompt caching may write the prompt to the cache; its TTL decides the rate. */
  cacheWrite?: CacheWriteTtl | null;
}

/**
 * The worst-case cost of one model call in micro-dollars (decision 0181), or null when the
 * table cannot price the model. The prompt is priced at the long-context tier its size falls
 * in; with caching on, the whole prompt at the cache-write rate (the premium a write may add);
 * output at `max_output_tokens` plus the thinking budget, at that tier's output rate.
 */
export function estimateWorstCaseMicros(input: WorstCaseInput, table: PriceTable): bigint | null {
  const output = input.maxOutputTokens + (input.thinkingTokens ?? 0);
  const caching = input.cacheWrite != null;
  const cost = computeCost(
    {
      // cache writes are priced at or above plain input, so counting the whole prompt as
      // written bounds any split the provider may bill
      input_tokens: caching ? 0 : input.inputTokens,
      cache_creation_input_tokens: caching ? input.inputTokens : 0,
      output_tokens: output,
    },
    input.model,
    table,
    caching ? { cacheWriteTtl: input.cacheWrite as CacheWriteTtl } : {},
  );
  if (!cost.priced) return null;
  return usdToMicros(cost.cost_usd);
}

import type { TokenUsage } from '@yourtool/core';

/** The usage counters of a Gemini `usageMetadata`. */
export interface GeminiUsageLike {
  promptTokenCount?: number | null;
  candidatesTokenCount?: number | null;
  cachedContentTokenCount?: number | null;
  thoughtsTokenCount?: number | null;
  toolUsePromptTokenCount?: number | null;
}

/**
 * Maps Gemini usage to canonical token counts (the input buckets are disjoint, so
 * costs add up).
 * `promptTokenCount` includes the cached content, so `input_tokens` = prompt − cached (plus any
 * tool-use prompt tokens, billed as input); `cached_input_tokens` = `cachedContentTokenCount`.
 * `output_tokens` = candidates + thoughts: thinking is billed at the output rate. Gemini reports
 * no cache writes (explicit caches are billed by storage time): `cache_creation_input_tokens`
 * is 0. `reasoning_tokens` = `thoughtsTokenCount` when Gemini reports it: the part of
 * `output_tokens` that was thinking, informational only.
 */
export function mapGeminiUsage(usage: GeminiUsageLike | null | undefined): TokenUsage {
  const prompt = usage?.promptTokenCount ?? 0;
  const cached = Math.min(usage?.cachedContentTokenCount ?? 0, prompt);
  const thoughts = usage?.thoughtsTokenCount;
  return {
    input_tokens: prompt - cached + (usage?.toolUsePromptTokenCount ?? 0),
    output_tokens: (usage?.candidatesTokenCount ?? 0) + (thoughts ?? 0),
    cached_input_tokens: cached,
    cache_creation_input_tokens: 0,
    ...(typeof thoughts === 'number' ? { reasoning_tokens: thoughts } : {}),
  };
}

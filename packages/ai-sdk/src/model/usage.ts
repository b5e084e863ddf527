import type { LanguageModelV4FinishReason, LanguageModelV4Usage } from '@ai-sdk/provider';
import type { StopReason, TokenUsage } from '@yourtool/core';

/**
 * Canonical usage → the AI SDK's: our `input_tokens` excludes cache reads and writes (decision
 * 0015), so it is `noCache` and the total is the sum of the three.
 */
export function usageToAiSdk(usage: TokenUsage): LanguageModelV4Usage {
  const cacheRead = usage.cached_input_tokens ?? 0;
  const cacheWrite = usage.cache_creation_input_tokens ?? 0;
  const reasoning = usage.reasoning_tokens;
  return {
    inputTokens: {
      total: usage.input_tokens + cacheRead + cacheWrite,
      noCache: usage.input_tokens,
      cacheRead,
      cacheWrite,
    },
    outputTokens: {
      total: usage.output_tokens,
      text: reasoning === undefined ? undefined : usage.output_tokens - reasoning,
      reasoning,
    },
  };
}

/** Canonical stop reason → the AI SDK's finish reason (the canonical one kept as `raw`). */
export function finishReasonOf(stop: StopReason): LanguageModelV4FinishReason {
  const unified: Record<StopReason, LanguageModelV4FinishReason['unified']> = {
    end_turn: 'stop',
    stop_sequence: 'stop',
    max_tokens: 'length',
    tool_use: 'tool-calls',
    refusal: 'content-filter',
    cancelled: 'other',
    error: 'error',
  };
  return { unified: unified[stop] ?? 'other', raw: stop };
}

import type {
  LanguageModelV2,
  LanguageModelV2Usage,
  LanguageModelV3,
  LanguageModelV4,
  LanguageModelV4FinishReason,
  LanguageModelV4Usage,
} from '@ai-sdk/provider';
import type { StopReason, TokenUsage } from '@yourtool/core';

/** Any AI SDK language model this bridge calls: specification v2 (`ai` 5), v3 (`ai` 6) or v4 (`ai` 7). */
export type AnyLanguageModel = LanguageModelV2 | LanguageModelV3 | LanguageModelV4;

/** Usage as either specification reports it: v2 flat, v3 and v4 nested. */
export type AnyUsage = LanguageModelV2Usage | LanguageModelV4Usage;

function isFlat(usage: AnyUsage): usage is LanguageModelV2Usage {
  return typeof usage.inputTokens === 'number' || usage.inputTokens === undefined;
}

/**
 * The AI SDK's usage → canonical, whose three input counts are disjoint (decision 0015):
 * `input_tokens` is `noCache`, else the total less cache reads and writes. `null` when the
 * model reported no input or output count (core then estimates and flags it).
 */
export function usageFromAiSdk(usage: AnyUsage | undefined): TokenUsage | null {
  if (!usage) return null;
  if (isFlat(usage)) {
    if (usage.inputTokens === undefined || usage.outputTokens === undefined) return null;
    const cached = usage.cachedInputTokens ?? 0;
    return {
      input_tokens: Math.max(0, usage.inputTokens - cached),
      output_tokens: usage.outputTokens,
      cached_input_tokens: cached,
      cache_creation_input_tokens: 0,
      ...(usage.reasoningTokens === undefined ? {} : { reasoning_tokens: usage.reasoningTokens }),
    };
  }
  const input = usage.inputTokens;
  const output = usage.outputTokens;
  if (input.total === undefined || output.total === undefined) return null;
  const cacheRead = input.cacheRead ?? 0;
  const cacheWrite = input.cacheWrite ?? 0;
  return {
    input_tokens: input.noCache ?? Math.max(0, input.total - cacheRead - cacheWrite),
    output_tokens: output.total,
    cached_input_tokens: cacheRead,
    cache_creation_input_tokens: cacheWrite,
    ...(output.reasoning === undefined ? {} : { reasoning_tokens: output.reasoning }),
  };
}

/** The AI SDK's finish reason (v2 a string, v3/v4 `{ unified, raw }`) → canonical stop reason. */
export function stopReasonFromAiSdk(
  reason: LanguageModelV4FinishReason | string | undefined,
): StopReason {
  const unified = typeof reason === 'string' ? reason : reason?.unified;
  const raw = typeof reason === 'object' ? reason.raw : undefined;
  if (raw === 'stop_sequence') return 'stop_sequence';
  switch (unified) {
    case 'stop':
      return 'end_turn';
    case 'length':
      return 'max_tokens';
    case 'tool-calls':
      return 'tool_use';
    case 'content-filter':
      return 'refusal';
    case 'error':
      return 'error';
    default:
      return 'end_turn';
  }
}

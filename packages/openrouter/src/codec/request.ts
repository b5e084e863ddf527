import type { AdapterCapabilities, CanonicalRequest, Logger, ToolIdMap } from '@yourtool/core';
import type { HistoryMemo } from '@yourtool/core/adapter';
import { type OpenAIChatEncoding, toOpenAIChatParams } from '@yourtool/openai/codec';
import { encodeOpenRouterReasoning, OPENROUTER } from './reasoning.js';

/** OpenRouter's `reasoning` request parameter. */
export interface OpenRouterReasoningConfig {
  effort?: 'max' | 'xhigh' | 'high' | 'medium' | 'low' | 'minimal' | 'none';
  max_tokens?: number;
  exclude?: boolean;
  enabled?: boolean;
}

/** What the OpenRouter request codec needs besides the request. */
export interface ToOpenRouterOptions {
  /** OpenRouter model slug (`deepseek/deepseek-v3`). */
  wireName: string;
  capabilities: AdapterCapabilities;
  toolIdMap: ToolIdMap;
  logger?: Logger;
  /** The adapter's `HistoryMemo` for `prepareHistory` (decision 0165); none: prepared afresh. */
  historyMemo?: HistoryMemo;
  /** `emulated` for models whose upstream refuses stop sequences. Default `sent`. */
  stopSequences?: 'sent' | 'emulated';
  /** The `reasoning` parameter, if any. */
  reasoning?: OpenRouterReasoningConfig;
  /** OpenRouter's `provider` routing preferences, passed through as given. */
  providerPreferences?: Record<string, unknown>;
}

/** The encoding, plus the OpenRouter fields the openai SDK types do not know (`usage`, ...). */
export interface OpenRouterRequestEncoding extends OpenAIChatEncoding {
  extraBody: Record<string, unknown>;
}

/**
 * Encodes a canonical request for OpenRouter with the openai codec, differing where OpenRouter
 * does: `max_tokens` for the output limit; temperature always sent (OpenRouter ignores a
 * parameter a model does not support); thinking from the same model kept and sent back as
 * `reasoning_details` on its assistant message (decision 0045); `reasoning` and `provider`
 * request fields; `usage: { include: true }`, asking for OpenRouter's own cost figure.
 */
export function toOpenRouterParams(
  request: CanonicalRequest,
  options: ToOpenRouterOptions,
): OpenRouterRequestEncoding {
  const encoding = toOpenAIChatParams(request, {
    provider: OPENROUTER,
    wireName: options.wireName,
    capabilities: options.capabilities,
    toolIdMap: options.toolIdMap,
    ...(options.logger ? { logger: options.logger } : {}),
    maxTokensParam: 'max_tokens',
    temperatureRefusal: null,
    stopSequences: options.stopSequences ?? 'sent',
    keepThinking: (_block, message) =>
      options.capabilities.supports_thinking && message.metadata.model === request.model,
    encodeReasoning: encodeOpenRouterReasoning,
    ...(options.historyMemo ? { historyMemo: options.historyMemo } : {}),
  });
  // OpenRouter's usage accounting: its cost figure in every reply (usage.cost). The current API
  // always sends it and ignores the flag; it is sent for the deployments that still need it.
  const extraBody: Record<string, unknown> = { usage: { include: true } };
  if (options.reasoning) extraBody.reasoning = options.reasoning;
  if (options.providerPreferences) extraBody.provider = options.providerPreferences;
  return { ...encoding, extraBody };
}

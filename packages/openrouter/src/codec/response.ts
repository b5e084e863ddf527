import {
  type Logger,
  type StopReason,
  silentLogger,
  type TokenUsage,
  type ToolIdMap,
} from '@yourtool/core';
import {
  decodeOpenAIMessage,
  type FinishContext,
  mapOpenAIFinishReason,
  type OpenAIResponseDecoding,
} from '@yourtool/openai/codec';
import type OpenAI from 'openai';
import { decodeOpenRouterReasoning, OPENROUTER, type ReasoningDetailShape } from './reasoning.js';

/** OpenRouter's usage object: OpenAI's counters plus cache writes and its cost figures. */
export interface OpenRouterUsageLike {
  prompt_tokens?: number | null;
  completion_tokens?: number | null;
  prompt_tokens_details?: {
    cached_tokens?: number | null;
    cache_write_tokens?: number | null;
  } | null;
  completion_tokens_details?: { reasoning_tokens?: number | null } | null;
  cost?: number | null;
  is_byok?: boolean | null;
  cost_details?: Record<string, unknown> | null;
}

/**
 * Maps OpenRouter usage to canonical token counts (decision 0030): `prompt_tokens` is the whole
 * input, so `input_tokens = prompt_tokens − cached_tokens − cache_write_tokens`, with
 * `cached_input_tokens = cached_tokens` and `cache_creation_input_tokens = cache_write_tokens`.
 */
export function mapOpenRouterUsage(usage: OpenRouterUsageLike): TokenUsage {
  const prompt = usage.prompt_tokens ?? 0;
  const cached = Math.min(prompt, usage.prompt_tokens_details?.cached_tokens ?? 0);
  const written = Math.min(prompt - cached, usage.prompt_tokens_details?.cache_write_tokens ?? 0);
  return {
    input_tokens: prompt - cached - written,
    output_tokens: usage.completion_tokens ?? 0,
    cached_input_tokens: cached,
    cache_creation_input_tokens: written,
  };
}

/**
 * What OpenRouter reports about cost. Parsed and kept in `provider_raw` for reference only:
 * cost is computed locally from the price table, never taken from the provider.
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

/**
 * Maps OpenRouter's finish reasons. `native_finish_reason` (the upstream's own value) tells a
 * stop-sequence hit (`stop_sequence`) from a natural end (`end_turn`, `STOP`, ...), which the
 * normalized `stop` cannot; without it the openai mapping applies.
 */
export function mapOpenRouterFinishReason(
  finishReason: string | null,
  nativeFinishReason: string | null | undefined,
  context: FinishContext,
): StopReason {
  if (context.emulatedStopHit) return 'stop_sequence';
  if (finishReason === 'error') return 'error';
  if (finishReason === 'stop' && !context.hasToolCalls && nativeFinishReason) {
    if (nativeFinishReason === 'stop_sequence') return 'stop_sequence';
    return 'end_turn';
  }
  return mapOpenAIFinishReason(finishReason, context);
}

/** Round-trip data kept in `provider_raw.openrouter`. */
export interface OpenRouterRaw {
  id: string | null;
  model: string | null;
  provider: string | null;
  finish_reason: string | null;
  native_finish_reason: string | null;
  cost: number | null;
  is_byok: boolean | null;
  cost_details: Record<string, unknown> | null;
  reasoning_details?: ReasoningDetailShape[];
  stop_sequence?: string;
}

/** Options of {@link fromOpenRouterChatCompletion}. */
export interface FromOpenRouterOptions {
  logger?: Logger;
  stopSequencesSent?: boolean;
  emulatedStopSequences?: readonly string[];
}

type OpenRouterCompletion = OpenAI.ChatCompletion & { provider?: string };
type OpenRouterChoice = OpenAI.ChatCompletion.Choice & { native_finish_reason?: string | null };

/**
 * Decodes an OpenRouter reply: reasoning first (as thinking and redacted thinking), then text
 * and tool calls through the openai codec; usage with cache writes; the stop reason from the
 * native finish reason; upstream provider, cost figures and reasoning detail shapes in
 * `provider_raw`.
 */
export function fromOpenRouterChatCompletion(
  completion: OpenAI.ChatCompletion,
  toolIdMap: ToolIdMap,
  options: FromOpenRouterOptions = {},
): OpenAIResponseDecoding {
  const logger = options.logger ?? silentLogger;
  const choice = completion.choices[0] as OpenRouterChoice | undefined;
  const message = (choice?.message ?? {}) as OpenAI.ChatCompletionMessage & {
    reasoning?: unknown;
    reasoning_details?: unknown;
  };
  const reasoning = decodeOpenRouterReasoning(message, logger);
  const decoded = choice
    ? decodeOpenAIMessage(message, toolIdMap, {
        provider: OPENROUTER,
        logger,
        ...(options.emulatedStopSequences
          ? { emulatedStopSequences: options.emulatedStopSequences }
          : {}),
      })
    : { content: [], stopSequence: null };
  const content = [...reasoning.blocks, ...decoded.content];
  const usage = completion.usage as OpenRouterUsageLike | undefined;
  const finish = choice?.finish_reason ?? null;
  const raw: OpenRouterRaw = {
    id: completion.id ?? null,
    model: completion.model ?? null,
    provider: (completion as OpenRouterCompletion).provider ?? null,
    finish_reason: finish,
    native_finish_reason: choice?.native_finish_reason ?? null,
    ...openRouterCost(usage),
    ...(reasoning.shapes.length > 0 ? { reasoning_details: reasoning.shapes } : {}),
    ...(decoded.stopSequence ? { stop_sequence: decoded.stopSequence } : {}),
  };
  return {
    content,
    stop_reason: mapOpenRouterFinishReason(finish, raw.native_finish_reason, {
      hasToolCalls: content.some((b) => b.type === 'tool_use'),
      stopSequencesSent: options.stopSequencesSent ?? false,
      emulatedStopHit: decoded.stopSequence !== null,
    }),
    usage: usage ? mapOpenRouterUsage(usage) : null,
    provider_raw: { [OPENROUTER]: raw },
  };
}

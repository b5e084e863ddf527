import { type Logger, type StopReason, silentLogger, type ToolIdMap } from '@yourtool/core';
import {
  type DecodedOpenAIMessage,
  decodeOpenAIMessage,
  type FinishContext,
  mapOpenAIFinishReason,
  type OpenAIResponseDecoding,
  servedModelId,
} from '@yourtool/openai/codec';
import type OpenAI from 'openai';
import { decodeOpenRouterReasoning, OPENROUTER, type ReasoningDetailShape } from './reasoning.js';
import { mapOpenRouterUsage, type OpenRouterUsageLike, openRouterCost } from './usage.js';

/**
 * Maps OpenRouter's finish reasons. `native_finish_reason` (the upstream's own value) tells a
 * stop-sequence hit (`stop_sequence`) from a natural end (`end_turn`, `STOP`, ...), which the
 * normalized `stop` cannot, and a refusal: Anthropic's `refusal` (OpenRouter reports it as
 * `content_filter`, or `stop`), a reply carrying a `refusal` field, or a `content_filter` finish
 * (Gemini's safety stops) is `refusal` unless the reply calls tools. Otherwise the openai
 * mapping applies.
 */
export function mapOpenRouterFinishReason(
  finishReason: string | null,
  nativeFinishReason: string | null | undefined,
  context: FinishContext,
): StopReason {
  if (context.emulatedStopHit) return 'stop_sequence';
  if (finishReason === 'error') return 'error';
  if (!context.hasToolCalls && (context.refused || nativeFinishReason === 'refusal')) {
    return 'refusal';
  }
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
 * Decodes an OpenRouter reply: reasoning first (as thinking and redacted thinking), then the
 * content (a string or typed parts), refusal and tool calls through the openai codec; usage with
 * cache writes, reasoning tokens and OpenRouter's cost figure (`provider_cost_usd`); the stop
 * reason from the native finish reason; `served_model` from the reply's `model` (with the auto
 * router, the model that answered); upstream provider, cost figures and reasoning detail shapes
 * in `provider_raw`.
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
  const decoded: DecodedOpenAIMessage = choice
    ? decodeOpenAIMessage(message, toolIdMap, {
        provider: OPENROUTER,
        logger,
        ...(options.emulatedStopSequences
          ? { emulatedStopSequences: options.emulatedStopSequences }
          : {}),
      })
    : { content: [], stopSequence: null };
  const refusal = decoded.refusal ?? null;
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
      refused: refusal !== null,
    }),
    usage: usage ? mapOpenRouterUsage(usage) : null,
    provider_raw: { [OPENROUTER]: raw },
    ...(completion.id ? { provider_response_id: completion.id } : {}),
    served_model: servedModelId(OPENROUTER, completion.model),
    ...(refusal !== null ? { refusal } : {}),
  };
}

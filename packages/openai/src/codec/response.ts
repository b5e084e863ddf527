import type { ContentBlock, StopReason, TokenUsage, ToolIdMap } from '@yourtool/core';
import type OpenAI from 'openai';
import { type DecodeOpenAIMessageOptions, decodeOpenAIMessage } from './message.js';
import { OPENAI } from './request.js';

/** The usage counters of a Chat Completions usage object (OpenRouter adds more, ignored here). */
export interface OpenAIUsageLike {
  prompt_tokens?: number | null;
  completion_tokens?: number | null;
  prompt_tokens_details?: { cached_tokens?: number | null } | null;
  completion_tokens_details?: { reasoning_tokens?: number | null } | null;
}

/**
 * Maps Chat Completions usage to canonical token counts (decision 0030): `prompt_tokens`
 * includes the cached tokens, so `input_tokens = prompt_tokens − cached_tokens`,
 * `cached_input_tokens = cached_tokens`, and `cache_creation_input_tokens` is always 0 (OpenAI
 * does not report cache writes). `completion_tokens_details.reasoning_tokens` (OpenAI, DeepSeek)
 * becomes `reasoning_tokens` when the server reports it; they stay counted in `output_tokens`.
 */
export function mapOpenAIUsage(usage: OpenAIUsageLike): TokenUsage {
  const prompt = usage.prompt_tokens ?? 0;
  const cached = Math.min(prompt, usage.prompt_tokens_details?.cached_tokens ?? 0);
  const reasoning = usage.completion_tokens_details?.reasoning_tokens;
  return {
    input_tokens: prompt - cached,
    output_tokens: usage.completion_tokens ?? 0,
    cached_input_tokens: cached,
    cache_creation_input_tokens: 0,
    ...(typeof reasoning === 'number' ? { reasoning_tokens: reasoning } : {}),
  };
}

/**
 * The canonical id of the model a provider says answered: `<provider key>:<reported name>`, or
 * `null` when it named none. `provider` is the key of the requested canonical id.
 */
export function servedModelId(
  provider: string,
  reported: string | null | undefined,
): string | null {
  return reported ? `${provider}:${reported}` : null;
}

/** What decides the canonical stop reason besides the provider's `finish_reason`. */
export interface FinishContext {
  /** The reply holds tool calls (they must be answered, whatever the finish reason says). */
  hasToolCalls: boolean;
  /** Stop sequences went out in `stop`. */
  stopSequencesSent: boolean;
  /** The adapter cut the reply at an emulated stop sequence. */
  emulatedStopHit: boolean;
  /** The reply carried a `refusal` (the model declined). Default false. */
  refused?: boolean;
}

/**
 * Maps a Chat Completions `finish_reason` to the canonical stop reason: an emulated
 * stop-sequence hit → `stop_sequence`; a reply carrying a `refusal` without tool calls →
 * `refusal`, whatever the finish reason says (OpenAI reports a refusal with `stop`);
 * `length` → `max_tokens`; `tool_calls` (or any other reply holding tool calls) → `tool_use`;
 * `content_filter` → `refusal` (the provider's filter withheld the answer: a refusal-like stop,
 * as Gemini's safety finishes are); `stop` → `stop_sequence` when stop sequences were sent
 * (Chat Completions reports a natural end and a stop-sequence hit alike, decision 0042), else
 * `end_turn`; anything else → `end_turn` (the raw value is kept in `provider_raw`).
 */
export function mapOpenAIFinishReason(
  reason: string | null | undefined,
  context: FinishContext,
): StopReason {
  if (context.emulatedStopHit) return 'stop_sequence';
  if (context.refused && !context.hasToolCalls) return 'refusal';
  if (reason === 'length') return 'max_tokens';
  if (context.hasToolCalls) return 'tool_use';
  switch (reason) {
    case 'tool_calls':
    case 'function_call':
      return 'tool_use';
    case 'content_filter':
      return 'refusal';
    case 'stop':
      return context.stopSequencesSent ? 'stop_sequence' : 'end_turn';
    default:
      return 'end_turn';
  }
}

/** Round-trip data the adapter keeps in `provider_raw` for a reply. */
export function openAIProviderRaw(
  reply: {
    id?: string | null;
    model?: string | null;
    finish_reason?: string | null;
    service_tier?: string | null;
    stop_sequence?: string | null;
  },
  provider = OPENAI,
): Record<string, unknown> {
  return {
    [provider]: {
      id: reply.id ?? null,
      model: reply.model ?? null,
      finish_reason: reply.finish_reason ?? null,
      ...(reply.service_tier ? { service_tier: reply.service_tier } : {}),
      ...(reply.stop_sequence ? { stop_sequence: reply.stop_sequence } : {}),
    },
  };
}

/** A decoded Chat Completions reply. `usage` is `null` when the provider sent none. */
export interface OpenAIResponseDecoding {
  content: ContentBlock[];
  stop_reason: StopReason;
  usage: TokenUsage | null;
  provider_raw: Record<string, unknown>;
  /** The reply's id (`chatcmpl-...`, OpenRouter's `gen-...`), when it has one. */
  provider_response_id?: string | null;
  /** The model the reply says answered, as a canonical id ({@link servedModelId}). */
  served_model?: string | null;
  /** The provider's refusal explanation (also the reply's last text), when it sent one. */
  refusal?: string | null;
}

/** Options of {@link fromOpenAIChatCompletion}. */
export interface FromOpenAIChatCompletionOptions extends DecodeOpenAIMessageOptions {
  /** Stop sequences went out in `stop`. */
  stopSequencesSent?: boolean;
  /**
   * Provider key of the requested canonical model id, which `served_model` is named under.
   * Default `provider`.
   */
  modelProvider?: string;
}

/**
 * Decodes a whole Chat Completions reply (its first choice). A reply without choices is an
 * empty `end_turn`. `served_model` is the reply's `model` under the provider key; a `refusal`
 * is text in `content`, `refusal`, and stop reason `refusal` (unless the reply calls tools).
 */
export function fromOpenAIChatCompletion(
  completion: OpenAI.ChatCompletion,
  toolIdMap: ToolIdMap,
  options: FromOpenAIChatCompletionOptions = {},
): OpenAIResponseDecoding {
  const choice = completion.choices[0];
  const decoded = choice
    ? decodeOpenAIMessage(choice.message, toolIdMap, options)
    : { content: [], stopSequence: null };
  const finish = choice?.finish_reason ?? null;
  const refusal = decoded.refusal ?? null;
  const served = servedModelId(
    options.modelProvider ?? options.provider ?? OPENAI,
    completion.model,
  );
  return {
    content: decoded.content,
    stop_reason: mapOpenAIFinishReason(finish, {
      hasToolCalls: decoded.content.some((b) => b.type === 'tool_use'),
      stopSequencesSent: options.stopSequencesSent ?? false,
      emulatedStopHit: decoded.stopSequence !== null,
      refused: refusal !== null,
    }),
    usage: completion.usage ? mapOpenAIUsage(completion.usage) : null,
    provider_raw: openAIProviderRaw(
      {
        id: completion.id,
        model: completion.model,
        finish_reason: finish,
        service_tier: completion.service_tier ?? null,
        stop_sequence: decoded.stopSequence,
      },
      options.provider ?? OPENAI,
    ),
    ...(completion.id ? { provider_response_id: completion.id } : {}),
    ...(served !== null ? { served_model: served } : {}),
    ...(refusal !== null ? { refusal } : {}),
  };
}

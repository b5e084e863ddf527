import {
  type ContentBlock,
  type Logger,
  type StopReason,
  silentLogger,
  type TokenUsage,
  type ToolIdMap,
} from '@yourtool/core';
import type OpenAI from 'openai';
import { parseToolArguments } from '../codec/message.js';
import { OPENAI } from '../codec/request.js';
import { type OpenAIResponseDecoding, servedModelId } from '../codec/response.js';
import { cutAtStopSequence } from '../codec/stop-sequence.js';
import { type OpenAIResponsesFailureOptions, toOpenAIResponsesFailureError } from './errors.js';

/** The usage counters of a Responses usage object the mapper reads. */
export interface OpenAIResponsesUsageLike {
  input_tokens?: number | null;
  output_tokens?: number | null;
  input_tokens_details?: {
    cached_tokens?: number | null;
    cache_write_tokens?: number | null;
  } | null;
  output_tokens_details?: { reasoning_tokens?: number | null } | null;
}

/**
 * Maps Responses usage to canonical token counts (decisions 0015, 0030, 0128): `input_tokens`
 * includes the cached tokens, so `input_tokens = input_tokens − cached_tokens` and
 * `cached_input_tokens = cached_tokens`; cache writes (`cache_write_tokens`) cost nothing extra
 * at OpenAI and stay in `input_tokens` (`cache_creation_input_tokens` is 0, as for Chat
 * Completions); `output_tokens` includes the reasoning tokens, which are billed as output;
 * `output_tokens_details.reasoning_tokens` is also `reasoning_tokens`, when reported.
 */
export function mapOpenAIResponsesUsage(usage: OpenAIResponsesUsageLike): TokenUsage {
  const input = usage.input_tokens ?? 0;
  const cached = Math.min(input, usage.input_tokens_details?.cached_tokens ?? 0);
  const reasoning = usage.output_tokens_details?.reasoning_tokens;
  return {
    input_tokens: input - cached,
    output_tokens: usage.output_tokens ?? 0,
    cached_input_tokens: cached,
    cache_creation_input_tokens: 0,
    ...(typeof reasoning === 'number' ? { reasoning_tokens: reasoning } : {}),
  };
}

/** What decides the canonical stop reason besides the response's status. */
export interface ResponsesFinishContext {
  /** The reply holds function calls (they must be answered). */
  hasToolCalls: boolean;
  /** The adapter cut the reply at an emulated stop sequence. */
  emulatedStopHit: boolean;
  /** The reply holds a `refusal` content part (the model declined). Default false. */
  refused?: boolean;
}

/**
 * Maps a response's `status` and `incomplete_details.reason` to the canonical stop reason: an
 * emulated stop-sequence hit → `stop_sequence`; a reply holding a refusal and no function call →
 * `refusal`; `incomplete` for `max_output_tokens` → `max_tokens`; a reply holding function calls
 * → `tool_use`; `incomplete` for `content_filter` → `refusal` (the provider's filter withheld
 * the answer, as Chat Completions' `content_filter` finish); everything else (`completed`) →
 * `end_turn`, the raw values kept in `provider_raw`.
 */
export function mapOpenAIResponsesStopReason(
  status: string | null | undefined,
  incompleteReason: string | null | undefined,
  context: ResponsesFinishContext,
): StopReason {
  if (context.emulatedStopHit) return 'stop_sequence';
  if (context.refused && !context.hasToolCalls) return 'refusal';
  if (status === 'incomplete' && incompleteReason === 'max_output_tokens') return 'max_tokens';
  if (context.hasToolCalls) return 'tool_use';
  if (status === 'incomplete' && incompleteReason === 'content_filter') return 'refusal';
  return 'end_turn';
}

/** The summary text of a reasoning item: its summary parts joined with a blank line. */
export function reasoningSummaryText(
  item: Pick<OpenAI.Responses.ResponseReasoningItem, 'summary'>,
) {
  return (item.summary ?? []).map((part) => part.text).join('\n\n');
}

/**
 * The canonical block of a reasoning item (decision 0127): summary text with the encrypted
 * content as signature → `thinking`; encrypted content without a summary → `redacted_thinking`;
 * a summary without encrypted content → unsigned `thinking`; neither → nothing.
 */
export function decodeReasoningItem(
  item: Pick<OpenAI.Responses.ResponseReasoningItem, 'summary' | 'encrypted_content'>,
): ContentBlock | null {
  const text = reasoningSummaryText(item);
  const encrypted = item.encrypted_content ?? null;
  if (encrypted) {
    return text === ''
      ? { type: 'redacted_thinking', data: encrypted }
      : { type: 'thinking', text, signature: encrypted };
  }
  return text === '' ? null : { type: 'thinking', text };
}

/** The text of an output message: its `output_text` parts and refusals, in order. */
export function outputMessageText(item: OpenAI.Responses.ResponseOutputMessage): string {
  return (item.content ?? [])
    .map((part) => (part.type === 'output_text' ? part.text : part.refusal))
    .join('');
}

/** Options of {@link decodeOpenAIResponsesOutput}. */
export interface DecodeOpenAIResponsesOutputOptions {
  /** Provider key of the tool id map. Default `openai`. */
  provider?: string;
  logger?: Logger;
  /** Stop sequences the adapter emulates for this request. */
  emulatedStopSequences?: readonly string[];
}

/** Decoded output items, and the emulated stop sequence that cut them, if one did. */
export interface DecodedOpenAIResponsesOutput {
  content: ContentBlock[];
  stopSequence: string | null;
  /** The text of the messages' `refusal` parts (also in `content`), when there were any. */
  refusal?: string;
}

/** The `refusal` parts of an output message, joined (empty when it has none). */
export function outputMessageRefusal(item: OpenAI.Responses.ResponseOutputMessage): string {
  return (item.content ?? []).map((part) => (part.type === 'refusal' ? part.refusal : '')).join('');
}

/**
 * Decodes a response's `output` items in order: reasoning → thinking or redacted thinking
 * ({@link decodeReasoningItem}); a message → one text block, its `refusal` parts after its
 * text (kept as text so a replay shows what the assistant said, and returned as `refusal`); a
 * `function_call` → a tool use whose canonical id is
 * linked to its `call_id` in the map, `arguments` parsed. Items the canonical format has no
 * block for (built-in tool calls) are dropped with a WARN. With emulated stop sequences, text is
 * cut at the first one and everything after it is discarded, as a real stop would have.
 */
export function decodeOpenAIResponsesOutput(
  output: readonly OpenAI.Responses.ResponseOutputItem[],
  toolIdMap: ToolIdMap,
  options: DecodeOpenAIResponsesOutputOptions = {},
): DecodedOpenAIResponsesOutput {
  const provider = options.provider ?? OPENAI;
  const logger = options.logger ?? silentLogger;
  const stops = options.emulatedStopSequences ?? [];
  const content: ContentBlock[] = [];
  let refusal = '';
  for (const item of output) {
    switch (item.type) {
      case 'reasoning': {
        const block = decodeReasoningItem(item);
        if (block) content.push(block);
        break;
      }
      case 'message': {
        const text = (item.content ?? [])
          .map((part) => (part.type === 'output_text' ? part.text : ''))
          .join('');
        const cut = stops.length > 0 ? cutAtStopSequence(text, stops) : { text, matched: null };
        // a refusal after an emulated stop is discarded with everything else after it
        const refused = cut.matched === null ? outputMessageRefusal(item) : '';
        refusal += refused;
        if (cut.text + refused !== '') content.push({ type: 'text', text: cut.text + refused });
        if (cut.matched !== null) return withRefusal(content, cut.matched, refusal);
        break;
      }
      case 'function_call':
        content.push({
          type: 'tool_use',
          id: toolIdMap.toCanonical(provider, item.call_id),
          name: item.name,
          input: parseToolArguments(item.arguments, logger, {
            adapter: provider,
            tool_name: item.name,
          }),
        });
        break;
      default:
        logger.warn(
          {
            event: 'block_dropped',
            adapter: provider,
            block_type: item.type,
            reason: 'no canonical block for it',
          },
          `dropped a ${item.type} output item: the canonical format has no such block`,
        );
    }
  }
  return withRefusal(content, null, refusal);
}

function withRefusal(
  content: ContentBlock[],
  stopSequence: string | null,
  refusal: string,
): DecodedOpenAIResponsesOutput {
  return { content, stopSequence, ...(refusal !== '' ? { refusal } : {}) };
}

/** What a reply saw that ends up in `provider_raw.openai`. */
export interface OpenAIResponsesSummary {
  id: string | null;
  model: string | null;
  status: string | null;
  incomplete_reason: string | null;
  service_tier: string | null;
  stop_sequence: string | null;
  reasoning_tokens: number | null;
}

/**
 * Round-trip and diagnostic data kept in `provider_raw` for a reply: `{ openai: { api:
 * "responses", id, model, status, ... } }`. Reasoning token counts are kept here too (they are
 * part of `output_tokens`, and `usage.reasoning_tokens`).
 */
export function openAIResponsesProviderRaw(
  summary: OpenAIResponsesSummary,
  provider = OPENAI,
): Record<string, unknown> {
  return {
    [provider]: {
      api: 'responses',
      id: summary.id,
      model: summary.model,
      status: summary.status,
      ...(summary.incomplete_reason ? { incomplete_reason: summary.incomplete_reason } : {}),
      ...(summary.service_tier ? { service_tier: summary.service_tier } : {}),
      ...(summary.stop_sequence ? { stop_sequence: summary.stop_sequence } : {}),
      ...(summary.reasoning_tokens !== null ? { reasoning_tokens: summary.reasoning_tokens } : {}),
    },
  };
}

/** Options of {@link fromOpenAIResponse}. */
export interface FromOpenAIResponseOptions
  extends DecodeOpenAIResponsesOutputOptions,
    OpenAIResponsesFailureOptions {
  /** Request id for the error of a failed response. */
  requestId?: string;
  /**
   * Provider key of the requested canonical model id, which `served_model` is named under.
   * Default `provider`.
   */
  modelProvider?: string;
}

/**
 * Decodes a whole Responses reply. A response whose `status` is `failed` throws the
 * `AdapterError` its `error` maps to; `usage` is `null` when the provider sent none. An
 * `incomplete` reply is returned whatever it holds, even nothing but reasoning (a model that
 * spent `max_output_tokens` thinking). `served_model` is the response's `model` under the
 * provider key; a refusal is text, `refusal` and stop reason `refusal`.
 */
export function fromOpenAIResponse(
  response: OpenAI.Responses.Response,
  toolIdMap: ToolIdMap,
  options: FromOpenAIResponseOptions = {},
): OpenAIResponseDecoding {
  if (response.status === 'failed') {
    throw toOpenAIResponsesFailureError(response.error, options.requestId ?? '', options);
  }
  const decoded = decodeOpenAIResponsesOutput(response.output ?? [], toolIdMap, options);
  const incompleteReason = response.incomplete_details?.reason ?? null;
  const served = servedModelId(options.modelProvider ?? options.provider ?? OPENAI, response.model);
  return {
    content: decoded.content,
    stop_reason: mapOpenAIResponsesStopReason(response.status, incompleteReason, {
      hasToolCalls: decoded.content.some((b) => b.type === 'tool_use'),
      emulatedStopHit: decoded.stopSequence !== null,
      refused: decoded.refusal !== undefined,
    }),
    usage: response.usage ? mapOpenAIResponsesUsage(response.usage) : null,
    provider_raw: openAIResponsesProviderRaw(
      {
        id: response.id ?? null,
        model: response.model ?? null,
        status: response.status ?? null,
        incomplete_reason: incompleteReason,
        service_tier: response.service_tier ?? null,
        stop_sequence: decoded.stopSequence,
        reasoning_tokens: response.usage?.output_tokens_details?.reasoning_tokens ?? null,
      },
      options.provider ?? OPENAI,
    ),
    ...(response.id ? { provider_response_id: response.id } : {}),
    ...(served !== null ? { served_model: served } : {}),
    ...(decoded.refusal !== undefined ? { refusal: decoded.refusal } : {}),
  };
}

import {
  type ContentBlock,
  type Logger,
  type StreamEvent,
  silentLogger,
  type TokenUsage,
  type ToolIdMap,
} from '@yourtool/core';
import type { StreamBuilder } from '@yourtool/core/adapter';
import type OpenAI from 'openai';
import { parseToolArguments } from '../codec/message.js';
import { OPENAI } from '../codec/request.js';
import { servedModelId } from '../codec/response.js';
import { StopSequenceCutter } from '../codec/stop-sequence.js';
import { type OpenAIResponsesFailureOptions, toOpenAIResponsesFailureError } from './errors.js';
import {
  mapOpenAIResponsesStopReason,
  mapOpenAIResponsesUsage,
  type OpenAIResponsesSummary,
  openAIResponsesProviderRaw,
  reasoningSummaryText,
} from './response.js';

/** A Responses stream event as the SDK yields it. */
export type OpenAIResponsesStreamEvent = OpenAI.Responses.ResponseStreamEvent;

/** Options of {@link createOpenAIResponsesStreamMapper}. */
export interface OpenAIResponsesStreamMapperOptions extends OpenAIResponsesFailureOptions {
  /** Provider key of the tool id map and log entries. Default `openai`. */
  provider?: string;
  /**
   * Provider key of the requested canonical model id, which the served model (the response's
   * `model`) is named under. Default `provider`.
   */
  modelProvider?: string;
  toolIdMap: ToolIdMap;
  logger?: Logger;
  /** Request id for the error of a failed response. */
  requestId?: string;
  /** Stop sequences the mapper applies itself (the Responses API has no `stop`). */
  emulatedStopSequences?: readonly string[];
  /**
   * Counts to report when the final event carries no usage (flagged `estimated: true`, with a
   * WARN). Without it, such usage is all zeros, still flagged.
   */
  estimateUsage?: (content: ContentBlock[]) => Omit<TokenUsage, 'estimated'>;
  /**
   * Reads a called function's name back as canonical (a name the encoder derived for a tool
   * named outside the provider's rule, decision 0140). Default: the name as it came.
   */
  toolName?: (wireName: string) => string;
}

interface ItemState {
  type: string;
  key: string;
  /** A function call's block has started. */
  started?: boolean;
  /** Thinking text was emitted for a reasoning item. */
  thinking?: boolean;
  /** Text was emitted for a message item. */
  text?: boolean;
}

/**
 * A stateful mapper from Responses stream events to canonical events (one per stream):
 *
 * | Responses event | canonical |
 * |---|---|
 * | `response.created` (first event) | `message.start` (produced by the runtime) |
 * | `response.output_text.delta` | `text.delta` |
 * | `response.refusal.delta` | `text.delta`, collected as `message.complete.refusal`; stop `refusal` |
 * | `response.reasoning_summary_text.delta` | `thinking.delta` (parts of one item joined by a blank line) |
 * | `response.output_item.done` (reasoning) | the last `thinking.delta` carrying the encrypted content as `signature`, or a whole `redacted_thinking` block when the item has no summary |
 * | `response.output_item.added` (function_call) | `tool.use_start` with the canonical id of its `call_id` |
 * | `response.function_call_arguments.delta` | `tool.use_input_delta` with the raw fragment |
 * | `response.output_item.done` (function_call) | `tool.use_end` with the parsed `arguments` |
 * | `response.completed`, `response.incomplete` | `message.complete` with usage, stop reason and `served_model` (`<provider>:<model>`) |
 * | `response.failed`, `error` | throws the mapped `AdapterError` (the runtime ends the stream with `stop_reason: "error"`) |
 *
 * Blocks are keyed by `output_index`. Every event names its item, so argument fragments of two
 * function calls could interleave: the runtime creates the builder with `toolCallsEndAtFinish`,
 * which keeps a call open until its `output_item.done` and holds later blocks back meanwhile.
 * With emulated stop sequences, text goes through a {@link StopSequenceCutter} and everything
 * after a hit is discarded (a refusal is never cut, only discarded after a hit).
 */
export function createOpenAIResponsesStreamMapper(
  options: OpenAIResponsesStreamMapperOptions,
): (event: OpenAIResponsesStreamEvent, builder: StreamBuilder) => StreamEvent[] {
  const provider = options.provider ?? OPENAI;
  const modelProvider = options.modelProvider ?? provider;
  const logger = options.logger ?? silentLogger;
  let refused = false;
  const emulated = options.emulatedStopSequences ?? [];
  const cutter = emulated.length > 0 ? new StopSequenceCutter(emulated) : null;
  const items = new Map<number, ItemState>();
  const summary: OpenAIResponsesSummary = {
    id: null,
    model: null,
    status: null,
    incomplete_reason: null,
    service_tier: null,
    stop_sequence: null,
    reasoning_tokens: null,
  };
  const stopped = () => cutter?.matched != null;
  const text = (builder: StreamBuilder, key: string, piece: string): StreamEvent[] =>
    builder.text(key, cutter ? cutter.push(piece) : piece);
  let lastTextKey: string | null = null;
  const flushText = (builder: StreamBuilder): StreamEvent[] =>
    cutter && lastTextKey !== null ? builder.text(lastTextKey, cutter.flush()) : [];
  /** Refusal text of a message item: held-back text goes out first, the refusal uncut. */
  const refusal = (builder: StreamBuilder, state: ItemState, piece: string): StreamEvent[] => {
    if (piece === '') return [];
    refused = true;
    const events = flushText(builder);
    state.text = true;
    lastTextKey = state.key;
    return [...events, ...builder.refusal(state.key, piece)];
  };
  const noteModel = (builder: StreamBuilder, model: string | null | undefined): void => {
    if (!model) return;
    summary.model = model;
    builder.servedModel(servedModelId(modelProvider, model));
  };

  const stateOf = (index: number, type: string): ItemState => {
    let state = items.get(index);
    if (!state) {
      state = { type, key: `${type}:${index}` };
      items.set(index, state);
    }
    return state;
  };

  const startCall = (
    builder: StreamBuilder,
    state: ItemState,
    item: OpenAI.Responses.ResponseFunctionToolCall,
  ): StreamEvent[] => {
    state.started = true;
    return [
      ...flushText(builder),
      ...builder.toolStart(
        state.key,
        options.toolIdMap.toCanonical(provider, item.call_id),
        options.toolName ? options.toolName(item.name) : item.name,
      ),
    ];
  };

  const itemAdded = (
    builder: StreamBuilder,
    index: number,
    item: OpenAI.Responses.ResponseOutputItem,
  ): StreamEvent[] => {
    const state = stateOf(index, item.type);
    if (item.type !== 'function_call' || stopped()) return [];
    const events = startCall(builder, state, item);
    if (item.arguments) events.push(...builder.toolInput(state.key, item.arguments));
    return events;
  };

  const itemDone = (
    builder: StreamBuilder,
    index: number,
    item: OpenAI.Responses.ResponseOutputItem,
  ): StreamEvent[] => {
    const state = stateOf(index, item.type);
    if (stopped()) return [];
    switch (item.type) {
      case 'function_call': {
        const events = state.started ? [] : startCall(builder, state, item);
        const input = parseToolArguments(item.arguments, logger, {
          adapter: provider,
          tool_name: item.name,
        });
        return [...events, ...builder.toolEnd(state.key, input)];
      }
      case 'reasoning': {
        const encrypted = item.encrypted_content ?? null;
        const events: StreamEvent[] = [];
        if (!state.thinking) {
          // no summary deltas came: the item's own summary, if it has one
          const summaryText = reasoningSummaryText(item);
          if (summaryText !== '') {
            events.push(...builder.thinking(state.key, summaryText));
            state.thinking = true;
          }
        }
        if (encrypted && state.thinking) {
          events.push(...builder.thinking(state.key, '', encrypted));
        } else if (encrypted) {
          events.push(
            ...builder.wholeBlock(state.key, { type: 'redacted_thinking', data: encrypted }),
          );
        }
        return events;
      }
      case 'message': {
        // the item is over: text held back for a stop sequence is released
        if (state.text) return flushText(builder);
        // no text deltas came: the item's own parts
        const events: StreamEvent[] = [];
        for (const part of item.content ?? []) {
          if (stopped()) break;
          if (part.type === 'refusal') events.push(...refusal(builder, state, part.refusal));
          else if (part.text !== '') {
            state.text = true;
            lastTextKey = state.key;
            events.push(...text(builder, state.key, part.text));
          }
        }
        return [...events, ...(stopped() ? [] : flushText(builder))];
      }
      default:
        logger.warn(
          {
            event: 'block_dropped',
            adapter: provider,
            block_type: item.type,
            reason: 'no canonical block for it',
          },
          `dropped a streamed ${item.type} output item: the canonical format has no such block`,
        );
        return [];
    }
  };

  const complete = (builder: StreamBuilder, response: OpenAI.Responses.Response): StreamEvent[] => {
    const events = stopped() ? [] : flushText(builder);
    const content = builder.content();
    if (response.usage) builder.updateUsage(mapOpenAIResponsesUsage(response.usage));
    else {
      const estimate = options.estimateUsage?.(content) ?? {
        input_tokens: 0,
        output_tokens: 0,
        cached_input_tokens: 0,
        cache_creation_input_tokens: 0,
      };
      builder.updateUsage({ ...estimate, estimated: true });
      logger.warn(
        { event: 'usage_estimated', adapter: provider, response_id: summary.id },
        'the provider sent no usage for this stream; token counts are local estimates',
      );
    }
    summary.id = response.id ?? summary.id;
    builder.providerResponseId(summary.id);
    noteModel(builder, response.model);
    summary.status = response.status ?? null;
    summary.incomplete_reason = response.incomplete_details?.reason ?? null;
    summary.service_tier = response.service_tier ?? summary.service_tier;
    summary.stop_sequence = cutter?.matched ?? null;
    summary.reasoning_tokens = response.usage?.output_tokens_details?.reasoning_tokens ?? null;
    const stop = mapOpenAIResponsesStopReason(summary.status, summary.incomplete_reason, {
      hasToolCalls: builder.content().some((b) => b.type === 'tool_use'),
      emulatedStopHit: stopped(),
      refused,
    });
    return [...events, ...builder.complete(stop, openAIResponsesProviderRaw(summary, provider))];
  };

  return (event, builder) => {
    switch (event.type) {
      case 'response.created':
      case 'response.in_progress':
      case 'response.queued':
        summary.id ??= event.response.id ?? null;
        builder.providerResponseId(summary.id);
        if (summary.model === null) noteModel(builder, event.response.model);
        summary.service_tier ??= event.response.service_tier ?? null;
        return [];
      case 'response.output_item.added':
        return itemAdded(builder, event.output_index, event.item);
      case 'response.output_item.done':
        return itemDone(builder, event.output_index, event.item);
      case 'response.output_text.delta': {
        if (stopped()) return [];
        const state = stateOf(event.output_index, 'message');
        state.text = true;
        lastTextKey = state.key;
        return text(builder, state.key, event.delta);
      }
      case 'response.refusal.delta':
        return stopped()
          ? []
          : refusal(builder, stateOf(event.output_index, 'message'), event.delta);
      case 'response.reasoning_summary_part.added': {
        const state = stateOf(event.output_index, 'reasoning');
        // parts of one item form one thinking block, separated as in complete()
        return state.thinking && event.summary_index > 0 ? builder.thinking(state.key, '\n\n') : [];
      }
      case 'response.reasoning_summary_text.delta': {
        if (stopped() || event.delta === '') return [];
        const state = stateOf(event.output_index, 'reasoning');
        state.thinking = true;
        return [...flushText(builder), ...builder.thinking(state.key, event.delta)];
      }
      case 'response.function_call_arguments.delta': {
        if (stopped()) return [];
        const state = items.get(event.output_index);
        return state?.started ? builder.toolInput(state.key, event.delta) : [];
      }
      case 'response.completed':
      case 'response.incomplete':
        return complete(builder, event.response);
      case 'response.failed':
        throw toOpenAIResponsesFailureError(event.response.error, options.requestId ?? '', {
          provider,
          ...(options.secrets ? { secrets: options.secrets } : {}),
        });
      case 'error':
        throw toOpenAIResponsesFailureError(
          { code: event.code, message: event.message },
          options.requestId ?? '',
          { provider, ...(options.secrets ? { secrets: options.secrets } : {}) },
        );
      default:
        return [];
    }
  };
}

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
  const mapping = new ResponsesStreamMapping(options);
  return (event, builder) => mapping.map(event, builder);
}

/**
 * One stream's mapping state and steps (what {@link createOpenAIResponsesStreamMapper} returns
 * calls {@link map} per event). A class rather than closures so each step is a method of its own.
 */
class ResponsesStreamMapping {
  readonly #options: OpenAIResponsesStreamMapperOptions;
  readonly #provider: string;
  readonly #modelProvider: string;
  readonly #logger: Logger;
  readonly #cutter: StopSequenceCutter | null;
  readonly #items = new Map<number, ItemState>();
  readonly #summary: OpenAIResponsesSummary = {
    id: null,
    model: null,
    status: null,
    incomplete_reason: null,
    service_tier: null,
    stop_sequence: null,
    reasoning_tokens: null,
  };
  #refused = false;
  #lastTextKey: string | null = null;

  constructor(options: OpenAIResponsesStreamMapperOptions) {
    this.#options = options;
    this.#provider = options.provider ?? OPENAI;
    this.#modelProvider = options.modelProvider ?? this.#provider;
    this.#logger = options.logger ?? silentLogger;
    const emulated = options.emulatedStopSequences ?? [];
    this.#cutter = emulated.length > 0 ? new StopSequenceCutter(emulated) : null;
  }

  /** One event's canonical events. */
  map(event: OpenAIResponsesStreamEvent, builder: StreamBuilder): StreamEvent[] {
    switch (event.type) {
      case 'response.created':
      case 'response.in_progress':
      case 'response.queued':
        return this.#started(builder, event.response);
      case 'response.output_item.added':
        return this.#itemAdded(builder, event.output_index, event.item);
      case 'response.output_item.done':
        return this.#itemDone(builder, event.output_index, event.item);
      case 'response.output_text.delta': {
        if (this.#stopped()) return [];
        const state = this.#stateOf(event.output_index, 'message');
        state.text = true;
        this.#lastTextKey = state.key;
        return this.#text(builder, state.key, event.delta);
      }
      case 'response.refusal.delta':
        return this.#stopped()
          ? []
          : this.#refusal(builder, this.#stateOf(event.output_index, 'message'), event.delta);
      case 'response.reasoning_summary_part.added': {
        const state = this.#stateOf(event.output_index, 'reasoning');
        // parts of one item form one thinking block, separated as in complete()
        return state.thinking && event.summary_index > 0 ? builder.thinking(state.key, '\n\n') : [];
      }
      case 'response.reasoning_summary_text.delta': {
        if (this.#stopped() || event.delta === '') return [];
        const state = this.#stateOf(event.output_index, 'reasoning');
        state.thinking = true;
        return [...this.#flushText(builder), ...builder.thinking(state.key, event.delta)];
      }
      case 'response.function_call_arguments.delta': {
        if (this.#stopped()) return [];
        const state = this.#items.get(event.output_index);
        return state?.started ? builder.toolInput(state.key, event.delta) : [];
      }
      case 'response.completed':
      case 'response.incomplete':
        return this.#complete(builder, event.response);
      case 'response.failed':
        throw this.#failure(event.response.error);
      case 'error':
        throw this.#failure({ code: event.code, message: event.message });
      default:
        return [];
    }
  }

  /** The response's id, model and service tier, from the first events that carry them. */
  #started(builder: StreamBuilder, response: OpenAI.Responses.Response): StreamEvent[] {
    const summary = this.#summary;
    summary.id ??= response.id ?? null;
    builder.providerResponseId(summary.id);
    if (summary.model === null) this.#noteModel(builder, response.model);
    summary.service_tier ??= response.service_tier ?? null;
    return [];
  }

  /** The error a failed response (or an `error` event) stands for. */
  #failure(error: Parameters<typeof toOpenAIResponsesFailureError>[0]) {
    const options = this.#options;
    return toOpenAIResponsesFailureError(error, options.requestId ?? '', {
      provider: this.#provider,
      ...(options.secrets ? { secrets: options.secrets } : {}),
    });
  }

  #stopped(): boolean {
    return this.#cutter?.matched != null;
  }

  #text(builder: StreamBuilder, key: string, piece: string): StreamEvent[] {
    return builder.text(key, this.#cutter ? this.#cutter.push(piece) : piece);
  }

  #flushText(builder: StreamBuilder): StreamEvent[] {
    return this.#cutter && this.#lastTextKey !== null
      ? builder.text(this.#lastTextKey, this.#cutter.flush())
      : [];
  }

  /** Refusal text of a message item: held-back text goes out first, the refusal uncut. */
  #refusal(builder: StreamBuilder, state: ItemState, piece: string): StreamEvent[] {
    if (piece === '') return [];
    this.#refused = true;
    const events = this.#flushText(builder);
    state.text = true;
    this.#lastTextKey = state.key;
    return [...events, ...builder.refusal(state.key, piece)];
  }

  #noteModel(builder: StreamBuilder, model: string | null | undefined): void {
    if (!model) return;
    this.#summary.model = model;
    builder.servedModel(servedModelId(this.#modelProvider, model));
  }

  #stateOf(index: number, type: string): ItemState {
    let state = this.#items.get(index);
    if (!state) {
      state = { type, key: `${type}:${index}` };
      this.#items.set(index, state);
    }
    return state;
  }

  #startCall(
    builder: StreamBuilder,
    state: ItemState,
    item: OpenAI.Responses.ResponseFunctionToolCall,
  ): StreamEvent[] {
    const { toolIdMap, toolName } = this.#options;
    state.started = true;
    return [
      ...this.#flushText(builder),
      ...builder.toolStart(
        state.key,
        toolIdMap.toCanonical(this.#provider, item.call_id),
        toolName ? toolName(item.name) : item.name,
      ),
    ];
  }

  #itemAdded(
    builder: StreamBuilder,
    index: number,
    item: OpenAI.Responses.ResponseOutputItem,
  ): StreamEvent[] {
    const state = this.#stateOf(index, item.type);
    if (item.type !== 'function_call' || this.#stopped()) return [];
    const events = this.#startCall(builder, state, item);
    if (item.arguments) events.push(...builder.toolInput(state.key, item.arguments));
    return events;
  }

  #itemDone(
    builder: StreamBuilder,
    index: number,
    item: OpenAI.Responses.ResponseOutputItem,
  ): StreamEvent[] {
    const state = this.#stateOf(index, item.type);
    if (this.#stopped()) return [];
    switch (item.type) {
      case 'function_call': {
        const events = state.started ? [] : this.#startCall(builder, state, item);
        const input = parseToolArguments(item.arguments, this.#logger, {
          adapter: this.#provider,
          tool_name: item.name,
        });
        return [...events, ...builder.toolEnd(state.key, input)];
      }
      case 'reasoning':
        return this.#reasoningDone(builder, state, item);
      case 'message':
        return this.#messageDone(builder, state, item);
      default:
        this.#logger.warn(
          {
            event: 'block_dropped',
            adapter: this.#provider,
            block_type: item.type,
            reason: 'no canonical block for it',
          },
          `dropped a streamed ${item.type} output item: the canonical format has no such block`,
        );
        return [];
    }
  }

  /** A reasoning item is done: its summary if no deltas came, then its encrypted content. */
  #reasoningDone(
    builder: StreamBuilder,
    state: ItemState,
    item: OpenAI.Responses.ResponseReasoningItem,
  ): StreamEvent[] {
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
      events.push(...builder.wholeBlock(state.key, { type: 'redacted_thinking', data: encrypted }));
    }
    return events;
  }

  /** A message item is done: held-back text released, or its own parts if no deltas came. */
  #messageDone(
    builder: StreamBuilder,
    state: ItemState,
    item: OpenAI.Responses.ResponseOutputMessage,
  ): StreamEvent[] {
    // the item is over: text held back for a stop sequence is released
    if (state.text) return this.#flushText(builder);
    // no text deltas came: the item's own parts
    const events: StreamEvent[] = [];
    for (const part of item.content ?? []) {
      if (this.#stopped()) break;
      if (part.type === 'refusal') events.push(...this.#refusal(builder, state, part.refusal));
      else if (part.text !== '') {
        state.text = true;
        this.#lastTextKey = state.key;
        events.push(...this.#text(builder, state.key, part.text));
      }
    }
    return [...events, ...(this.#stopped() ? [] : this.#flushText(builder))];
  }

  #complete(builder: StreamBuilder, response: OpenAI.Responses.Response): StreamEvent[] {
    const summary = this.#summary;
    const events = this.#stopped() ? [] : this.#flushText(builder);
    const content = builder.content();
    if (response.usage) builder.updateUsage(mapOpenAIResponsesUsage(response.usage));
    else {
      const estimate = this.#options.estimateUsage?.(content) ?? {
        input_tokens: 0,
        output_tokens: 0,
        cached_input_tokens: 0,
        cache_creation_input_tokens: 0,
      };
      builder.updateUsage({ ...estimate, estimated: true });
      this.#logger.warn(
        { event: 'usage_estimated', adapter: this.#provider, response_id: summary.id },
        'the provider sent no usage for this stream; token counts are local estimates',
      );
    }
    summary.id = response.id ?? summary.id;
    builder.providerResponseId(summary.id);
    this.#noteModel(builder, response.model);
    summary.status = response.status ?? null;
    summary.incomplete_reason = response.incomplete_details?.reason ?? null;
    summary.service_tier = response.service_tier ?? summary.service_tier;
    summary.stop_sequence = this.#cutter?.matched ?? null;
    summary.reasoning_tokens = response.usage?.output_tokens_details?.reasoning_tokens ?? null;
    const stop = mapOpenAIResponsesStopReason(summary.status, summary.incomplete_reason, {
      hasToolCalls: builder.content().some((b) => b.type === 'tool_use'),
      emulatedStopHit: this.#stopped(),
      refused: this.#refused,
    });
    return [
      ...events,
      ...builder.complete(stop, openAIResponsesProviderRaw(summary, this.#provider)),
    ];
  }
}

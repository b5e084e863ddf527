import {
  type ContentBlock,
  type Logger,
  newToolUseId,
  type StopReason,
  type StreamBuilder,
  type StreamEvent,
  silentLogger,
  type TokenUsage,
  type ToolIdMap,
} from '@yourtool/core';
import type OpenAI from 'openai';
import { OPENAI } from './request.js';
import {
  type FinishContext,
  mapOpenAIFinishReason,
  mapOpenAIUsage,
  openAIProviderRaw,
  StopSequenceCutter,
} from './response.js';

/**
 * Marks the end of the provider's stream. The adapter appends it after the SDK's last chunk so
 * the mapper can complete a reply whose usage never came (a `[DONE]` without a usage chunk).
 */
export interface OpenAIStreamEnd {
  readonly stream_end: true;
}

/** The one {@link OpenAIStreamEnd} value. */
export const OPENAI_STREAM_END: OpenAIStreamEnd = Object.freeze({ stream_end: true });

/** What the stream mapper reads: SDK chunks, then the end marker. */
export type OpenAIStreamItem = OpenAI.ChatCompletionChunk | OpenAIStreamEnd;

/** What a stream saw that ends up in `provider_raw`. */
export interface OpenAIStreamSummary {
  id: string | null;
  model: string | null;
  finish_reason: string | null;
  service_tier: string | null;
  stop_sequence: string | null;
}

/** Options of {@link createOpenAIStreamMapper}. */
export interface OpenAIStreamMapperOptions {
  /** Provider key of the tool id map and log entries. Default `openai`. */
  provider?: string;
  toolIdMap: ToolIdMap;
  logger?: Logger;
  /** Stop sequences went out in `stop` (a `stop` finish is then a stop-sequence hit). */
  stopSequencesSent?: boolean;
  /** Stop sequences the mapper applies itself (the model refuses `stop`). */
  emulatedStopSequences?: readonly string[];
  /**
   * Counts to report when the provider sent no usage (flagged `estimated: true`, with a WARN).
   * Without it, such usage is all zeros, still flagged.
   */
  estimateUsage?: (content: ContentBlock[]) => Omit<TokenUsage, 'estimated'>;
  /**
   * Maps provider-specific fields of a delta (OpenRouter's reasoning) before its text and tool
   * calls, so those blocks come first.
   */
  onDelta?: (delta: Record<string, unknown>, builder: StreamBuilder) => StreamEvent[];
  /** Maps the usage object (default {@link mapOpenAIUsage}; OpenRouter also reports cache writes). */
  mapUsage?: (usage: OpenAI.CompletionUsage) => TokenUsage;
  /** Sees every chunk (OpenRouter reads its extra usage and routing fields). */
  onChunk?: (chunk: OpenAI.ChatCompletionChunk) => void;
  /** Maps the finish reason (default {@link mapOpenAIFinishReason}). */
  stopReason?: (
    finishReason: string | null,
    context: FinishContext,
    choice: Record<string, unknown> | null,
  ) => StopReason;
  /** Builds `provider_raw` (default {@link openAIProviderRaw}). */
  providerRaw?: (summary: OpenAIStreamSummary) => Record<string, unknown>;
}

interface ToolCallState {
  key: string;
  started: boolean;
  providerId: string | undefined;
  name: string | undefined;
  pending: string[];
}

/** Whether a stream item is the adapter's own {@link OPENAI_STREAM_END} marker. */
export const isOpenAIStreamEnd = (item: OpenAIStreamItem): item is OpenAIStreamEnd =>
  (item as OpenAIStreamEnd).stream_end === true;

/**
 * A stateful mapper from Chat Completions stream chunks to canonical events (one per stream),
 * following the contract's OpenAI table:
 *
 * | Chat Completions chunk | canonical |
 * |---|---|
 * | first chunk | `message.start` (produced by the runtime) |
 * | `delta.content`, `delta.refusal` | `text.delta` |
 * | `delta.tool_calls[i]` with its id and name | `tool.use_start` with a canonical id |
 * | `delta.tool_calls[i].function.arguments` | `tool.use_input_delta` with the raw fragment |
 * | `finish_reason` | `tool.use_end` for every call (parsed input) |
 * | the usage chunk (`choices: []`) | `message.complete` with that usage |
 *
 * Fragments are buffered per tool call index by core's `StreamBuilder`, which also ends a tool
 * call when the next one begins so indexes stay ordered. A stream that finishes but never sends
 * usage completes at its end with estimated usage (WARN). With emulated stop sequences, text is
 * passed through a {@link StopSequenceCutter} and everything after a hit is discarded.
 */
export function createOpenAIStreamMapper(
  options: OpenAIStreamMapperOptions,
): (item: OpenAIStreamItem, builder: StreamBuilder) => StreamEvent[] {
  const provider = options.provider ?? OPENAI;
  const logger = options.logger ?? silentLogger;
  const emulated = options.emulatedStopSequences ?? [];
  const cutter = emulated.length > 0 ? new StopSequenceCutter(emulated) : null;
  const tools = new Map<number, ToolCallState>();
  let finishReason: string | null = null;
  let finished = false;
  let usage: TokenUsage | null = null;
  let lastChoice: Record<string, unknown> | null = null;
  const summary: OpenAIStreamSummary = {
    id: null,
    model: null,
    finish_reason: null,
    service_tier: null,
    stop_sequence: null,
  };

  const text = (builder: StreamBuilder, piece: string): StreamEvent[] =>
    builder.text('text', cutter ? cutter.push(piece) : piece);
  const flushText = (builder: StreamBuilder): StreamEvent[] =>
    cutter ? builder.text('text', cutter.flush()) : [];
  const stopped = () => cutter?.matched != null;

  const startTool = (builder: StreamBuilder, state: ToolCallState): StreamEvent[] => {
    const canonical = state.providerId
      ? options.toolIdMap.toCanonical(provider, state.providerId)
      : newToolUseId();
    const events = [...flushText(builder), ...builder.toolStart(state.key, canonical, state.name!)];
    state.started = true;
    for (const fragment of state.pending) events.push(...builder.toolInput(state.key, fragment));
    state.pending = [];
    return events;
  };

  const toolDelta = (
    builder: StreamBuilder,
    call: OpenAI.ChatCompletionChunk.Choice.Delta.ToolCall,
  ): StreamEvent[] => {
    if (call.type === 'custom' || call.custom) {
      logger.warn(
        {
          event: 'block_dropped',
          adapter: provider,
          block_type: 'custom_tool_call',
          reason: 'no canonical block for it',
        },
        'dropped a streamed custom tool call: the canonical format has no such block',
      );
      return [];
    }
    const index = call.index ?? 0;
    let state = tools.get(index);
    if (!state) {
      state = {
        key: `tool:${index}`,
        started: false,
        providerId: undefined,
        name: undefined,
        pending: [],
      };
      tools.set(index, state);
    }
    if (call.id && !state.providerId) state.providerId = call.id;
    if (call.function?.name && !state.name) state.name = call.function.name;
    const fragment = call.function?.arguments ?? '';
    const events: StreamEvent[] = [];
    if (!state.started) {
      if (!state.name) {
        if (fragment !== '') state.pending.push(fragment);
        return events;
      }
      events.push(...startTool(builder, state));
    }
    if (fragment !== '') events.push(...builder.toolInput(state.key, fragment));
    return events;
  };

  const complete = (builder: StreamBuilder): StreamEvent[] => {
    const content = builder.content();
    if (usage) builder.updateUsage(usage);
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
    summary.finish_reason = finishReason;
    summary.stop_sequence = cutter?.matched ?? null;
    const context: FinishContext = {
      hasToolCalls: content.some((b) => b.type === 'tool_use'),
      stopSequencesSent: options.stopSequencesSent ?? false,
      emulatedStopHit: stopped(),
    };
    const stop = options.stopReason
      ? options.stopReason(finishReason, context, lastChoice)
      : mapOpenAIFinishReason(finishReason, context);
    return builder.complete(
      stop,
      options.providerRaw ? options.providerRaw(summary) : openAIProviderRaw(summary, provider),
    );
  };

  return (item, builder) => {
    if (isOpenAIStreamEnd(item)) return finished && !builder.finished ? complete(builder) : [];
    summary.id ??= item.id ?? null;
    summary.model ??= item.model ?? null;
    summary.service_tier ??= item.service_tier ?? null;
    options.onChunk?.(item);
    const events: StreamEvent[] = [];
    const choices = item.choices ?? [];
    const choice = choices.find((c) => c.index === 0) ?? choices[0];
    if (choice && !finished) {
      lastChoice = choice as unknown as Record<string, unknown>;
      const delta = (choice.delta ?? {}) as OpenAI.ChatCompletionChunk.Choice.Delta;
      if (!stopped()) {
        if (options.onDelta) {
          events.push(...options.onDelta(delta as Record<string, unknown>, builder));
        }
        const piece = `${delta.content ?? ''}${delta.refusal ?? ''}`;
        if (piece !== '') events.push(...text(builder, piece));
        for (const call of delta.tool_calls ?? []) {
          if (!stopped()) events.push(...toolDelta(builder, call));
        }
      }
      if (choice.finish_reason) {
        finishReason = choice.finish_reason;
        finished = true;
        if (!stopped()) events.push(...flushText(builder));
        for (const state of tools.values()) {
          if (state.started) events.push(...builder.toolEnd(state.key));
          else {
            logger.warn(
              {
                event: 'block_dropped',
                adapter: provider,
                block_type: 'tool_use',
                reason: 'the tool call never named its function',
              },
              'dropped a streamed tool call without a function name',
            );
          }
        }
      }
    }
    if (item.usage) usage = (options.mapUsage ?? mapOpenAIUsage)(item.usage);
    if (finished && usage && !builder.finished) events.push(...complete(builder));
    return events;
  };
}

/**
 * Appends {@link OPENAI_STREAM_END} to an SDK stream. Returning early (a cancelled call) closes
 * the SDK stream, which aborts its request.
 */
export async function* withStreamEnd(
  stream: AsyncIterable<OpenAI.ChatCompletionChunk>,
): AsyncGenerator<OpenAIStreamItem, void, undefined> {
  yield* stream;
  yield OPENAI_STREAM_END;
}

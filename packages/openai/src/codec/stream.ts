import {
  type ContentBlock,
  type Logger,
  type StopReason,
  type StreamEvent,
  silentLogger,
  type TokenUsage,
  type ToolIdMap,
} from '@yourtool/core';
import type { StreamBuilder } from '@yourtool/core/adapter';
import type OpenAI from 'openai';
import { OPENAI } from './request.js';
import {
  type FinishContext,
  mapOpenAIFinishReason,
  mapOpenAIUsage,
  openAIProviderRaw,
  servedModelId,
} from './response.js';
import { StreamedText } from './stream-text.js';
import { StreamedToolCalls } from './stream-tools.js';

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
  /**
   * Provider key of the requested canonical model id, which the served model (the chunks'
   * `model`) is named under. Default `provider`.
   */
  modelProvider?: string;
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
  /**
   * Reads a called function's name back as canonical (a name the encoder derived for a tool
   * named outside the provider's rule, decision 0140). Default: the name as it came.
   */
  toolName?: (wireName: string) => string;
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
 * | `delta.content` (a string, or text parts) | `text.delta` |
 * | `delta.content` thinking parts (Mistral Magistral) | `thinking.delta` (unsigned) |
 * | `delta.refusal` | `text.delta`, collected as `message.complete.refusal`; stop `refusal` |
 * | `delta.tool_calls[i]` with its id and name | `tool.use_start` with a canonical id |
 * | `delta.tool_calls[i].function.arguments` | `tool.use_input_delta` with the raw fragment |
 * | `finish_reason` | `tool.use_end` for every call, in index order (parsed input) |
 * | the usage chunk (`choices: []`) | `message.complete` with that usage |
 * | the chunks' `model` | `message.complete.served_model` (`<provider>:<model>`) |
 *
 * Chat Completions keys argument fragments by call index and may interleave the fragments of
 * parallel calls, so no call is done before `finish_reason`: the runtime must create the
 * builder with `toolCallsEndAtFinish` (core's `StreamBuilder` then keeps each call open, folds
 * late fragments into it, and holds later blocks back so indexes never decrease), and every
 * call ends at the finish, sorted by index. Other content parts are dropped with a WARN (once per
 * part type). A stream that finishes but never sends usage completes at its end with estimated
 * usage (WARN). With emulated stop sequences, text is passed through a
 * {@link StopSequenceCutter} and everything after a hit is discarded.
 */
export function createOpenAIStreamMapper(
  options: OpenAIStreamMapperOptions,
): (item: OpenAIStreamItem, builder: StreamBuilder) => StreamEvent[] {
  const provider = options.provider ?? OPENAI;
  const modelProvider = options.modelProvider ?? provider;
  const logger = options.logger ?? silentLogger;
  const text = new StreamedText(logger, provider, options.emulatedStopSequences ?? []);
  const tools = new StreamedToolCalls({
    provider,
    toolIdMap: options.toolIdMap,
    logger,
    beforeStart: (builder) => text.flush(builder),
    ...(options.toolName ? { toolName: options.toolName } : {}),
  });
  const run: MapperRun = {
    options,
    provider,
    logger,
    text,
    finishReason: null,
    usage: null,
    lastChoice: null,
    summary: {
      id: null,
      model: null,
      finish_reason: null,
      service_tier: null,
      stop_sequence: null,
    },
  };
  const { summary } = run;
  let finished = false;
  const complete = (builder: StreamBuilder) => completeStream(run, builder);

  return (item, builder) => {
    if (isOpenAIStreamEnd(item)) return finished && !builder.finished ? complete(builder) : [];
    summary.id ??= item.id ?? null;
    builder.providerResponseId(summary.id);
    // the first chunk that names a model (Azure's first chunk names none)
    if (summary.model === null && item.model) {
      summary.model = item.model;
      builder.servedModel(servedModelId(modelProvider, item.model));
    }
    summary.service_tier ??= item.service_tier ?? null;
    options.onChunk?.(item);
    const events: StreamEvent[] = [];
    const choices = item.choices ?? [];
    const choice = choices.find((c) => c.index === 0) ?? choices[0];
    if (choice && !finished) {
      run.lastChoice = choice as unknown as Record<string, unknown>;
      const delta = (choice.delta ?? {}) as OpenAI.ChatCompletionChunk.Choice.Delta;
      if (!text.stopped) {
        if (options.onDelta) {
          events.push(...options.onDelta(delta as Record<string, unknown>, builder));
        }
        events.push(...text.delta(builder, delta));
        for (const call of delta.tool_calls ?? []) {
          if (!text.stopped) events.push(...tools.delta(builder, call));
        }
      }
      if (choice.finish_reason) {
        run.finishReason = choice.finish_reason;
        finished = true;
        if (!text.stopped) events.push(...text.flush(builder));
        events.push(...tools.endAll(builder));
      }
    }
    if (item.usage) run.usage = (options.mapUsage ?? mapOpenAIUsage)(item.usage);
    if (finished && run.usage && !builder.finished) events.push(...complete(builder));
    return events;
  };
}

/** What one stream's mapper keeps between chunks, for {@link completeStream}. */
interface MapperRun {
  options: OpenAIStreamMapperOptions;
  provider: string;
  logger: Logger;
  text: StreamedText;
  finishReason: string | null;
  usage: TokenUsage | null;
  lastChoice: Record<string, unknown> | null;
  summary: OpenAIStreamSummary;
}

/** The stream's `message.complete`: its usage (estimated when none came) and stop reason. */
function completeStream(run: MapperRun, builder: StreamBuilder): StreamEvent[] {
  const { options, provider, text, summary } = run;
  const content = builder.content();
  builder.updateUsage(run.usage ?? estimated(run, content));
  summary.finish_reason = run.finishReason;
  summary.stop_sequence = text.stopSequence;
  const context: FinishContext = {
    hasToolCalls: content.some((b) => b.type === 'tool_use'),
    stopSequencesSent: options.stopSequencesSent ?? false,
    emulatedStopHit: text.stopped,
    refused: text.refused,
  };
  const stop = options.stopReason
    ? options.stopReason(run.finishReason, context, run.lastChoice)
    : mapOpenAIFinishReason(run.finishReason, context);
  return builder.complete(
    stop,
    options.providerRaw ? options.providerRaw(summary) : openAIProviderRaw(summary, provider),
  );
}

/** Usage for a stream that sent none: the caller's estimate (or zeros), flagged, with a WARN. */
function estimated(run: MapperRun, content: ContentBlock[]): TokenUsage {
  const estimate = run.options.estimateUsage?.(content) ?? {
    input_tokens: 0,
    output_tokens: 0,
    cached_input_tokens: 0,
    cache_creation_input_tokens: 0,
  };
  run.logger.warn(
    { event: 'usage_estimated', adapter: run.provider, response_id: run.summary.id },
    'the provider sent no usage for this stream; token counts are local estimates',
  );
  return { ...estimate, estimated: true };
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

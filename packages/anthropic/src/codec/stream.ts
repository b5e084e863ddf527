import type Anthropic from '@anthropic-ai/sdk';
import {
  type Logger,
  ServerError,
  type StreamEvent,
  silentLogger,
  type ToolIdMap,
} from '@yourtool/core';
import type { StreamBuilder } from '@yourtool/core/adapter';
import {
  anthropicCanonicalToolName,
  anthropicProviderKey,
  anthropicProviderRaw,
  anthropicServedModel,
  mapAnthropicStopReason,
  mapAnthropicUsage,
} from './response.js';

/**
 * A stateful mapper from Messages API stream events to canonical events (one per stream),
 * following the contract's Anthropic table:
 *
 * | Anthropic | canonical |
 * |---|---|
 * | `message_start` | usage so far, the served model (message.start is produced by the runtime) |
 * | `content_block_start` text / thinking | implicit |
 * | `content_block_start` tool_use | `tool.use_start` with a canonical id |
 * | `content_block_start` redacted_thinking | the block, whole, in `final_content` |
 * | `text_delta` / `thinking_delta` | `text.delta` / `thinking.delta` |
 * | `input_json_delta` | `tool.use_input_delta` with the raw `partial_json` |
 * | `signature_delta` | the last `thinking.delta`, carrying the signature |
 * | `content_block_stop` (tool_use) | `tool.use_end` with the parsed input |
 * | `message_delta` | stop reason (`refusal` included), stop details and usage, kept for the end |
 * | `message_stop` | `message.complete` |
 *
 * Pings never reach it (the SDK drops them); an `error` event surfaces as a thrown APIError. A
 * second `message_start` with another id before `message_stop` is a corrupt stream: it throws
 * `ServerError` (the runtime ends the stream with `stop_reason: "error"`). With `requestModel`
 * (the requested canonical id), the model `message_start` names becomes the served model; with
 * `toolNames` (core's `requestToolNames`), a tool name derived from one of them is read back as
 * it, so the caller only ever sees canonical names.
 */
export function createAnthropicStreamMapper(
  toolIdMap: ToolIdMap,
  logger: Logger = silentLogger,
  requestModel?: string,
  toolNames?: ReadonlySet<string>,
) {
  const state: StreamState = {
    toolIdMap,
    logger,
    requestModel,
    provider: anthropicProviderKey(requestModel),
    toolNames,
    toolBlocks: new Set(),
    ignored: new Set(),
    stopReason: null,
    stopSequence: null,
    stopDetails: null,
    messageId: null,
    model: null,
  };
  return (event: Anthropic.RawMessageStreamEvent, builder: StreamBuilder): StreamEvent[] => {
    switch (event.type) {
      case 'message_start':
        onMessageStart(state, event, builder);
        return [];
      case 'content_block_start':
        return onBlockStart(state, event, builder);
      case 'content_block_delta':
        return onBlockDelta(state, event, builder);
      case 'content_block_stop':
        return state.toolBlocks.has(event.index) ? builder.toolEnd(event.index) : [];
      case 'message_delta':
        onMessageDelta(state, event, builder);
        return [];
      case 'message_stop':
        return builder.complete(
          mapAnthropicStopReason(state.stopReason),
          anthropicProviderRaw({
            id: state.messageId,
            model: state.model,
            stop_reason: state.stopReason,
            stop_sequence: state.stopSequence,
            stop_details: state.stopDetails,
          }),
        );
      default:
        return [];
    }
  };
}

/** What one stream's mapper remembers between events. */
interface StreamState {
  readonly toolIdMap: ToolIdMap;
  readonly logger: Logger;
  readonly requestModel: string | undefined;
  /** The provider key tool ids are linked under (the requested model's). */
  readonly provider: string;
  readonly toolNames: ReadonlySet<string> | undefined;
  /** Indexes of tool use blocks (they end with `tool.use_end`). */
  readonly toolBlocks: Set<number>;
  /** Indexes of blocks dropped at their start (their deltas are ignored). */
  readonly ignored: Set<number>;
  stopReason: string | null;
  stopSequence: string | null;
  stopDetails: Anthropic.RefusalStopDetails | null;
  messageId: string | null;
  model: string | null;
}

/** `message_start`: the message id (a second one is a corrupt stream), served model, usage. */
function onMessageStart(
  state: StreamState,
  event: Anthropic.RawMessageStartEvent,
  builder: StreamBuilder,
): void {
  if (state.messageId !== null && event.message.id !== state.messageId) {
    // Seen in real traffic behind proxies: two replies on one stream. Merging them would
    // hand the caller one message holding both replies' blocks.
    throw new ServerError(
      `anthropic: a second message_start (${event.message.id}) arrived before message ${state.messageId} ended; the stream holds two replies`,
      { provider: state.provider, provider_message: 'second message_start in one stream' },
    );
  }
  state.messageId = event.message.id;
  builder.providerResponseId(event.message.id);
  state.model = event.message.model;
  if (state.requestModel !== undefined)
    builder.servedModel(anthropicServedModel(state.requestModel, event.message.model));
  builder.updateUsage(mapAnthropicUsage(event.message.usage));
}

/** `content_block_start`: opens the canonical block, or drops a block type it has none for. */
function onBlockStart(
  state: StreamState,
  event: Anthropic.RawContentBlockStartEvent,
  builder: StreamBuilder,
): StreamEvent[] {
  const block = event.content_block;
  switch (block.type) {
    case 'text':
      return builder.text(event.index, block.text);
    case 'thinking':
      return builder.thinking(event.index, block.thinking);
    case 'redacted_thinking':
      return builder.wholeBlock(event.index, { type: 'redacted_thinking', data: block.data });
    case 'tool_use':
      state.toolBlocks.add(event.index);
      return builder.toolStart(
        event.index,
        state.toolIdMap.toCanonical(state.provider, block.id),
        anthropicCanonicalToolName(block.name, state.toolNames),
      );
    default:
      state.ignored.add(event.index);
      state.logger.warn(
        {
          event: 'block_dropped',
          adapter: state.provider,
          block_type: block.type,
          reason: 'no canonical block for it',
        },
        `dropped a streamed ${block.type} block: the canonical format has no such block`,
      );
      return [];
  }
}

/** `content_block_delta`: text, thinking, a thinking signature or tool input JSON. */
function onBlockDelta(
  state: StreamState,
  event: Anthropic.RawContentBlockDeltaEvent,
  builder: StreamBuilder,
): StreamEvent[] {
  if (state.ignored.has(event.index)) return [];
  const delta = event.delta;
  switch (delta.type) {
    case 'text_delta':
      return builder.text(event.index, delta.text);
    case 'thinking_delta':
      return builder.thinking(event.index, delta.thinking);
    case 'signature_delta':
      return builder.thinking(event.index, '', delta.signature);
    case 'input_json_delta':
      return builder.toolInput(event.index, delta.partial_json);
    default:
      return [];
  }
}

/** `message_delta`: stop reason, stop sequence and details kept for the end; usage merged. */
function onMessageDelta(
  state: StreamState,
  event: Anthropic.RawMessageDeltaEvent,
  builder: StreamBuilder,
): void {
  state.stopReason = event.delta.stop_reason ?? state.stopReason;
  state.stopSequence = event.delta.stop_sequence ?? state.stopSequence;
  state.stopDetails = event.delta.stop_details ?? state.stopDetails;
  const u = event.usage;
  builder.updateUsage({
    output_tokens: u.output_tokens,
    ...(u.input_tokens == null ? {} : { input_tokens: u.input_tokens }),
    ...(u.cache_read_input_tokens == null
      ? {}
      : { cached_input_tokens: u.cache_read_input_tokens }),
    ...(u.cache_creation_input_tokens == null
      ? {}
      : { cache_creation_input_tokens: u.cache_creation_input_tokens }),
  });
}

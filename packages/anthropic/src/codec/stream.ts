import type Anthropic from '@anthropic-ai/sdk';
import {
  type Logger,
  ServerError,
  type StreamBuilder,
  type StreamEvent,
  silentLogger,
  type ToolIdMap,
} from '@yourtool/core';
import { ANTHROPIC } from './request.js';
import {
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
 * (the requested canonical id), the model `message_start` names becomes the served model.
 */
export function createAnthropicStreamMapper(
  toolIdMap: ToolIdMap,
  logger: Logger = silentLogger,
  requestModel?: string,
) {
  const toolBlocks = new Set<number>();
  const ignored = new Set<number>();
  let stopReason: string | null = null;
  let stopSequence: string | null = null;
  let stopDetails: Anthropic.RefusalStopDetails | null = null;
  let messageId: string | null = null;
  let model: string | null = null;

  return (event: Anthropic.RawMessageStreamEvent, builder: StreamBuilder): StreamEvent[] => {
    switch (event.type) {
      case 'message_start': {
        if (messageId !== null && event.message.id !== messageId) {
          // Seen in real traffic behind proxies: two replies on one stream. Merging them would
          // hand the caller one message holding both replies' blocks.
          throw new ServerError(
            `anthropic: a second message_start (${event.message.id}) arrived before message ${messageId} ended; the stream holds two replies`,
            { provider: ANTHROPIC, provider_message: 'second message_start in one stream' },
          );
        }
        messageId = event.message.id;
        model = event.message.model;
        if (requestModel !== undefined)
          builder.servedModel(anthropicServedModel(requestModel, event.message.model));
        const usage = mapAnthropicUsage(event.message.usage);
        builder.updateUsage(usage);
        return [];
      }
      case 'content_block_start': {
        const block = event.content_block;
        switch (block.type) {
          case 'text':
            return builder.text(event.index, block.text);
          case 'thinking':
            return builder.thinking(event.index, block.thinking);
          case 'redacted_thinking':
            return builder.wholeBlock(event.index, { type: 'redacted_thinking', data: block.data });
          case 'tool_use':
            toolBlocks.add(event.index);
            return builder.toolStart(
              event.index,
              toolIdMap.toCanonical(ANTHROPIC, block.id),
              block.name,
            );
          default:
            ignored.add(event.index);
            logger.warn(
              {
                event: 'block_dropped',
                adapter: ANTHROPIC,
                block_type: block.type,
                reason: 'no canonical block for it',
              },
              `dropped a streamed ${block.type} block: the canonical format has no such block`,
            );
            return [];
        }
      }
      case 'content_block_delta': {
        if (ignored.has(event.index)) return [];
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
      case 'content_block_stop':
        return toolBlocks.has(event.index) ? builder.toolEnd(event.index) : [];
      case 'message_delta': {
        stopReason = event.delta.stop_reason ?? stopReason;
        stopSequence = event.delta.stop_sequence ?? stopSequence;
        stopDetails = event.delta.stop_details ?? stopDetails;
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
        return [];
      }
      case 'message_stop':
        return builder.complete(
          mapAnthropicStopReason(stopReason),
          anthropicProviderRaw({
            id: messageId,
            model,
            stop_reason: stopReason,
            stop_sequence: stopSequence,
            stop_details: stopDetails,
          }),
        );
      default:
        return [];
    }
  };
}

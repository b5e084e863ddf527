import type { StreamEvent, ToolIdMap } from '@yourtool/core';
import type { StreamBuilder } from '@yourtool/core/adapter';
import {
  canonicalOllamaToolId,
  mapOllamaDoneReason,
  mapOllamaUsage,
  type OllamaChatResponseLike,
  type OllamaDecodeOptions,
  ollamaCanonicalToolName,
  ollamaProviderRaw,
  ollamaServedModel,
  ollamaToolArguments,
} from './response.js';

/**
 * A stateful mapper from `/api/chat` NDJSON chunks to canonical events (one per stream):
 *
 * | Ollama chunk | canonical |
 * |---|---|
 * | `model` (every chunk) | the served model, `<provider key of options.requestModel>:<model>` (message.start is produced by the runtime) |
 * | `message.thinking` | `thinking.delta` (no signature: Ollama does not sign thinking) |
 * | `message.content` | `text.delta` |
 * | each of `message.tool_calls` (sent whole) | `tool.use_start` (the name read back as canonical against `options.toolNames`), one `tool.use_input_delta` with the whole arguments JSON, `tool.use_end` with the arguments |
 * | `done: true` | usage from `prompt_eval_count` / `eval_count`, then `message.complete` |
 *
 * Within a chunk, thinking comes before content and content before tool calls, the order in
 * which Ollama's parsers release them. A `{"error": ...}` line is thrown by the ollama client
 * and ends the stream through the error contract.
 */
export function createOllamaStreamMapper(toolIdMap: ToolIdMap, options: OllamaDecodeOptions = {}) {
  let toolCalls = 0;
  // the served model of the last `model` seen (every chunk names it), computed when it changes
  let reported: string | undefined;
  let served: string | undefined;
  return (chunk: OllamaChatResponseLike, builder: StreamBuilder): StreamEvent[] => {
    if (chunk.model !== reported) {
      reported = chunk.model;
      served = ollamaServedModel(options.requestModel, reported);
    }
    builder.servedModel(served);
    const message = chunk.message;
    // the common chunk, one piece of text (or nothing): its events as the builder returns them
    if (!chunk.done && !message?.thinking && !message?.tool_calls?.length) {
      return message?.content ? builder.text('text', message.content) : [];
    }
    const events: StreamEvent[] = [];
    if (message?.thinking) events.push(...builder.thinking('thinking', message.thinking));
    if (message?.content) events.push(...builder.text('text', message.content));
    for (const call of message?.tool_calls ?? []) {
      const key = `tool-${toolCalls++}`;
      const input = ollamaToolArguments(call);
      events.push(
        ...builder.toolStart(
          key,
          canonicalOllamaToolId(call, toolIdMap),
          ollamaCanonicalToolName(call.function.name, options.toolNames),
        ),
        ...builder.toolInput(key, JSON.stringify(input)),
        ...builder.toolEnd(key, input),
      );
    }
    if (chunk.done) {
      builder.updateUsage(mapOllamaUsage(chunk, options));
      events.push(
        ...builder.complete(mapOllamaDoneReason(chunk.done_reason, toolCalls > 0), {
          ...ollamaProviderRaw(chunk),
        }),
      );
    }
    return events;
  };
}

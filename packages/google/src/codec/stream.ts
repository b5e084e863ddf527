import type { Logger, StreamEvent, ToolIdMap } from '@yourtool/core';
import type { StreamBuilder } from '@yourtool/core/adapter';
import { GeminiReplyAssembler, type GeminiResponseLike } from './response.js';

/** Options of {@link createGeminiStreamMapper}. */
export interface GeminiStreamOptions {
  /** Whether the request carried stop sequences (a `STOP` is then `stop_sequence`). */
  stopSequencesSent?: boolean;
  logger?: Logger;
  request_id?: string;
  /** The requested canonical model id: with the reply's `modelVersion`, the served model. */
  model?: string;
  /** The request's tool names: a derived name in a call is read back as canonical. */
  toolNames?: ReadonlySet<string>;
}

/**
 * A stateful mapper from `generateContentStream` chunks to canonical events (one per stream).
 * Each chunk holds the next parts of the reply; the chunk with a `finishReason` (and the final
 * `usageMetadata`) completes the message. See {@link GeminiReplyAssembler} for the part table.
 * A refusal (a safety-type finish, or a blocked prompt) completes the message with
 * `stop_reason: "refusal"`; a `LANGUAGE` stop before anything arrived throws
 * `InvalidRequestError` (the runtime then ends the stream with `stop_reason: "error"`).
 */
export function createGeminiStreamMapper(toolIdMap: ToolIdMap, options: GeminiStreamOptions = {}) {
  const assembler = new GeminiReplyAssembler(toolIdMap, options);
  return (chunk: GeminiResponseLike, builder: StreamBuilder): StreamEvent[] =>
    assembler.push(chunk, builder);
}

import type { ContentBlock, Message } from '@yourtool/core';
import type { BlockPart, MessageReply, ScriptedStopReason } from '@yourtool/wire-formats';
import {
  message,
  type ReplyPart,
  redactedThinking,
  stopReason,
  text,
  thinking,
  toolCall,
  usage,
} from './script.js';

/** Options of {@link scriptFromSession}. */
export interface SessionScriptOptions {
  /** Deltas each text, thinking and tool input is streamed in. Default 1. */
  chunks?: number;
  /**
   * Replay replies stored at `status: error` too. Default false: requests skip such rows, so a
   * replayed session would not have asked for them.
   */
  includeErrored?: boolean;
}

const REPLAYABLE_STOPS: ReadonlySet<string> = new Set([
  'end_turn',
  'tool_use',
  'max_tokens',
  'stop_sequence',
]);

function blockPart(block: ContentBlock, chunks: number): BlockPart | null {
  switch (block.type) {
    case 'text':
      return block.text === '' ? null : text(block.text, { chunks });
    case 'thinking':
      return thinking(block.text, {
        chunks,
        ...(block.signature ? { signature: block.signature } : {}),
      });
    case 'redacted_thinking':
      return redactedThinking(block.data);
    case 'tool_use':
      return toolCall(block.name, block.input, { chunks });
    case 'tool_result':
    case 'image':
      return null;
  }
}

function replyOf(stored: Message, chunks: number): MessageReply {
  const parts: ReplyPart[] = stored.content.flatMap((block) => blockPart(block, chunks) ?? []);
  const counts = stored.metadata.usage;
  if (counts) {
    parts.push(
      usage({
        input_tokens: counts.input_tokens,
        output_tokens: counts.output_tokens,
        cached_input_tokens: counts.cached_input_tokens,
        cache_creation_input_tokens: counts.cache_creation_input_tokens,
        ...(counts.reasoning_tokens !== undefined
          ? { reasoning_tokens: counts.reasoning_tokens }
          : {}),
      }),
    );
  }
  const stop = stored.metadata.stop_reason;
  if (stop && REPLAYABLE_STOPS.has(stop)) parts.push(stopReason(stop as ScriptedStopReason));
  return message(...parts);
}

/**
 * The assistant replies of a stored session as a script, in order: text, thinking (with its
 * signature), redacted thinking, tool calls (name and input; the wire ids are the provider's
 * new ones, as on any replay) and usage, so the same turns can be played again offline through
 * any wire format. Give it the messages a `SessionStore` loads:
 *
 * ```ts
 * const { messages } = await store.loadMessages(sessionId);
 * provider.enqueue(...scriptFromSession(messages));
 * ```
 *
 * Replies stored at `status: error` are left out unless `includeErrored`; a reply cancelled
 * mid-stream is replayed as far as it was stored.
 */
export function scriptFromSession(
  messages: readonly Message[],
  options: SessionScriptOptions = {},
): MessageReply[] {
  const chunks = options.chunks ?? 1;
  return messages
    .filter((m) => m.role === 'assistant')
    .filter((m) => options.includeErrored || m.metadata.status !== 'error')
    .map((m) => replyOf(m, chunks));
}

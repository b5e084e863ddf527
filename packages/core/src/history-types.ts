import type { Logger } from './logger.js';
import type { DroppedBlock } from './lossy.js';
import type { AdapterCapabilities } from './schemas/adapter.js';
import type { RedactedThinkingBlock, ThinkingBlock } from './schemas/content.js';
import type { Message } from './schemas/message.js';

// The shapes `prepareHistory` (history.ts) takes and gives, in a file of their own so its passes
// (history-pass.ts) can name them without importing the file that imports them.

/** The model a history is about to be sent to. */
export interface ReplayTarget {
  /** Adapter name, for log entries (`anthropic`, `openai`, ...). */
  adapter: string;
  /** Canonical id of the target model. */
  model: string;
  /** The target model's capabilities. */
  capabilities: AdapterCapabilities;
}

/** Options of {@link prepareHistory}. */
export interface PrepareHistoryOptions {
  /** The request's composed system prompt; goes first in the joined system text. */
  system_prompt?: string | null;
  /** Receives the WARN entries of dropped blocks and repairs. */
  logger?: Logger;
  /**
   * Whether a thinking or redacted thinking block may be sent back. Default: only to the model
   * that produced it (its message's `metadata.model` equals the target) and only when the
   * target supports thinking. Adapters narrow this (Anthropic also needs a signature).
   */
  keepThinking?: (block: ThinkingBlock | RedactedThinkingBlock, message: Message) => boolean;
  /** Whether `file_ref` images are kept (the adapter resolves them). Default: dropped. */
  keepFileRefImages?: boolean;
}

/** A change made to the history so the target accepts it, other than dropping a block. */
export interface HistoryRepair {
  kind:
    | 'synthetic_tool_result'
    | 'orphan_tool_result_dropped'
    | 'duplicate_tool_result_dropped'
    | 'tool_result_moved'
    | 'partial_message_skipped'
    | 'error_message_skipped'
    /** An adapter added a turn its provider requires (e.g. a leading user turn). */
    | 'turn_inserted';
  /** Session of the message repaired (empty when unknown). */
  session_id: string;
  /** The message repaired (or the one a repair was made next to). */
  message_id: string;
  /** The block type concerned: `tool_result` for tool result repairs, `message` for whole messages. */
  block_type: string;
  tool_use_id?: string;
  /** Why: what was wrong and what was done, for people. */
  detail: string;
}

/** A history ready for a codec to put on the wire. */
export interface PreparedHistory {
  /**
   * The request's system prompt followed by the text of every SYSTEM message, joined with a
   * blank line; `null` when there is none.
   */
  system: string | null;
  /**
   * USER, ASSISTANT and TOOL messages only. Every TOOL message holds exactly one tool result,
   * and the results of an assistant turn follow it directly, in the order of its tool uses.
   * No empty text, no message left without content.
   */
  messages: Message[];
  /** Blocks dropped because the target cannot take them (each also logged at WARN). */
  dropped: DroppedBlock[];
  /** Repairs made (each also logged at WARN). */
  repairs: HistoryRepair[];
}

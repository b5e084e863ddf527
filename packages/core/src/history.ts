import { type HistoryMemo, prepareRemembered } from './history-memo.js';
import { HistoryPass, isBlank } from './history-pass.js';
import type { Logger } from './logger.js';
import type { DroppedBlock } from './lossy.js';
import type { AdapterCapabilities } from './schemas/adapter.js';
import type { RedactedThinkingBlock, ThinkingBlock } from './schemas/content.js';
import type { Message } from './schemas/message.js';

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

export { HistoryMemo } from './history-memo.js';
export { MISSING_TOOL_RESULT_TEXT } from './history-pass.js';

/**
 * Normalizes a canonical history for one target model: the single place where cross-provider
 * replay rules live, so every adapter applies them the same way.
 *
 * - SYSTEM messages are hoisted into `system` (after `system_prompt`), joined with `\n\n`.
 * - Empty and whitespace-only text is removed; a message left empty is dropped.
 * - Thinking and redacted thinking go back only where `keepThinking` allows (default: the
 *   model that produced them); images only to a model that takes images of that media type;
 *   tool uses and results only to a model with tools. Everything dropped is logged at WARN
 *   (or fails the request when its message is marked critical).
 * - Tool results are paired with their tool uses: each result follows its assistant turn
 *   directly (moved there if it was elsewhere), one result per TOOL message; a tool use with no
 *   result gets an error result saying none was recorded; a result answering no tool use, or a
 *   second result for the same use, is dropped.
 * - Partial (still streaming) messages are skipped.
 *
 * With a `memo` (the caller's {@link HistoryMemo}, e.g. its adapter's), both passes over the
 * sealed messages the history starts with are remembered there, so a session's next request
 * takes and pairs only what is new; the result is the same without one.
 */
export function prepareHistory(
  messages: readonly Message[],
  target: ReplayTarget,
  options: PrepareHistoryOptions = {},
  memo?: HistoryMemo,
): PreparedHistory {
  const pass = new HistoryPass(target, options);
  // Both passes over the sealed messages the history starts with are remembered in the memo
  // (decision 0148): a session's request takes and pairs only what is new.
  let out = memo ? prepareRemembered(pass, messages, memo) : null;
  if (!out) {
    // Pass 1: filter blocks, hoist system text, collect tool results. Plain loops, and a
    // message whose blocks all stay is kept as the same object.
    for (let origin = 0; origin < messages.length; origin++) {
      pass.take(messages[origin] as Message, origin);
    }
    // Pass 2: pair each tool use with its result, right after the assistant turn.
    out = pass.paired(pass.resultsById());
  }
  if (out.length === 0) throw pass.nothingToSend(messages.length);
  const system =
    options.system_prompt && !isBlank(options.system_prompt) ? [options.system_prompt] : [];
  for (const part of pass.taken.systemParts) system.push(part);
  return {
    system: system.length > 0 ? system.join('\n\n') : null,
    messages: out,
    dropped: pass.taken.dropped,
    repairs: pass.taken.repairs,
  };
}

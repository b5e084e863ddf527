import { type HistoryMemo, prepareRemembered } from './history-memo.js';
import { HistoryPass, isBlank } from './history-pass.js';
import type { PreparedHistory, PrepareHistoryOptions, ReplayTarget } from './history-types.js';
import type { Message } from './schemas/message.js';

export { HistoryMemo } from './history-memo.js';
export { MISSING_TOOL_RESULT_TEXT } from './history-pass.js';
export type {
  HistoryRepair,
  PreparedHistory,
  PrepareHistoryOptions,
  ReplayTarget,
} from './history-types.js';

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

import type { HistoryRepair, PreparedHistory } from './history-types.js';

/** How a codec logs a WARN of its own: event name, reason for people, and structured fields. */
export type CodecWarn = (event: string, reason: string, fields: Record<string, unknown>) => void;

/**
 * Records the user turn a codec put before a history that began with the model's turn (its
 * provider requires a user turn first): the repair joins `prepared.repairs` and is logged as a
 * `history_repaired` WARN. `modelTurn` names the provider's turn for people (`assistant`, `model`).
 */
export function noteLeadingUserTurn(
  prepared: PreparedHistory,
  warn: CodecWarn,
  modelTurn: string,
): HistoryRepair {
  const first = prepared.messages[0];
  const repair: HistoryRepair = {
    kind: 'turn_inserted',
    session_id: first?.session_id ?? '',
    message_id: first?.id ?? '',
    block_type: 'message',
    detail: `the history starts with ${modelTurn === 'assistant' ? 'an' : 'a'} ${modelTurn} turn; added a user turn before it`,
  };
  prepared.repairs.push(repair);
  warn('history_repaired', repair.detail, { ...repair, reason: repair.detail });
  return repair;
}

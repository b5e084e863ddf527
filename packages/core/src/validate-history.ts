import { isUlid, timestampToEpochMicros } from './ids.js';
import type { Message } from './schemas/message.js';
import type { MessageViolation, ValidationResult } from './validation-rules.js';

/**
 * Checks a session's messages against each other: one session, creation order, unique tool use
 * ids, every tool result answering an earlier tool use at most once. (An unanswered tool use is
 * not a violation: the latest turn may still be running. Adapters repair it on replay.)
 */
export function validateHistory(messages: readonly Message[]): ValidationResult {
  const violations: MessageViolation[] = [];
  const toolUses = new Set<string>();
  const answered = new Set<string>();
  messages.forEach((message, index) => {
    const at = `messages[${index}]`;
    const first = messages[0];
    if (first && message.session_id !== first.session_id) {
      violations.push({
        rule: 'history-session',
        path: `${at}.session_id`,
        message: `"${message.session_id}" differs from the session "${first.session_id}"`,
      });
    }
    const previous = index > 0 ? messages[index - 1] : undefined;
    if (
      previous &&
      ((isUlid(message.id) && isUlid(previous.id) && message.id < previous.id) ||
        timestampToEpochMicros(message.created_at) < timestampToEpochMicros(previous.created_at))
    ) {
      violations.push({
        rule: 'history-order',
        path: at,
        message: `message ${message.id} sorts before the message preceding it (${previous.id})`,
      });
    }
    message.content.forEach((block, j) => {
      if (block.type === 'tool_use') {
        if (toolUses.has(block.id)) {
          violations.push({
            rule: 'tool-use-id-unique-history',
            path: `${at}.content[${j}].id`,
            message: `tool use id "${block.id}" was already used`,
          });
        }
        toolUses.add(block.id);
      } else if (block.type === 'tool_result') {
        if (!toolUses.has(block.tool_use_id)) {
          violations.push({
            rule: 'tool-result-has-use',
            path: `${at}.content[${j}].tool_use_id`,
            message: `no earlier tool use has id "${block.tool_use_id}"`,
          });
        } else if (answered.has(block.tool_use_id)) {
          violations.push({
            rule: 'tool-use-answered-once',
            path: `${at}.content[${j}].tool_use_id`,
            message: `tool use "${block.tool_use_id}" was already answered`,
          });
        }
        answered.add(block.tool_use_id);
      }
    });
  });
  return { ok: violations.length === 0, violations };
}

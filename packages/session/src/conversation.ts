import type { Message } from '@yourtool/core';
import { compactedConversation, compactionOf } from './compaction.js';

/**
 * The history without the attempts a fallback replaced: an assistant row with status `error`
 * followed (directly, or through other such rows) by an assistant row whose routing record has
 * `fallback_from`. Those rows stay stored, for the record and their cost, but are not replayed,
 * because the conversation went on with the fallback's reply (docs/decisions/0096).
 */
function withoutReplacedAttempts(messages: readonly Message[]): Message[] {
  const kept: Message[] = [];
  let replacing = false;
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i] as Message;
    const isAssistant = message.role === 'assistant';
    if (replacing && isAssistant && message.metadata.status === 'error') continue;
    if (compactionOf(message)) {
      // a summary stored between a failed attempt and its fallback does not end the pair
      kept.push(message);
      continue;
    }
    replacing = isAssistant && (message.metadata.routing?.fallback_from?.length ?? 0) > 0;
    kept.push(message);
  }
  return kept.reverse();
}

/** The conversation stored messages amount to: replaced attempts out, the latest compaction applied. */
export function conversationOf(messages: readonly Message[]): Message[] {
  return compactedConversation(withoutReplacedAttempts(messages));
}

/**
 * The conversation of `before.messages` followed by `added`, from the one kept for `before`:
 * extended by the conversation of `added` alone when that is what the whole would give (no
 * summary among them, and no failed attempt at the end of `before` that an added fallback
 * could replace), else computed over everything again.
 */
export function extendConversation(
  before: { messages: readonly Message[]; conversation: readonly Message[] },
  added: readonly Message[],
): Message[] {
  const last = before.messages.findLast((m) => !compactionOf(m));
  const openAttempt = last?.role === 'assistant' && last.metadata.status === 'error';
  if (openAttempt || added.some((m) => compactionOf(m))) {
    return conversationOf([...before.messages, ...added]);
  }
  return [...before.conversation, ...withoutReplacedAttempts(added)];
}

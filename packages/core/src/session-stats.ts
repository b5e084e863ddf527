import { sumDecimalStrings } from './decimal.js';
import type { Message } from './schemas/message.js';
import type { SessionStats } from './session-store.js';

/**
 * A session's figures ({@link SessionStats}) from its messages in order: the count, the model of
 * the newest assistant message, the exact sum of priced assistant messages' `cost_usd`, and how
 * many carried usage without a price. For stores without a cheaper `sessionStats`.
 */
export function sessionStatsOf(messages: readonly Message[]): SessionStats {
  const costs: string[] = [];
  let unpriced = 0;
  let lastModel: string | null = null;
  for (const message of messages) {
    // usage is on assistant messages, and on a session's compaction summaries (the summary call)
    if (message.role !== 'assistant' && !message.metadata.usage) continue;
    if (message.role === 'assistant' && message.metadata.model) lastModel = message.metadata.model;
    const usage = message.metadata.usage;
    if (!usage) continue;
    if (usage.cost_usd === null) unpriced++;
    else costs.push(usage.cost_usd);
  }
  return {
    message_count: messages.length,
    last_model: lastModel,
    total_cost_usd: sumDecimalStrings(costs),
    unpriced_messages: unpriced,
  };
}

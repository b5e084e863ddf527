import type { Message } from '@yourtool/core';

/** The status a new tool call of `message` starts in. */
export function toolCallStatusOf(message: Message): 'pending' | 'cancelled' {
  const status = message.metadata.status;
  return status === 'cancelled' || status === 'error' ? 'cancelled' : 'pending';
}

import { InvalidRequestError, type Message } from '@yourtool/core';

/**
 * The error every adapter raises when a history leaves nothing to send (core's
 * `prepareHistory` raises the same one): here, after the encoder itself removed what the wire
 * cannot carry (reasoning alone, with no text or tool call after it).
 */
export function nothingToSendError(
  target: { adapter: string; model: string },
  messages: readonly Message[],
  dropped: ReadonlyArray<{ block_type: string; message_id: string; reason: string }>,
): InvalidRequestError {
  const detail =
    dropped.length > 0
      ? ` (dropped: ${dropped
          .slice(0, 5)
          .map((d) => `${d.block_type} in ${d.message_id}: ${d.reason}`)
          .join('; ')}${dropped.length > 5 ? '; ...' : ''})`
      : '';
  return new InvalidRequestError(
    `nothing to send to ${target.model}: none of its ${messages.length} message(s) has content ${target.model} can take${detail}`,
    { provider: target.adapter, retryable: false },
  );
}

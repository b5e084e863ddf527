import { InvalidRequestError } from './errors.js';
import type { Logger } from './logger.js';
import type { Message } from './schemas/message.js';

/** What is logged when a block is dropped because the target cannot represent it. */
export interface DroppedBlock {
  session_id: string;
  message_id: string;
  /** The dropped block's `type` (or a description such as `image(file_ref)`). */
  block_type: string;
  /** The adapter (provider) the history was being projected onto. */
  adapter: string;
  /** Why the target cannot take the block. */
  reason: string;
  /** Position of the block in the message's content, when known. */
  block_index?: number;
}

/**
 * Thrown instead of dropping a block when the message is marked critical
 * (`metadata.critical: true`): the request fails rather than silently losing content.
 */
export class UnrepresentableContentError extends InvalidRequestError {
  /** The block that could not be represented. */
  readonly dropped: DroppedBlock;

  constructor(dropped: DroppedBlock) {
    super(
      `message ${dropped.message_id} is marked critical and its ${dropped.block_type} block ` +
        `cannot be sent to ${dropped.adapter}: ${dropped.reason}`,
      { provider: dropped.adapter },
    );
    this.dropped = dropped;
  }
}

/**
 * The lossy projection of canonical-format §7.3: a block the target provider cannot represent
 * is dropped with a WARN log entry (session_id, message_id, block type, adapter, reason), or,
 * when its message is marked critical, the request fails with
 * {@link UnrepresentableContentError}. Returns the record that was logged.
 */
export function reportDroppedBlock(
  logger: Logger,
  message: Pick<Message, 'id' | 'session_id' | 'metadata'>,
  details: { block_type: string; adapter: string; reason: string; block_index?: number },
): DroppedBlock {
  const dropped: DroppedBlock = {
    session_id: message.session_id,
    message_id: message.id,
    block_type: details.block_type,
    adapter: details.adapter,
    reason: details.reason,
    ...(details.block_index === undefined ? {} : { block_index: details.block_index }),
  };
  if (message.metadata.critical === true) throw new UnrepresentableContentError(dropped);
  logger.warn(
    { event: 'block_dropped', ...dropped },
    `dropped ${dropped.block_type} block for ${dropped.adapter}: ${dropped.reason}`,
  );
  return dropped;
}

import type { ToolResultBlock } from './schemas/content.js';
import type { Message } from './schemas/message.js';

/**
 * The TOOL message carrying `block`, the result for `toolUseId` found in `message`: the stored
 * message itself when it is one already (this one block, linked to the use), so a sealed
 * message stays sealed and adapters keep its wire form; else a copy shaped so.
 */
export function asToolReply(message: Message, block: ToolResultBlock, toolUseId: string): Message {
  if (
    message.role === 'tool' &&
    message.content.length === 1 &&
    message.content[0] === block &&
    message.metadata.parent_tool_use_id === toolUseId
  ) {
    return message;
  }
  return {
    ...message,
    role: 'tool',
    content: [block],
    metadata: { ...message.metadata, parent_tool_use_id: toolUseId },
  };
}

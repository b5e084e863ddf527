import type { Message } from '@yourtool/core';
import type { UiChunk } from './chunks.js';
import { toolResultOutput } from './tool-output.js';

/**
 * A stored assistant reply as one whole UI step: its text, reasoning and tool inputs at once
 * (what an instance that did not run the turn can show of it, read from the store).
 */
export function storedReplyChunks(message: Message, index: number): UiChunk[] {
  const chunks: UiChunk[] = [{ type: 'start-step' }];
  message.content.forEach((block, i) => {
    const id = `stored_${index}_${i}`;
    if (block.type === 'text' || (block.type === 'thinking' && block.text)) {
      const kind = block.type === 'text' ? 'text' : 'reasoning';
      chunks.push(
        { type: `${kind}-start`, id },
        { type: `${kind}-delta`, id, delta: block.text },
        { type: `${kind}-end`, id },
      );
    } else if (block.type === 'tool_use') {
      chunks.push(
        { type: 'tool-input-start', toolCallId: block.id, toolName: block.name, dynamic: true },
        {
          type: 'tool-input-available',
          toolCallId: block.id,
          toolName: block.name,
          input: block.input,
          dynamic: true,
        },
      );
    }
  });
  chunks.push({ type: 'finish-step' });
  return chunks;
}

/** A stored message's tool results as output chunks; `denied` tells a refused approval. */
export function storedResultChunks(message: Message, denied: ReadonlySet<string>): UiChunk[] {
  return message.content.flatMap((block): UiChunk[] => {
    if (block.type !== 'tool_result') return [];
    const id = block.tool_use_id;
    if (denied.has(id)) return [{ type: 'tool-output-denied', toolCallId: id }];
    const text = toolResultOutput(block);
    return block.is_error
      ? [{ type: 'tool-output-error', toolCallId: id, errorText: text, dynamic: true }]
      : [{ type: 'tool-output-available', toolCallId: id, output: text, dynamic: true }];
  });
}

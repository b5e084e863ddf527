import type { ToolResultBlock } from '@yourtool/core';

/** A stored tool result as the text a UI shows: its text blocks joined, images named. */
export function toolResultOutput(block: ToolResultBlock): string {
  return block.content
    .map((part) => (part.type === 'text' ? part.text : `[${part.type}]`))
    .join('\n');
}

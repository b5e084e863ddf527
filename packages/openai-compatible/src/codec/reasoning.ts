import type { ContentBlock, Message, StreamEvent, ThinkingBlock } from '@yourtool/core';
import type { StreamBuilder } from '@yourtool/core/adapter';
import type { ReasoningBlock } from '@yourtool/openai/codec';
import type { ReasoningField } from '../options.js';

/**
 * The reasoning text a message or delta carries in the configured field: `reasoning` or
 * `reasoning_content`; with `both`, `reasoning` when it holds text, else `reasoning_content`.
 * `null` when there is none (or the field is `none`).
 */
export function readReasoning(
  source: Record<string, unknown>,
  field: ReasoningField,
): string | null {
  const pick = (name: string): string | null => {
    const value = source[name];
    return typeof value === 'string' && value !== '' ? value : null;
  };
  switch (field) {
    case 'none':
      return null;
    case 'reasoning':
    case 'reasoning_content':
      return pick(field);
    case 'both':
      return pick('reasoning') ?? pick('reasoning_content');
  }
}

/** The wire field reasoning is sent back in (`both` writes `reasoning`); `null` for `none`. */
export function reasoningWriteField(
  field: ReasoningField,
): 'reasoning' | 'reasoning_content' | null {
  switch (field) {
    case 'none':
      return null;
    case 'both':
      return 'reasoning';
    default:
      return field;
  }
}

/**
 * Reasoning of a whole reply as canonical blocks: one unsigned thinking block (these servers
 * sign nothing), or none when the text is blank.
 */
export function decodeReasoning(
  message: Record<string, unknown>,
  field: ReasoningField,
): ContentBlock[] {
  const text = readReasoning(message, field);
  return text !== null && text.trim() !== '' ? [{ type: 'thinking', text }] : [];
}

/** Maps streamed reasoning deltas to `thinking.delta` events (one thinking block per reply). */
export function createReasoningDeltaMapper(
  field: ReasoningField,
): (delta: Record<string, unknown>, builder: StreamBuilder) => StreamEvent[] {
  return (delta, builder) => {
    const text = readReasoning(delta, field);
    return text === null ? [] : builder.thinking('reasoning', text);
  };
}

/**
 * Which thinking may go back to the server: unsigned thinking produced by the same model, only
 * when the deployment replays reasoning. Signed thinking came from elsewhere, and redacted
 * thinking has no text these servers could read.
 */
export function keepReplayableThinking(
  block: ThinkingBlock | ReasoningBlock,
  message: Message,
  model: string,
): boolean {
  return block.type === 'thinking' && !block.signature && message.metadata.model === model;
}

/** Puts kept thinking back on its assistant message, joined, in the deployment's field. */
export function encodeReasoningField(
  field: 'reasoning' | 'reasoning_content',
): (blocks: ReasoningBlock[]) => Record<string, unknown> {
  return (blocks) => ({
    [field]: blocks
      .flatMap((block) => (block.type === 'thinking' ? [block.text] : []))
      .join('\n\n'),
  });
}

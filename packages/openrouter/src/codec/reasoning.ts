import type { ContentBlock, Logger, Message, StreamEvent, ThinkingBlock } from '@yourtool/core';
import { silentLogger } from '@yourtool/core';
import type { StreamBuilder } from '@yourtool/core/adapter';
import type { ReasoningBlock } from '@yourtool/openai/codec';

/** The adapter name, which is also the provider key of OpenRouter models. */
export const OPENROUTER = 'openrouter';

/** One entry of OpenRouter's `reasoning_details` array. */
export interface OpenRouterReasoningDetail {
  type: string;
  text?: string | null;
  summary?: string | null;
  data?: string | null;
  signature?: string | null;
  id?: string | null;
  format?: string | null;
  index?: number | null;
}

/**
 * What is kept of each reasoning detail in `provider_raw.openrouter.reasoning_details` (its
 * content lives in the canonical block): enough to send the detail back in the form it came.
 */
export interface ReasoningDetailShape {
  type: string;
  id?: string | null;
  format?: string | null;
  index?: number | null;
}

const shape = (detail: OpenRouterReasoningDetail): ReasoningDetailShape => ({
  type: detail.type,
  ...(detail.id ? { id: detail.id } : {}),
  ...(detail.format ? { format: detail.format } : {}),
  ...(typeof detail.index === 'number' ? { index: detail.index } : {}),
});

function thinking(text: string, signature?: string | null): ThinkingBlock {
  return signature ? { type: 'thinking', text, signature } : { type: 'thinking', text };
}

/**
 * Maps OpenRouter reasoning to canonical blocks (decision 0045), in order:
 * `reasoning.text` → thinking (with its signature), `reasoning.summary` → thinking (unsigned),
 * `reasoning.encrypted` → redacted thinking. Without `reasoning_details`, a plain `reasoning`
 * string becomes one unsigned thinking block. Unknown detail types are dropped with a WARN.
 */
export function decodeOpenRouterReasoning(
  message: { reasoning?: unknown; reasoning_details?: unknown },
  logger: Logger = silentLogger,
): { blocks: ContentBlock[]; shapes: ReasoningDetailShape[] } {
  const blocks: ContentBlock[] = [];
  const shapes: ReasoningDetailShape[] = [];
  const details = Array.isArray(message.reasoning_details)
    ? (message.reasoning_details as OpenRouterReasoningDetail[])
    : [];
  if (details.length === 0) {
    if (typeof message.reasoning === 'string' && message.reasoning.trim() !== '') {
      blocks.push(thinking(message.reasoning));
      shapes.push({ type: 'reasoning.text' });
    }
    return { blocks, shapes };
  }
  for (const detail of details) {
    switch (detail.type) {
      case 'reasoning.text':
        blocks.push(thinking(detail.text ?? '', detail.signature));
        break;
      case 'reasoning.summary':
        blocks.push(thinking(detail.summary ?? ''));
        break;
      case 'reasoning.encrypted':
        if (!detail.data) continue;
        blocks.push({ type: 'redacted_thinking', data: detail.data });
        break;
      default:
        logger.warn(
          {
            event: 'block_dropped',
            adapter: OPENROUTER,
            block_type: detail.type,
            reason: 'no canonical block for this reasoning detail',
          },
          `dropped a ${detail.type} reasoning detail: the canonical format has no such block`,
        );
        continue;
    }
    shapes.push(shape(detail));
  }
  return { blocks, shapes };
}

function compatible(block: ReasoningBlock, detail: ReasoningDetailShape | undefined): boolean {
  if (!detail) return false;
  return block.type === 'redacted_thinking'
    ? detail.type === 'reasoning.encrypted'
    : detail.type === 'reasoning.text' || detail.type === 'reasoning.summary';
}

/**
 * Sends thinking blocks back to the model that produced them as `reasoning_details` on the
 * assistant message, unmodified and in order, as OpenRouter asks. The detail type, id and format
 * come from the reply's `provider_raw` when it matches the blocks; otherwise thinking goes back
 * as `reasoning.text` (with its signature) and redacted thinking as `reasoning.encrypted`.
 */
export function encodeOpenRouterReasoning(
  blocks: ReasoningBlock[],
  message: Message,
): { reasoning_details: OpenRouterReasoningDetail[] } {
  const raw = message.metadata.provider_raw?.[OPENROUTER] as
    | { reasoning_details?: ReasoningDetailShape[] }
    | undefined;
  const stored = Array.isArray(raw?.reasoning_details) ? raw.reasoning_details : [];
  const useStored =
    stored.length === blocks.length && blocks.every((b, i) => compatible(b, stored[i]));
  return {
    reasoning_details: blocks.map((block, i): OpenRouterReasoningDetail => {
      const known = useStored ? stored[i] : undefined;
      const meta = {
        ...(known?.id ? { id: known.id } : {}),
        ...(known?.format ? { format: known.format } : {}),
        index: typeof known?.index === 'number' ? known.index : i,
      };
      if (block.type === 'redacted_thinking') {
        return { type: 'reasoning.encrypted', data: block.data, ...meta };
      }
      if (known?.type === 'reasoning.summary') {
        return { type: 'reasoning.summary', summary: block.text, ...meta };
      }
      return {
        type: 'reasoning.text',
        text: block.text,
        ...(block.signature ? { signature: block.signature } : {}),
        ...meta,
      };
    }),
  };
}

/**
 * Maps streamed reasoning (`delta.reasoning_details`, or `delta.reasoning` when a model sends no
 * details) to `thinking.delta` events and whole redacted-thinking blocks. A detail's signature
 * rides on the last `thinking.delta` of its block. `shapes()` gives what `provider_raw` keeps.
 */
export function createOpenRouterReasoningMapper(logger: Logger = silentLogger): {
  onDelta: (delta: Record<string, unknown>, builder: StreamBuilder) => StreamEvent[];
  shapes: () => ReasoningDetailShape[];
} {
  const seen = new Map<number, ReasoningDetailShape>();
  const encrypted = new Set<number>();
  let sawDetails = false;
  let lastIndex = 0;
  return {
    shapes: () => [...seen.values()],
    onDelta: (delta, builder) => {
      const details = Array.isArray(delta.reasoning_details)
        ? (delta.reasoning_details as OpenRouterReasoningDetail[])
        : [];
      const events: StreamEvent[] = [];
      if (details.length === 0) {
        if (!sawDetails && typeof delta.reasoning === 'string' && delta.reasoning !== '') {
          if (!seen.has(-1)) seen.set(-1, { type: 'reasoning.text' });
          events.push(...builder.thinking('reasoning', delta.reasoning));
        }
        return events;
      }
      sawDetails = true;
      seen.delete(-1);
      for (const detail of details) {
        const index = typeof detail.index === 'number' ? detail.index : lastIndex;
        lastIndex = index;
        const key = `reasoning:${index}`;
        switch (detail.type) {
          case 'reasoning.text':
            events.push(...builder.thinking(key, detail.text ?? '', detail.signature ?? undefined));
            break;
          case 'reasoning.summary':
            events.push(...builder.thinking(key, detail.summary ?? ''));
            break;
          case 'reasoning.encrypted':
            if (!detail.data || encrypted.has(index)) continue;
            encrypted.add(index);
            events.push(
              ...builder.wholeBlock(key, { type: 'redacted_thinking', data: detail.data }),
            );
            break;
          default:
            logger.warn(
              {
                event: 'block_dropped',
                adapter: OPENROUTER,
                block_type: detail.type,
                reason: 'no canonical block for this reasoning detail',
              },
              `dropped a streamed ${detail.type} reasoning detail`,
            );
            continue;
        }
        if (!seen.has(index)) seen.set(index, shape({ ...detail, index }));
      }
      return events;
    },
  };
}

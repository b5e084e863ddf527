import type { LanguageModelV4StreamPart } from '@ai-sdk/provider';
import type { ContentBlock, StreamEvent } from '@yourtool/core';
import type { PriceTable } from '@yourtool/pricing';
import { callMetadata } from './metadata.js';
import { METADATA_KEY } from './prompt.js';
import type { ToolNameBridge } from './tool-names.js';
import { finishReasonOf, usageToAiSdk } from './usage.js';

type Part = LanguageModelV4StreamPart;

/**
 * Turns one canonical stream into AI SDK stream parts in the order the AI SDK requires:
 * `stream-start` first, every delta after its block's start, each block ended before the next
 * begins, exactly one `finish` last. A thinking block's signature rides on its `reasoning-end`.
 */
export class PartWriter {
  #open: { kind: 'text' | 'reasoning'; id: string; signature?: string } | null = null;
  #tools = new Map<string, string>();
  readonly #model: string;
  readonly #names: ToolNameBridge;
  readonly #prices: PriceTable | undefined;

  constructor(model: string, names: ToolNameBridge, prices?: PriceTable) {
    this.#model = model;
    this.#names = names;
    this.#prices = prices;
  }

  /** The parts for one canonical event. */
  write(event: StreamEvent): Part[] {
    switch (event.type) {
      case 'message.start':
        return [
          { type: 'stream-start', warnings: [] },
          { type: 'response-metadata', id: event.request_id, modelId: this.#model },
        ];
      case 'text.delta':
        return [
          ...this.#begin('text', event.content_block_index),
          { type: 'text-delta', id: String(event.content_block_index), delta: event.text },
        ];
      case 'thinking.delta': {
        const parts = this.#begin('reasoning', event.content_block_index);
        if (event.signature && this.#open) this.#open.signature = event.signature;
        parts.push({
          type: 'reasoning-delta',
          id: String(event.content_block_index),
          delta: event.text,
        });
        return parts;
      }
      case 'tool.use_start':
        this.#tools.set(event.tool_use_id, this.#names.aiSdk(event.tool_name));
        return [
          ...this.#close(),
          {
            type: 'tool-input-start',
            id: event.tool_use_id,
            toolName: this.#names.aiSdk(event.tool_name),
          },
        ];
      case 'tool.use_input_delta':
        return [{ type: 'tool-input-delta', id: event.tool_use_id, delta: event.partial_json }];
      case 'tool.use_end':
        return [
          { type: 'tool-input-end', id: event.tool_use_id },
          {
            type: 'tool-call',
            toolCallId: event.tool_use_id,
            toolName: this.#tools.get(event.tool_use_id) ?? '',
            input: JSON.stringify(event.final_input),
          },
        ];
      case 'message.complete':
        return [
          ...this.#close(),
          ...redactedParts(event.final_content),
          {
            type: 'finish',
            usage: usageToAiSdk(event.usage),
            finishReason: finishReasonOf(event.stop_reason),
            providerMetadata: callMetadata({ ...event, model: this.#model }, this.#prices),
          },
        ];
      default:
        return [];
    }
  }

  #begin(kind: 'text' | 'reasoning', index: number): Part[] {
    const id = String(index);
    if (this.#open?.id === id && this.#open.kind === kind) return [];
    const parts = this.#close();
    this.#open = { kind, id };
    parts.push(kind === 'text' ? { type: 'text-start', id } : { type: 'reasoning-start', id });
    return parts;
  }

  #close(): Part[] {
    const open = this.#open;
    this.#open = null;
    if (!open) return [];
    if (open.kind === 'text') return [{ type: 'text-end', id: open.id }];
    const providerMetadata = open.signature
      ? { [METADATA_KEY]: { signature: open.signature } }
      : undefined;
    return [
      { type: 'reasoning-end', id: open.id, ...(providerMetadata ? { providerMetadata } : {}) },
    ];
  }
}

/** Redacted thinking arrives only whole, in the final content: one empty reasoning part each. */
function redactedParts(content: readonly ContentBlock[]): Part[] {
  const parts: Part[] = [];
  content.forEach((block, index) => {
    if (block.type !== 'redacted_thinking') return;
    const id = `redacted-${index}`;
    parts.push(
      { type: 'reasoning-start', id },
      {
        type: 'reasoning-end',
        id,
        providerMetadata: { [METADATA_KEY]: { redactedData: block.data } },
      },
    );
  });
  return parts;
}

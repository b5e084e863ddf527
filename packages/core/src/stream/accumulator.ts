import { assertNever } from '../assert-never.js';
import type { StopReason, TokenUsage } from '../schemas/adapter.js';
import type { ContentBlock } from '../schemas/content.js';
import type { StreamEvent } from '../schemas/stream.js';
import { readToolInputJson } from './tool-input.js';

/** Parses accumulated tool input JSON; `{}` unless it parses cleanly to an object. */
export function parseToolInputJson(json: string): Record<string, unknown> {
  return readToolInputJson(json).input;
}

type Slot =
  | { kind: 'text'; text: string }
  | { kind: 'thinking'; text: string; signature: string | undefined }
  | {
      kind: 'tool_use';
      id: string;
      name: string;
      json: string;
      input: Record<string, unknown> | null;
    }
  | { kind: 'whole'; block: ContentBlock };

/**
 * Folds canonical stream events into content blocks: text and thinking deltas concatenate per
 * `content_block_index`, tool uses take `tool.use_end.final_input` (or, while still open, the
 * accumulated JSON if it parses, else `{}`). Block `i` of {@link content} is the block built by
 * the events with `content_block_index` `i`, when indexes are dense.
 */
export class StreamAccumulator {
  readonly #slots = new Map<number, Slot>();

  /** Applies one event. `message.start` and `message.complete` carry no content and are ignored. */
  push(event: StreamEvent): void {
    switch (event.type) {
      case 'text.delta': {
        const slot = this.#slots.get(event.content_block_index);
        if (slot?.kind === 'text') slot.text += event.text;
        else this.#slots.set(event.content_block_index, { kind: 'text', text: event.text });
        break;
      }
      case 'thinking.delta': {
        const slot = this.#slots.get(event.content_block_index);
        if (slot?.kind === 'thinking') {
          slot.text += event.text;
          if (event.signature !== undefined) slot.signature = event.signature;
        } else {
          this.#slots.set(event.content_block_index, {
            kind: 'thinking',
            text: event.text,
            signature: event.signature,
          });
        }
        break;
      }
      case 'tool.use_start':
        this.#slots.set(event.content_block_index, {
          kind: 'tool_use',
          id: event.tool_use_id,
          name: event.tool_name,
          json: '',
          input: null,
        });
        break;
      case 'tool.use_input_delta': {
        const slot = this.#slots.get(event.content_block_index);
        if (slot?.kind === 'tool_use') slot.json += event.partial_json;
        break;
      }
      case 'tool.use_end': {
        const slot = this.#slots.get(event.content_block_index);
        if (slot?.kind === 'tool_use') slot.input = event.final_input;
        break;
      }
      case 'message.start':
      case 'message.complete':
        break;
      default:
        assertNever(event, 'stream event');
    }
  }

  /** Places a block the provider sent whole (e.g. redacted thinking) at `index`. */
  setBlock(index: number, block: ContentBlock): void {
    this.#slots.set(index, { kind: 'whole', block });
  }

  /** Indexes of tool uses started but not yet ended, with their ids. */
  openToolUses(): Array<{ index: number; tool_use_id: string; json: string }> {
    const open: Array<{ index: number; tool_use_id: string; json: string }> = [];
    for (const [index, slot] of this.#sortedSlots()) {
      if (slot.kind === 'tool_use' && slot.input === null) {
        open.push({ index, tool_use_id: slot.id, json: slot.json });
      }
    }
    return open;
  }

  /** The content built so far, in index order. */
  content(): ContentBlock[] {
    return this.#sortedSlots().map(([, slot]) => {
      switch (slot.kind) {
        case 'text':
          return { type: 'text', text: slot.text };
        case 'thinking':
          return slot.signature === undefined
            ? { type: 'thinking', text: slot.text }
            : { type: 'thinking', text: slot.text, signature: slot.signature };
        case 'tool_use':
          return {
            type: 'tool_use',
            id: slot.id,
            name: slot.name,
            input: slot.input ?? parseToolInputJson(slot.json),
          };
        case 'whole':
          return slot.block;
        default:
          return assertNever(slot, 'stream slot');
      }
    });
  }

  #sortedSlots(): Array<[number, Slot]> {
    return [...this.#slots.entries()].sort((a, b) => a[0] - b[0]);
  }
}

/** What a finished stream amounts to. */
export interface CollectedStream {
  /** Every event, in order. */
  events: StreamEvent[];
  /** `message.complete.final_content`, or the folded deltas when the stream ended without it. */
  content: ContentBlock[];
  stop_reason: StopReason | null;
  usage: TokenUsage | null;
  /** The error the stream threw after (or instead of) `message.complete`, if any. */
  error: unknown;
}

/**
 * Drains a canonical stream and folds it. Never throws: an error thrown by the stream is
 * returned in `error`, after whatever the stream yielded first (error contract: a mid-stream
 * failure yields `message.complete` with `stop_reason: error`, then throws).
 */
export async function collectStream(
  stream: AsyncIterable<StreamEvent> | Iterable<StreamEvent>,
): Promise<CollectedStream> {
  const accumulator = new StreamAccumulator();
  const events: StreamEvent[] = [];
  let error: unknown;
  try {
    for await (const event of stream) {
      events.push(event);
      accumulator.push(event);
    }
  } catch (thrown) {
    error = thrown;
  }
  const complete = events.findLast((e) => e.type === 'message.complete');
  return {
    events,
    content: complete?.type === 'message.complete' ? complete.final_content : accumulator.content(),
    stop_reason: complete?.type === 'message.complete' ? complete.stop_reason : null,
    usage: complete?.type === 'message.complete' ? complete.usage : null,
    error,
  };
}

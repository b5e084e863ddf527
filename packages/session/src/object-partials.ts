import {
  type ParsedOutputText,
  PartialJsonParser,
  type StreamEvent,
  type StructuredOutputPlan,
} from '@yourtool/core';
import { needsObjectWrapper, OUTPUT_WRAPPER_KEY } from '@yourtool/core/adapter';
import type { SessionEvent } from './events.js';

/** The `object.partial` session event. */
export type ObjectPartialEvent = Extract<SessionEvent, { type: 'object.partial' }>;

/**
 * The partial objects of one call's stream: the reply's text deltas (native structured output)
 * or the output tool's input deltas (the forced-tool fallback) fed to one
 * {@link PartialJsonParser}, which keeps its state between deltas, so each delta is read once.
 * Each such delta becomes one `object.partial` event, in its place (decision 0176).
 */
export class ObjectPartials {
  readonly #parser = new PartialJsonParser();
  readonly #plan: StructuredOutputPlan;
  /** Whether the tool's input wraps a non-object schema's value as `{ value }`. */
  readonly #wrapped: boolean;
  readonly #where: { step: number; attempt: number; model: string };
  /** The content block of the output tool's call, once it started. */
  #toolBlock: number | null = null;
  /** The value the last event carried. */
  #value: unknown;
  /** How many characters of JSON text were fed. */
  #length = 0;

  constructor(
    plan: StructuredOutputPlan,
    jsonSchema: Readonly<Record<string, unknown>>,
    where: { step: number; attempt: number; model: string },
  ) {
    this.#plan = plan;
    this.#wrapped = plan.mode === 'tool' && needsObjectWrapper(jsonSchema);
    this.#where = where;
  }

  /** The `object.partial` event that replaces a delta of the object's JSON; null for others. */
  take(event: StreamEvent): ObjectPartialEvent | null {
    const text = this.#jsonDelta(event);
    if (text === null) return null;
    this.#length += text.length;
    if (this.#parser.feed(text)) this.#value = this.#unwrapped(this.#parser.value);
    const { step, attempt, model } = this.#where;
    return { type: 'object.partial', step, attempt, model, text, value: this.#value };
  }

  /**
   * The JSON the stream gave, parsed, when it was read whole: reading the reply then need not
   * parse it again. Null when the text is not (yet) one whole JSON value.
   */
  parsed(): ParsedOutputText | null {
    if (!this.#parser.complete || this.#parser.error) return null;
    return { length: this.#length, value: this.#parser.value };
  }

  /** A wrapped value's content; undefined while the wrapper's key has not begun. */
  #unwrapped(value: unknown): unknown {
    if (!this.#wrapped) return value;
    if (value === null || typeof value !== 'object' || !Object.hasOwn(value, OUTPUT_WRAPPER_KEY)) {
      return undefined;
    }
    return (value as Record<string, unknown>)[OUTPUT_WRAPPER_KEY];
  }

  #jsonDelta(event: StreamEvent): string | null {
    if (this.#plan.mode === 'native') return event.type === 'text.delta' ? event.text : null;
    if (event.type === 'tool.use_start' && event.tool_name === this.#plan.toolName) {
      this.#toolBlock = event.content_block_index;
      return null;
    }
    if (event.type === 'tool.use_input_delta' && event.content_block_index === this.#toolBlock) {
      return event.partial_json;
    }
    return null;
  }
}

import { PartialJsonParser, type StreamEvent, type StructuredOutputPlan } from '@yourtool/core';
import { needsObjectWrapper, OUTPUT_WRAPPER_KEY } from '@yourtool/core/adapter';
import type { SessionEvent } from './events.js';

/** The `object.partial` session event. */
export type ObjectPartialEvent = Extract<SessionEvent, { type: 'object.partial' }>;

/**
 * The partial objects of one call's stream: the reply's text deltas (native structured output)
 * or the output tool's input deltas (the forced-tool fallback) fed to one
 * {@link PartialJsonParser}, which keeps its state between deltas, so each delta is read once.
 * Yields an `object.partial` event whenever the value grew.
 */
export class ObjectPartials {
  readonly #parser = new PartialJsonParser();
  readonly #plan: StructuredOutputPlan;
  /** Whether the tool's input wraps a non-object schema's value as `{ value }`. */
  readonly #wrapped: boolean;
  readonly #where: { step: number; attempt: number; model: string };
  /** The content block of the output tool's call, once it started. */
  #toolBlock: number | null = null;

  constructor(
    plan: StructuredOutputPlan,
    jsonSchema: Readonly<Record<string, unknown>>,
    where: { step: number; attempt: number; model: string },
  ) {
    this.#plan = plan;
    this.#wrapped = plan.mode === 'tool' && needsObjectWrapper(jsonSchema);
    this.#where = where;
  }

  /** The `object.partial` event a stream event leads to, or null. */
  take(event: StreamEvent): ObjectPartialEvent | null {
    const text = this.#jsonDelta(event);
    if (text === null || !this.#parser.feed(text)) return null;
    let value = this.#parser.value;
    if (this.#wrapped) {
      // the wrapper's key has not begun: nothing of the value is known yet
      if (value === null || typeof value !== 'object' || !Object.hasOwn(value, OUTPUT_WRAPPER_KEY)) {
        return null;
      }
      value = (value as Record<string, unknown>)[OUTPUT_WRAPPER_KEY];
    }
    return { type: 'object.partial', ...this.#where, value };
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

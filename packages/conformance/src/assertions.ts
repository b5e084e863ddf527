import {
  type StreamEvent,
  StreamInvariantError,
  type TokenUsage,
  withStreamInvariants,
} from '@yourtool/core';

/** The four token counts of a usage, without optional flags, for exact comparison. */
export function pickUsage(usage: TokenUsage): TokenUsage {
  return {
    input_tokens: usage.input_tokens,
    output_tokens: usage.output_tokens,
    cached_input_tokens: usage.cached_input_tokens,
    cache_creation_input_tokens: usage.cache_creation_input_tokens,
  };
}

/** Whether two usages carry the same four token counts. */
export function sameUsage(a: TokenUsage, b: TokenUsage): boolean {
  return JSON.stringify(pickUsage(a)) === JSON.stringify(pickUsage(b));
}

/** A stream read to its end. */
export interface CheckedStream {
  /** Every event, in order. */
  events: StreamEvent[];
  /** What the adapter's stream threw (after `message.complete`, or before any event), if anything. */
  error: unknown;
}

/**
 * Reads a stream to its end through core's stream invariant checker. A rule violation is
 * thrown at once with advice for the adapter author; an error the adapter's stream throws
 * (per the error contract) is returned in `error` instead.
 */
export async function collectCheckedStream(
  stream: AsyncIterable<StreamEvent>,
): Promise<CheckedStream> {
  const events: StreamEvent[] = [];
  try {
    for await (const event of withStreamInvariants(stream)) events.push(event);
  } catch (error) {
    if (error instanceof StreamInvariantError) {
      throw new Error(
        `${error.message}\nThe adapter's events broke the canonical stream rules (provider-adapter-contract §5.5). ` +
          'Feed provider chunks through core StreamBuilder (or runStreamCall) rather than emitting events by hand.\n' +
          `Events so far: ${events.map((e) => e.type).join(', ')}`,
        { cause: error },
      );
    }
    return { events, error };
  }
  return { events, error: undefined };
}

/** The final `message.complete` of a stream; throws with advice when the stream lacks one. */
export function completeEvent(
  events: readonly StreamEvent[],
): Extract<StreamEvent, { type: 'message.complete' }> {
  const last = events.at(-1);
  if (last?.type !== 'message.complete') {
    throw new Error(
      `the stream did not end with message.complete (last event: ${last?.type ?? 'none'}); every stream must end with one`,
    );
  }
  return last;
}

/** The text of a stream's `text.delta` events, concatenated. */
export function streamedText(events: readonly StreamEvent[]): string {
  return events
    .filter((e): e is Extract<StreamEvent, { type: 'text.delta' }> => e.type === 'text.delta')
    .map((e) => e.text)
    .join('');
}

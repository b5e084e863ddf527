import {
  type ByteSource,
  MalformedStreamError,
  type StreamReadOptions,
  textChunks,
} from './body.js';
import { DEFAULT_MAX_RECORD_CHARS, SseFramer } from './frames.js';

/** One server-sent event, as the WHATWG event-stream rules assemble it. */
export interface SseEvent {
  /** The `event:` field, or `message` when the event named none. */
  event: string;
  /** The `data:` lines, joined with `\n`. */
  data: string;
  /** The last `id:` seen on the stream so far, if any. */
  id?: string;
  /** A `retry:` value in ms, when this event carried one. */
  retry?: number;
}

/** Options of {@link readSseEvents}. */
export interface SseReadOptions extends StreamReadOptions {
  /**
   * The most characters one event (its lines together) may hold before the stream is refused
   * with a {@link MalformedStreamError}; bounds the memory a runaway or hostile stream can
   * take. Default 8 MiB worth of characters.
   */
  maxEventChars?: number;
}

/** Default bound of one SSE event. */
export const DEFAULT_MAX_SSE_EVENT_CHARS = DEFAULT_MAX_RECORD_CHARS;

/**
 * Reads a `text/event-stream` body (a `fetch` response's `body`) into events, for an adapter
 * that talks to its provider with `fetch` instead of an SDK:
 *
 * - lines end in `\n`, `\r\n` or `\r`; a blank line dispatches the event; `:` lines are
 *   comments (keep-alives); unknown fields are ignored; an event without `data` is not
 *   dispatched; an unterminated event at the end of the body is dropped, as browsers do;
 * - an event longer than `maxEventChars`, or bytes that are not UTF-8, throw
 *   {@link MalformedStreamError} (a `server_error`) naming the line;
 * - `signal` aborting cancels the body and throws the signal's reason; stopping the loop early
 *   (`break`) cancels the body too, which releases the connection.
 *
 * ```ts
 * const response = await fetch(url, { method: 'POST', body, signal });
 * for await (const event of readSseEvents(response.body!, { signal })) {
 *   if (event.data === '[DONE]') break;
 *   const chunk = parseSseJson(event);
 * }
 * ```
 */
export async function* readSseEvents(
  body: ByteSource,
  options: SseReadOptions = {},
): AsyncGenerator<SseEvent, void, undefined> {
  const framer = new SseFramer(options.maxEventChars ?? DEFAULT_MAX_SSE_EVENT_CHARS);
  let ready: SseEvent[] = [];
  const sink = (data: string, event: string) => {
    const lastId = framer.lastId;
    const retry = framer.retry;
    ready.push({
      event: event === '' ? 'message' : event,
      data,
      ...(lastId !== undefined ? { id: lastId } : {}),
      ...(retry !== undefined ? { retry } : {}),
    });
  };
  const drain = () => {
    const events = ready;
    ready = [];
    return events;
  };
  try {
    for await (const text of textChunks(body, 'sse', () => framer.line, options.signal)) {
      framer.feed(text, sink);
      yield* drain();
    }
  } catch (error) {
    // the events before a malformed one are still the caller's
    if (ready.length > 0) yield* drain();
    throw error;
  }
}

/**
 * Parses an event's `data` as JSON. Data that is not JSON throws {@link MalformedStreamError}
 * (a `server_error`) naming the event type.
 */
export function parseSseJson(event: SseEvent): unknown {
  try {
    return JSON.parse(event.data);
  } catch {
    throw new MalformedStreamError(
      'sse',
      null,
      `the data of a "${event.event}" event is not valid JSON`,
    );
  }
}

import {
  type ByteSource,
  MalformedStreamError,
  type StreamReadOptions,
  textChunks,
} from './body.js';

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
export const DEFAULT_MAX_SSE_EVENT_CHARS = 8 * 1024 * 1024;

/** The event being assembled from a stream's lines: {@link readSseEvents}'s state. */
interface SseAssembler {
  /** Counts characters towards the current event; throws once it passes the limit. */
  grow: (chars: number) => void;
  /** Applies one complete line; returns an event when the line dispatched one. */
  take: (text: string) => SseEvent | undefined;
}

/**
 * Assembles events from complete lines; `lineNumber` gives the line being read, for errors.
 * Created once per stream (its two closures too).
 */
function sseAssembler(limit: number, lineNumber: () => number): SseAssembler {
  let eventName = '';
  let data: string[] = [];
  let size = 0;
  let lastId: string | undefined;
  let retry: number | undefined;

  const grow = (chars: number) => {
    size += chars;
    if (size > limit)
      throw new MalformedStreamError(
        'sse',
        lineNumber(),
        `makes an event longer than ${limit} characters`,
      );
  };

  const take = (text: string): SseEvent | undefined => {
    if (text === '') {
      const event: SseEvent | undefined =
        data.length === 0
          ? undefined
          : {
              event: eventName === '' ? 'message' : eventName,
              data: data.join('\n'),
              ...(lastId !== undefined ? { id: lastId } : {}),
              ...(retry !== undefined ? { retry } : {}),
            };
      eventName = '';
      data = [];
      size = 0;
      retry = undefined;
      return event;
    }
    if (text.startsWith(':')) return undefined;
    const colon = text.indexOf(':');
    const field = colon < 0 ? text : text.slice(0, colon);
    let value = colon < 0 ? '' : text.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    switch (field) {
      case 'data':
        data.push(value);
        break;
      case 'event':
        eventName = value;
        break;
      case 'id':
        if (!value.includes('\0')) lastId = value;
        break;
      case 'retry':
        if (/^\d+$/.test(value)) retry = Number(value);
        break;
      default:
        break;
    }
    return undefined;
  };
  return { grow, take };
}

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
  let line = 1;
  const lineNumber = () => line;
  const { grow, take } = sseAssembler(
    options.maxEventChars ?? DEFAULT_MAX_SSE_EVENT_CHARS,
    lineNumber,
  );
  let pending = '';
  let skipLeadingLf = false;
  let first = true;
  for await (let text of textChunks(body, 'sse', lineNumber, options.signal)) {
    if (first) {
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
      first = false;
    }
    let start = 0;
    if (skipLeadingLf && text.startsWith('\n')) start = 1;
    skipLeadingLf = false;
    for (let i = start; i < text.length; i++) {
      const char = text.charCodeAt(i);
      if (char !== 10 && char !== 13) continue;
      const complete = pending + text.slice(start, i);
      pending = '';
      grow(i - start);
      const event = take(complete);
      line++;
      if (char === 13) {
        if (i + 1 < text.length) {
          if (text.charCodeAt(i + 1) === 10) i++;
        } else skipLeadingLf = true;
      }
      start = i + 1;
      if (event) yield event;
    }
    const rest = text.slice(start);
    grow(rest.length);
    pending += rest;
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

import { MalformedStreamError } from './body.js';

/**
 * Receives one framed record: an SSE event's data and its `event:` name (`''` when the event
 * named none), or one NDJSON line (name `''`). `line` is the body's line that completed it.
 */
export type FrameSink = (data: string, event: string, line: number) => void;

/** Default bound of one SSE event or NDJSON line, in characters. */
export const DEFAULT_MAX_RECORD_CHARS = 8 * 1024 * 1024;

/**
 * Splits `text/event-stream` text into events as the WHATWG rules assemble them, synchronously,
 * one decoded network read at a time, so a reader needs no async step per event:
 *
 * - lines end in `\n`, `\r\n` or `\r` (also across reads); a leading BOM is dropped;
 * - a blank line dispatches the event when it has `data` lines (joined with `\n`); `:` lines
 *   are comments; unknown fields are ignored; `id` (without NUL) and `retry` (digits) are kept;
 * - an event longer than the bound throws {@link MalformedStreamError} naming the line;
 * - an unterminated event at the end of the body is dropped, as browsers do.
 */
export class SseFramer {
  /** The 1-based body line being read. */
  line = 1;
  /** The last `id:` seen on the stream, if any. */
  lastId: string | undefined;
  /** The `retry:` value of the event being assembled (or just dispatched). */
  retry: number | undefined;
  readonly #limit: number;
  #pending = '';
  #skipLf = false;
  #first = true;
  #event = '';
  #lastEventName = '';
  #data = '';
  #dataLines = 0;
  #size = 0;

  /** `maxEventChars` bounds one event (its lines together). */
  constructor(maxEventChars: number = DEFAULT_MAX_RECORD_CHARS) {
    this.#limit = maxEventChars;
  }

  /** Feeds the next decoded text; every event it completes goes to `sink`, in order. */
  feed(text: string, sink: FrameSink): void {
    if (this.#first && text.length > 0) {
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
      this.#first = false;
    }
    let start = 0;
    if (this.#skipLf) {
      if (text.charCodeAt(0) === 10) start = 1;
      if (text.length > 0) this.#skipLf = false;
    }
    const firstCr = text.indexOf('\r', start);
    if (firstCr < 0 || crlfOnly(text, firstCr)) {
      // the common cases: lines end in \n or \r\n, found by the native search
      for (let end = text.indexOf('\n', start); end >= 0; end = text.indexOf('\n', start)) {
        this.#completeLine(text, start, text.charCodeAt(end - 1) === 13 ? end - 1 : end, sink);
        start = end + 1;
      }
    } else start = this.#feedMixed(text, start, sink);
    if (start < text.length) {
      this.#grow(text.length - start);
      this.#pending += text.slice(start);
    }
  }

  /** The line-splitting loop for text with `\r` line ends; returns where the rest begins. */
  #feedMixed(text: string, start: number, sink: FrameSink): number {
    for (let i = start; i < text.length; i++) {
      const char = text.charCodeAt(i);
      if (char !== 10 && char !== 13) continue;
      this.#completeLine(text, start, i, sink);
      if (char === 13) {
        if (i + 1 < text.length) {
          if (text.charCodeAt(i + 1) === 10) i++;
        } else this.#skipLf = true;
      }
      start = i + 1;
    }
    return start;
  }

  #completeLine(text: string, start: number, end: number, sink: FrameSink): void {
    this.#grow(end - start);
    if (this.#pending === '') this.#take(text, start, end, sink);
    else {
      const line = this.#pending + text.slice(start, end);
      this.#pending = '';
      this.#take(line, 0, line.length, sink);
    }
    this.line++;
  }

  #grow(chars: number): void {
    this.#size += chars;
    if (this.#size > this.#limit)
      throw new MalformedStreamError(
        'sse',
        this.line,
        `makes an event longer than ${this.#limit} characters`,
      );
  }

  /** Applies the line `text[start, end)`; the `data:` and `event:` fields are sliced once. */
  #take(text: string, start: number, end: number, sink: FrameSink): void {
    if (start === end) {
      this.#dispatch(sink);
      return;
    }
    if (text.charCodeAt(start) === 58) return; // ':' comment
    if (text.startsWith('data:', start)) {
      this.#addData(text.slice(text.charCodeAt(start + 5) === 32 ? start + 6 : start + 5, end));
      return;
    }
    if (text.startsWith('event:', start)) {
      const from = text.charCodeAt(start + 6) === 32 ? start + 7 : start + 6;
      // providers repeat a handful of event names: reuse the last one rather than slice anew
      const last = this.#lastEventName;
      if (end - from === last.length && text.startsWith(last, from)) this.#event = last;
      else this.#event = this.#lastEventName = text.slice(from, end);
      return;
    }
    const line = text.slice(start, end);
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.charCodeAt(0) === 32) value = value.slice(1);
    if (field === 'event') this.#event = value;
    else if (field === 'data') this.#addData(value);
    else if (field === 'id') {
      if (!value.includes('\0')) this.lastId = value;
    } else if (field === 'retry' && /^\d+$/.test(value)) this.retry = Number(value);
  }

  #addData(value: string): void {
    this.#data = this.#dataLines === 0 ? value : `${this.#data}\n${value}`;
    this.#dataLines++;
  }

  #dispatch(sink: FrameSink): void {
    const lines = this.#dataLines;
    const data = this.#data;
    const event = this.#event;
    this.#event = '';
    this.#data = '';
    this.#dataLines = 0;
    this.#size = 0;
    if (lines > 0) sink(data, event, this.line);
    this.retry = undefined;
  }
}

/** Whether every `\r` of `text` from `from` on is followed by `\n` (a `\r` last is not). */
function crlfOnly(text: string, from: number): boolean {
  for (let i = from; i >= 0; i = text.indexOf('\r', i + 2)) {
    if (text.charCodeAt(i + 1) !== 10) return false;
  }
  return true;
}

/**
 * Splits `application/x-ndjson` text into lines, synchronously: lines end in `\n` (a trailing
 * `\r` is dropped), blank lines are skipped, a line longer than the bound throws
 * {@link MalformedStreamError} naming it, and {@link end} hands over a last line without a
 * newline. Parsing each line is the sink's (see {@link parseNdjsonLine}).
 */
export class NdjsonFramer {
  /** The 1-based body line being read. */
  line = 1;
  readonly #limit: number;
  #pending = '';

  /** `maxLineChars` bounds one line. */
  constructor(maxLineChars: number = DEFAULT_MAX_RECORD_CHARS) {
    this.#limit = maxLineChars;
  }

  /** Feeds the next decoded text; every complete non-blank line goes to `sink`, in order. */
  feed(text: string, sink: FrameSink): void {
    let start = 0;
    for (let end = text.indexOf('\n', start); end >= 0; end = text.indexOf('\n', start)) {
      let line = text.slice(start, end);
      if (this.#pending !== '') {
        line = this.#pending + line;
        this.#pending = '';
      }
      start = end + 1;
      if (line.length > this.#limit) throw this.#tooLong();
      this.#take(line, sink);
      this.line++;
    }
    if (start < text.length) {
      this.#pending += text.slice(start);
      if (this.#pending.length > this.#limit) throw this.#tooLong();
    }
  }

  /** The body ended: a last line without a newline is a record too. */
  end(sink: FrameSink): void {
    const last = this.#pending;
    this.#pending = '';
    this.#take(last, sink);
  }

  #take(text: string, sink: FrameSink): void {
    const line = text.charCodeAt(text.length - 1) === 13 ? text.slice(0, -1) : text;
    if (line.trim() === '') return;
    sink(line, '', this.line);
  }

  #tooLong(): MalformedStreamError {
    return new MalformedStreamError(
      'ndjson',
      this.line,
      `is longer than ${this.#limit} characters`,
    );
  }
}

/** Parses one NDJSON line; a line that is not JSON throws {@link MalformedStreamError} naming it. */
export function parseNdjsonLine(text: string, line: number): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new MalformedStreamError('ndjson', line, 'is not valid JSON');
  }
}

/**
 * Parses one SSE event's data as JSON; data that is not JSON throws {@link MalformedStreamError}
 * (a `server_error`) naming the event and the line that completed it.
 */
export function parseSseData(data: string, event: string, line: number): unknown {
  try {
    return JSON.parse(data);
  } catch {
    throw new MalformedStreamError(
      'sse',
      line,
      `ends a "${event === '' ? 'message' : event}" event whose data is not valid JSON`,
    );
  }
}

import { type ByteSource, type StreamReadOptions, textChunks } from './body.js';
import { DEFAULT_MAX_RECORD_CHARS, NdjsonFramer, parseNdjsonLine } from './frames.js';

/** Options of {@link readNdjson}. */
export interface NdjsonReadOptions extends StreamReadOptions {
  /**
   * The most characters one line may hold before the stream is refused with a
   * {@link MalformedStreamError}. Default 8 MiB worth of characters.
   */
  maxLineChars?: number;
}

/** Default bound of one NDJSON line. */
export const DEFAULT_MAX_NDJSON_LINE_CHARS = DEFAULT_MAX_RECORD_CHARS;

/**
 * Reads an `application/x-ndjson` body (one JSON value per line, as Ollama streams) into its
 * parsed values, for an adapter that talks to its provider with `fetch`:
 *
 * - lines end in `\n` (a trailing `\r` is dropped); blank lines are skipped; a last line
 *   without a newline is read too;
 * - a line that is not JSON, a line longer than `maxLineChars`, or bytes that are not UTF-8
 *   throw {@link MalformedStreamError} (a `server_error`) naming the line; the values before
 *   it were yielded;
 * - `signal` aborting cancels the body and throws the signal's reason; stopping the loop early
 *   cancels the body, which releases the connection.
 *
 * What a value must look like (an object, a `done` flag) is the adapter's to check.
 */
export async function* readNdjson(
  body: ByteSource,
  options: NdjsonReadOptions = {},
): AsyncGenerator<unknown, void, undefined> {
  const framer = new NdjsonFramer(options.maxLineChars ?? DEFAULT_MAX_NDJSON_LINE_CHARS);
  let ready: unknown[] = [];
  const sink = (text: string, _event: string, line: number) => {
    ready.push(parseNdjsonLine(text, line));
  };
  const drain = () => {
    const values = ready;
    ready = [];
    return values;
  };
  try {
    for await (const text of textChunks(body, 'ndjson', () => framer.line, options.signal)) {
      framer.feed(text, sink);
      yield* drain();
    }
    framer.end(sink);
  } catch (error) {
    // the values before a bad line are still the caller's
    if (ready.length > 0) yield* drain();
    throw error;
  }
  yield* drain();
}

import {
  type ByteSource,
  MalformedStreamError,
  type StreamReadOptions,
  textChunks,
} from './body.js';

/** Options of {@link readNdjson}. */
export interface NdjsonReadOptions extends StreamReadOptions {
  /**
   * The most characters one line may hold before the stream is refused with a
   * {@link MalformedStreamError}. Default 8 MiB worth of characters.
   */
  maxLineChars?: number;
}

/** Default bound of one NDJSON line. */
export const DEFAULT_MAX_NDJSON_LINE_CHARS = 8 * 1024 * 1024;

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
  const limit = options.maxLineChars ?? DEFAULT_MAX_NDJSON_LINE_CHARS;
  let line = 1;
  let pending = '';
  const parse = (text: string): { value: unknown } | undefined => {
    const trimmed = text.endsWith('\r') ? text.slice(0, -1) : text;
    if (trimmed.trim() === '') return undefined;
    try {
      return { value: JSON.parse(trimmed) };
    } catch {
      throw new MalformedStreamError('ndjson', line, 'is not valid JSON');
    }
  };
  const tooLong = () =>
    new MalformedStreamError('ndjson', line, `is longer than ${limit} characters`);
  for await (const text of textChunks(body, 'ndjson', () => line, options.signal)) {
    let start = 0;
    for (let end = text.indexOf('\n'); end >= 0; end = text.indexOf('\n', start)) {
      const complete = pending + text.slice(start, end);
      pending = '';
      start = end + 1;
      if (complete.length > limit) throw tooLong();
      const parsed = parse(complete);
      line++;
      if (parsed) yield parsed.value;
    }
    pending += text.slice(start);
    if (pending.length > limit) throw tooLong();
  }
  const last = parse(pending);
  if (last) yield last.value;
}

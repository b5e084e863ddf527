/** A JSON string literal read from a record: its value and the index just past its closing quote. */
export interface JsonStringRead {
  value: string;
  end: number;
}

/** Characters that a JSON string holds only escaped: the controls below U+0020. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding them is the point (JSON refuses them raw)
const RAW_CONTROL = /[\u0000-\u001f]/;

/**
 * Reads the JSON string literal that starts at `data[at]` (a `"`), exactly as `JSON.parse` would
 * read it, or returns `undefined` when there is none there (or it is not valid JSON, such as a
 * raw control character). A literal without escapes is sliced, not parsed; one with escapes is
 * handed to `JSON.parse`. For adapters' fast paths over the stream records a provider sends by
 * the thousand (text deltas), which otherwise pay for a whole `JSON.parse` and leave objects
 * whose shapes the runtime forgets between streams.
 */
export function readJsonString(data: string, at: number): JsonStringRead | undefined {
  if (data.charCodeAt(at) !== 34) return undefined;
  let close = data.indexOf('"', at + 1);
  const firstEscape = data.indexOf('\\', at + 1);
  if (close < 0) return undefined;
  if (firstEscape < 0 || firstEscape > close) {
    const value = data.slice(at + 1, close);
    return RAW_CONTROL.test(value) ? undefined : { value, end: close + 1 };
  }
  // skip escaped quotes: a quote ends the literal when an even number of backslashes precede it
  for (;;) {
    let slashes = 0;
    while (data.charCodeAt(close - 1 - slashes) === 92) slashes++;
    if (slashes % 2 === 0) break;
    close = data.indexOf('"', close + 1);
    if (close < 0) return undefined;
  }
  try {
    const value: unknown = JSON.parse(data.slice(at, close + 1));
    return typeof value === 'string' ? { value, end: close + 1 } : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Reads a non-negative JSON integer (no sign, no leading zero, at most 15 digits) at `data[at]`,
 * or `undefined`. Its `end` is the index past the last digit.
 */
export function readJsonIndex(
  data: string,
  at: number,
): { value: number; end: number } | undefined {
  let i = at;
  let value = 0;
  for (let c = data.charCodeAt(i); c >= 48 && c <= 57; c = data.charCodeAt(++i)) {
    value = value * 10 + (c - 48);
  }
  const digits = i - at;
  if (digits === 0 || digits > 15 || (digits > 1 && data.charCodeAt(at) === 48)) return undefined;
  return { value, end: i };
}

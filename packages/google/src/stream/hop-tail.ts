const LF = 0x0a;
const CR = 0x0d;

/** ASCII white space as `String.prototype.trim` sees it: space, tab, LF, VT, FF, CR. */
const isSpace = (byte: number) => byte === 0x20 || (byte >= 0x09 && byte <= CR);

const encoder = new TextEncoder();

/**
 * What the end of a Gemini stream body looks like, tracked a network read at a time (a scan of
 * the white space at the end of each read), for two decisions the stream reader makes where
 * one response body ends:
 *
 * - {@link incomplete}: whether `@google/genai` would have failed the body with `Incomplete JSON
 *   segment at the end`: its reader splits events at `\n\n`, `\r\r` or `\r\n\r\n` and fails
 *   when anything but white space follows the last one;
 * - {@link injection}: the bytes that, fed to core's SSE reader before the next continuation
 *   hop's body, complete whatever the previous body left half-read (a UTF-8 sequence, a line,
 *   an event) into exactly one event whose data ends with a given mark, which the reader then
 *   skips, so the next body starts on a clean slate, as it does in the SDK (a new reader per hop).
 *
 * Non-ASCII white space (`U+00A0`, ...) at the very end counts as content here, while the SDK's
 * `trim()` would drop it; Gemini ends every event with a blank line, so this never differs.
 */
export class HopTail {
  /** Whether this body has had a byte other than white space. */
  #content = false;
  /** Whether the white space after the body's last other byte holds an event delimiter. */
  #delimited = false;
  /** The last three bytes of that run of white space, newest first (0: none). */
  #p1 = 0;
  #p2 = 0;
  #p3 = 0;
  /** The last three bytes handed to the SSE reader, across bodies, newest first (-1: none). */
  #l1 = -1;
  #l2 = -1;
  #l3 = -1;

  /** Notes one read of the current body. */
  note(bytes: Uint8Array): void {
    let i = bytes.length - 1;
    while (i >= 0 && isSpace(bytes[i] as number)) i--;
    if (i >= 0) {
      this.#content = true;
      this.#restartRun();
    }
    for (let j = i + 1; j < bytes.length; j++) this.#space(bytes[j] as number);
    this.#remember(bytes);
  }

  /** Whether the SDK would find an unfinished event at the end of this body. */
  get incomplete(): boolean {
    return this.#content && !this.#delimited;
  }

  /**
   * The bytes to hand the SSE reader before the next body (see the class); the next body's
   * tracking starts afresh.
   */
  injection(mark: string): Uint8Array {
    const fill = utf8Completion([this.#l1, this.#l2, this.#l3]);
    const newline = fill.length > 0 || (this.#l1 !== LF && this.#l1 !== CR);
    const text = encoder.encode(`${newline ? '\n' : ''}data:${mark}\n\n`);
    const bytes = new Uint8Array(fill.length + text.length);
    bytes.set(fill);
    bytes.set(text, fill.length);
    this.#content = false;
    this.#restartRun();
    this.#remember(bytes);
    return bytes;
  }

  #restartRun(): void {
    this.#delimited = false;
    this.#p1 = 0;
    this.#p2 = 0;
    this.#p3 = 0;
  }

  #space(byte: number): void {
    const p1 = this.#p1;
    if (
      (byte === LF && p1 === LF) ||
      (byte === CR && p1 === CR) ||
      (byte === LF && p1 === CR && this.#p2 === LF && this.#p3 === CR)
    ) {
      this.#delimited = true;
    }
    this.#p3 = this.#p2;
    this.#p2 = p1;
    this.#p1 = byte;
  }

  #remember(bytes: Uint8Array): void {
    for (let k = Math.max(0, bytes.length - 3); k < bytes.length; k++) {
      this.#l3 = this.#l2;
      this.#l2 = this.#l1;
      this.#l1 = bytes[k] as number;
    }
  }
}

/**
 * The continuation bytes that complete a UTF-8 sequence cut short at the end of `last` (newest
 * first), or none: valid ones for the lead byte (`E0` needs `A0`–`BF` next, `F0` needs `90`–`BF`),
 * so a fatal decoder reads one (discarded) character instead of failing.
 */
function utf8Completion(last: number[]): Uint8Array {
  let continuations = 0;
  for (const byte of last) {
    if (byte < 0) return new Uint8Array(0);
    if ((byte & 0xc0) === 0x80) {
      continuations++;
      continue;
    }
    const length = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    const missing = length - 1 - continuations;
    if (missing <= 0) return new Uint8Array(0);
    const fill = new Uint8Array(missing).fill(0x80);
    if (continuations === 0 && byte === 0xe0) fill[0] = 0xa0;
    if (continuations === 0 && byte === 0xf0) fill[0] = 0x90;
    return fill;
  }
  return new Uint8Array(0);
}

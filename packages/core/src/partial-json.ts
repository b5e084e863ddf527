import { PartialJsonError, type PartialJsonProblem } from './partial-json-error.js';
import {
  buildPartial,
  type Container,
  NO_LEAF,
  type ObjectFrame,
  setField,
} from './partial-json-value.js';

export { PartialJsonError, type PartialJsonProblem } from './partial-json-error.js';

/**
 * An incremental JSON reader for streamed model output: it is fed text deltas and gives, after
 * each, the value known so far, with open strings, arrays and objects closed where the text
 * stops. Each character is read once; the state (a stack of open containers and the token being
 * read) is kept across deltas, so a reply of n characters costs O(n) to read however it is cut.
 */

/** What the reader expects next. */
enum Mode {
  Value,
  ValueOrClose,
  KeyOrClose,
  Key,
  Colon,
  CommaOrClose,
  String,
  Number,
  Literal,
  End,
  Failed,
}

const LITERALS: Readonly<Record<string, unknown>> = { true: true, false: false, null: null };
const ESCAPES: Readonly<Record<string, string>> = {
  '"': '"',
  '\\': '\\',
  '/': '/',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
};
const NUMBER = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/;

/** Whether a char code can be part of a number: digits, `-`, `+`, `.`, `e`, `E`. */
function isNumberCode(code: number): boolean {
  return (
    (code >= 48 && code <= 57) ||
    code === 45 ||
    code === 43 ||
    code === 46 ||
    code === 101 ||
    code === 69
  );
}

/**
 * Reads a JSON text as it streams in. `feed` each delta; `value` is the partial value after the
 * deltas fed so far: strings as far as they have arrived, arrays and objects with the members
 * begun so far, a number as soon as its digits read as one, `true`/`false`/`null` once whole;
 * a key whose value has not begun is left out. Each `value` is a fresh object (only the
 * containers still open are copied; finished members are shared between successive values and
 * never change), so a caller may keep every partial. Text that is not JSON stops the reading:
 * `error` says where, `value` stays the last good partial, and `finish` throws.
 *
 * @example
 * const parser = new PartialJsonParser();
 * parser.feed('{"name": "Ad');
 * parser.value; // { name: 'Ad' }
 * parser.feed('a", "tags": [1');
 * parser.value; // { name: 'Ada', tags: [1] }
 */
export class PartialJsonParser {
  #mode: Mode = Mode.Value;
  #stack: Container[] = [];
  #root: unknown;
  #hasRoot = false;
  /** The text of the string, number or literal being read. */
  #token = '';
  #tokenIsKey = false;
  /** An escape begun in one delta and finished in a later one (`\`, `\u12`...). */
  #escape = '';
  #offset = 0;
  #problem: PartialJsonProblem | undefined;
  #dirty = false;
  /** Whether the value changed since it was last built. */
  #stale = false;
  #snapshot: unknown;
  /** The string or number token the value showed at the last delta's end: ending it is no change. */
  #shownToken: string | undefined;

  /**
   * Reads one more delta of the text. Returns whether the partial value changed, so that a
   * caller emits an update only then. After an error it reads nothing more and returns false.
   */
  feed(delta: string): boolean {
    let i = 0;
    while (i < delta.length && this.#mode !== Mode.Failed) {
      i = this.#step(delta, i);
    }
    this.#offset += delta.length;
    // the string or number being read, as far as the value shows it at this delta's end
    this.#shownToken = this.#openLeaf() === NO_LEAF ? undefined : this.#token;
    if (!this.#dirty) return false;
    this.#dirty = false;
    this.#stale = true;
    return true;
  }

  /**
   * The value read so far (undefined before any of it is known). Built when read after a
   * change, so a caller that reads it less often than it feeds pays less.
   */
  get value(): unknown {
    if (this.#stale) {
      this.#stale = false;
      this.#snapshot = this.#build();
    }
    return this.#snapshot;
  }

  /** Whether the whole value has been read (only whitespace may follow). */
  get complete(): boolean {
    return (
      this.#mode === Mode.End ||
      (this.#mode === Mode.Number && this.#stack.length === 0 && NUMBER.test(this.#token))
    );
  }

  /** Where the text stopped being JSON, if it did. */
  get error(): PartialJsonError | undefined {
    return this.#problem ? new PartialJsonError(this.#problem) : undefined;
  }

  /**
   * The whole value, once the text is complete.
   *
   * @throws PartialJsonError when the text is not JSON or ended before the value did.
   */
  finish(): unknown {
    if (this.#problem) throw new PartialJsonError(this.#problem);
    if (!this.complete) {
      throw new PartialJsonError({
        offset: this.#offset,
        reason: 'the text ended before the value did',
      });
    }
    return this.value;
  }

  #fail(offset: number, reason: string): number {
    this.#mode = Mode.Failed;
    this.#problem = { offset: this.#offset + offset, reason };
    return Number.MAX_SAFE_INTEGER;
  }

  /** Reads from `delta` at `i` according to the mode; returns where to go on. */
  #step(delta: string, i: number): number {
    switch (this.#mode) {
      case Mode.String:
        return this.#readString(delta, i);
      case Mode.Number:
        return this.#readNumber(delta, i);
      case Mode.Literal:
        return this.#readLiteral(delta, i);
      default:
        return this.#readStructure(delta, i);
    }
  }

  #readStructure(delta: string, i: number): number {
    const code = delta.charCodeAt(i);
    if (code === 32 || code === 10 || code === 13 || code === 9) return i + 1;
    const ch = delta.charAt(i);
    switch (this.#mode) {
      case Mode.Value:
      case Mode.ValueOrClose:
        if (ch === ']' && this.#mode === Mode.ValueOrClose) return this.#close(i);
        return this.#beginValue(delta, i);
      case Mode.KeyOrClose:
        if (ch === '}') return this.#close(i);
        if (ch !== '"') return this.#fail(i, 'expected a key or "}"');
        this.#beginToken(Mode.String, '', true);
        return i + 1;
      case Mode.Key:
        if (ch !== '"') return this.#fail(i, 'expected a key');
        this.#beginToken(Mode.String, '', true);
        return i + 1;
      case Mode.Colon:
        if (ch !== ':') return this.#fail(i, 'expected ":"');
        this.#mode = Mode.Value;
        return i + 1;
      case Mode.CommaOrClose:
        return this.#afterMember(ch, i);
      default:
        return this.#fail(i, 'nothing may follow the value but whitespace');
    }
  }

  #afterMember(ch: string, i: number): number {
    const top = this.#stack[this.#stack.length - 1];
    if (ch === ',') {
      this.#mode = top?.kind === 'object' ? Mode.Key : Mode.Value;
      return i + 1;
    }
    if ((ch === ']' && top?.kind === 'array') || (ch === '}' && top?.kind === 'object')) {
      return this.#close(i);
    }
    return this.#fail(i, `expected "," or "${top?.kind === 'object' ? '}' : ']'}"`);
  }

  #beginValue(delta: string, i: number): number {
    const ch = delta.charAt(i);
    if (ch === '{' || ch === '[') {
      const container: Container =
        ch === '{'
          ? { kind: 'object', fields: {}, key: undefined, lastKey: '' }
          : { kind: 'array', items: [] };
      this.#attach(container.kind === 'object' ? container.fields : container.items);
      this.#stack.push(container);
      this.#mode = ch === '{' ? Mode.KeyOrClose : Mode.ValueOrClose;
      return i + 1;
    }
    if (ch === '"') {
      this.#beginToken(Mode.String, '', false);
      this.#dirty = true;
      return i + 1;
    }
    if (ch === '-' || (ch >= '0' && ch <= '9')) {
      this.#beginToken(Mode.Number, '', false);
      return i;
    }
    if (ch === 't' || ch === 'f' || ch === 'n') {
      this.#beginToken(Mode.Literal, '', false);
      return i;
    }
    return this.#fail(i, 'expected a value');
  }

  #beginToken(mode: Mode, token: string, isKey: boolean): void {
    this.#shownToken = undefined;
    this.#mode = mode;
    this.#token = token;
    this.#tokenIsKey = isKey;
  }

  /** Puts a finished value (or a container just opened) in its place. */
  #attach(value: unknown, changed = true): void {
    if (changed) this.#dirty = true;
    const top = this.#stack[this.#stack.length - 1];
    if (top === undefined) {
      this.#root = value;
      this.#hasRoot = true;
    } else if (top.kind === 'array') {
      top.items.push(value);
    } else {
      top.lastKey = top.key as string;
      setField(top.fields, top.lastKey, value);
      top.key = undefined;
    }
  }

  #close(i: number): number {
    this.#stack.pop();
    this.#mode = this.#stack.length === 0 ? Mode.End : Mode.CommaOrClose;
    this.#dirty = true;
    return i + 1;
  }

  /** Ends the value just read: the root, an array item or a field. */
  #valueDone(value: unknown): void {
    // a string or number the last value showed whole is no change once it ends
    const shown = this.#mode !== Mode.Literal && this.#shownToken === this.#token;
    this.#token = '';
    this.#shownToken = undefined;
    this.#attach(value, !shown);
    this.#mode = this.#stack.length === 0 ? Mode.End : Mode.CommaOrClose;
  }

  #readString(delta: string, start: number): number {
    let i = start;
    if (this.#escape !== '') {
      i = this.#readEscape(delta, i);
      if (this.#escape !== '' || this.#mode === Mode.Failed) return i;
    }
    let run = i;
    while (i < delta.length) {
      const code = delta.charCodeAt(i);
      if (code === 34 /* " */ || code === 92 /* \ */) break;
      if (code < 32) return this.#fail(i, 'a control character must be escaped in a string');
      i++;
    }
    if (i > run) {
      this.#token += delta.slice(run, i);
      if (!this.#tokenIsKey) this.#dirty = true;
    }
    if (i >= delta.length) return i;
    if (delta.charCodeAt(i) === 92) {
      this.#escape = '\\';
      return this.#readEscape(delta, i + 1);
    }
    run = i + 1;
    if (this.#tokenIsKey) {
      const top = this.#stack[this.#stack.length - 1] as ObjectFrame;
      top.key = this.#token;
      this.#token = '';
      this.#mode = Mode.Colon;
    } else {
      this.#valueDone(this.#token);
    }
    return run;
  }

  /** Reads the rest of an escape begun with a backslash; leaves `#escape` set if it is cut. */
  #readEscape(delta: string, start: number): number {
    let i = start;
    while (i < delta.length) {
      this.#escape += delta.charAt(i);
      i++;
      const pending = this.#escape;
      if (pending.length === 2 && pending !== '\\u') {
        const char = ESCAPES[pending.charAt(1)];
        if (char === undefined) return this.#fail(i - 1, `unknown escape "${pending}"`);
        return this.#escaped(char, i);
      }
      if (pending.length === 6) {
        if (!/^\\u[0-9a-fA-F]{4}$/.test(pending))
          return this.#fail(i - 1, `bad escape "${pending}"`);
        return this.#escaped(String.fromCharCode(Number.parseInt(pending.slice(2), 16)), i);
      }
    }
    return i;
  }

  #escaped(char: string, i: number): number {
    this.#escape = '';
    this.#token += char;
    if (!this.#tokenIsKey) this.#dirty = true;
    return i;
  }

  #readNumber(delta: string, start: number): number {
    let i = start;
    while (i < delta.length && isNumberCode(delta.charCodeAt(i))) i++;
    this.#token += delta.slice(start, i);
    const whole = NUMBER.test(this.#token);
    if (i >= delta.length) {
      // a number has no end mark: what reads as one so far is shown, and kept if the text ends
      if (whole) this.#dirty = true;
      return i;
    }
    if (!whole) return this.#fail(i - 1, `"${this.#token}" is not a number`);
    this.#valueDone(Number(this.#token));
    return i;
  }

  #readLiteral(delta: string, start: number): number {
    let i = start;
    while (i < delta.length && delta.charCodeAt(i) >= 97 && delta.charCodeAt(i) <= 122) i++;
    this.#token += delta.slice(start, i);
    const literal = this.#token;
    if (Object.hasOwn(LITERALS, literal)) {
      this.#valueDone(LITERALS[literal]);
      return i;
    }
    const prefix = ['true', 'false', 'null'].some((word) => word.startsWith(literal));
    if (!prefix || i < delta.length) return this.#fail(i - 1, `"${literal}" is not a value`);
    return i;
  }

  /** The partial value: the open containers copied, the token being read put in its place. */
  #build(): unknown {
    const open = this.#openLeaf();
    if (this.#stack.length > 0) return buildPartial(this.#stack, open);
    return open !== NO_LEAF ? open : this.#hasRoot ? this.#root : undefined;
  }

  /** The string or number being read, if it has a value to show yet. */
  #openLeaf(): unknown {
    if (this.#mode === Mode.String && !this.#tokenIsKey) return this.#token;
    if (this.#mode === Mode.Number && NUMBER.test(this.#token)) return Number(this.#token);
    return NO_LEAF;
  }
}

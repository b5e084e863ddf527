import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PartialJsonError, PartialJsonParser } from './exports.js';

/** Feeds `chunks` one by one and returns the value after each that changed it. */
function partials(chunks: string[]): { parser: PartialJsonParser; values: unknown[] } {
  const parser = new PartialJsonParser();
  const values: unknown[] = [];
  for (const chunk of chunks) {
    if (parser.feed(chunk)) values.push(parser.value);
  }
  return { parser, values };
}

/** Cuts `text` at the sorted offsets given. */
function cut(text: string, offsets: number[]): string[] {
  const points = [...new Set(offsets.map((o) => o % (text.length + 1)))].sort((a, b) => a - b);
  const chunks: string[] = [];
  let from = 0;
  for (const point of [...points, text.length]) {
    chunks.push(text.slice(from, point));
    from = point;
  }
  return chunks;
}

describe('PartialJsonParser', () => {
  it('closes open strings, arrays and objects where the text stops', () => {
    const { values } = partials(['{"name": "Ad', 'a", "tags": [1', ', {"x": tr', 'ue}', ']}']);
    expect(values).toEqual([
      { name: 'Ad' },
      { name: 'Ada', tags: [1] },
      { name: 'Ada', tags: [1, {}] },
      { name: 'Ada', tags: [1, { x: true }] },
      { name: 'Ada', tags: [1, { x: true }] },
    ]);
  });

  it('leaves out a key until its value begins, and an unfinished literal or number', () => {
    const parser = new PartialJsonParser();
    parser.feed('{"a": 1, "b"');
    expect(parser.value).toEqual({ a: 1 });
    parser.feed(': nu');
    expect(parser.value).toEqual({ a: 1 });
    parser.feed('ll, "c": -');
    expect(parser.value).toEqual({ a: 1, b: null });
    parser.feed('2');
    expect(parser.value).toEqual({ a: 1, b: null, c: -2 });
    expect(parser.feed('.')).toBe(false);
    parser.feed('5e1}');
    expect(parser.finish()).toEqual({ a: 1, b: null, c: -25 });
  });

  it('reads escapes cut between deltas', () => {
    const { parser } = partials(['["a\\', 'n\\u00', 'e9\\ud83d', '\\ude00"]']);
    expect(parser.finish()).toEqual(['a\né😀']);
  });

  it('gives a fresh value each time, sharing only finished members', () => {
    const parser = new PartialJsonParser();
    parser.feed('{"done": {"x": 1}, "open": [1');
    const first = parser.value as { done: unknown; open: number[] };
    parser.feed(', 2');
    const second = parser.value as { done: unknown; open: number[] };
    expect(first.open).toEqual([1]);
    expect(second.open).toEqual([1, 2]);
    expect(second.done).toBe(first.done);
  });

  it('keeps a key named __proto__ as an own field, as JSON.parse does', () => {
    const text = '{"__proto__": {"polluted": true}, "a": [{"__proto__": 1}]}';
    const { parser } = partials(cut(text, [5, 20, 40]));
    expect(parser.finish()).toEqual(JSON.parse(text));
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('says where the text stopped being JSON, keeping the last good partial', () => {
    const parser = new PartialJsonParser();
    expect(parser.feed('{"a": [1, 2')).toBe(true);
    expect(parser.feed('} ')).toBe(false);
    expect(parser.value).toEqual({ a: [1, 2] });
    expect(parser.error).toBeInstanceOf(PartialJsonError);
    expect(parser.error?.offset).toBe(11);
    expect(() => parser.finish()).toThrow(/offset 11: expected "," or "]"/);
    for (const [text, reason] of [
      ['Sure: {}', 'expected a value'],
      ['not json', '"not" is not a value'],
      ['{"a" 1}', 'expected ":"'],
      ['[01]', '"01" is not a number'],
      ['"tab\there"', 'control character'],
      ['{"a": 1} x', 'nothing may follow'],
      ['["\\x"]', 'unknown escape'],
      ['[trux]', 'is not a value'],
    ] as const) {
      const p = new PartialJsonParser();
      p.feed(text);
      expect(p.error?.reason, text).toContain(reason);
    }
  });

  it('refuses to finish a text cut short', () => {
    const parser = new PartialJsonParser();
    parser.feed('{"a": "b');
    expect(parser.complete).toBe(false);
    expect(() => parser.finish()).toThrow(PartialJsonError);
    expect(() => parser.finish()).toThrow(/ended before the value did/);
  });

  it('for every split of a JSON text, the last partial equals JSON.parse of the whole', () => {
    fc.assert(
      fc.property(
        fc.jsonValue(),
        fc.boolean(),
        fc.array(fc.nat(), { maxLength: 30 }),
        (value, pretty, offsets) => {
          const text = JSON.stringify(value, null, pretty ? 2 : undefined);
          const whole = JSON.parse(text);
          const { parser, values } = partials(cut(text, offsets));
          expect(parser.error).toBeUndefined();
          expect(parser.complete).toBe(true);
          expect(values.at(-1)).toStrictEqual(whole);
          expect(parser.finish()).toStrictEqual(whole);
        },
      ),
      { numRuns: 400 },
    );
  });

  it('never shows a value that the whole does not extend (each partial is a prefix of the final)', () => {
    fc.assert(
      fc.property(
        fc.jsonValue({ maxDepth: 3 }),
        fc.array(fc.nat(), { maxLength: 20 }),
        (value, offsets) => {
          const text = JSON.stringify(value);
          const { values } = partials(cut(text, offsets));
          const final = JSON.stringify(JSON.parse(text));
          for (const partial of values) {
            // a partial re-serialized, minus its closing marks, is a prefix of the whole text
            // unless a number was cut (1 then 12), which only the last value settles
            const shown = JSON.stringify(partial).replace(/[\]}"]+$/, '');
            if (!/\d$/.test(shown))
              expect(final.startsWith(shown), `${shown} vs ${final}`).toBe(true);
          }
        },
      ),
      { numRuns: 200 },
    );
  });
});

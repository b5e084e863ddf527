import { describe, expect, it } from 'vitest';
import { readJsonIndex, readJsonString } from './exports.js';

/** What JSON.parse makes of `literal` as a whole value, or undefined when it is not a string. */
function parsed(literal: string): string | undefined {
  try {
    const value: unknown = JSON.parse(literal);
    return typeof value === 'string' ? value : undefined;
  } catch {
    return undefined;
  }
}

describe('readJsonString', () => {
  const literals = [
    '""',
    '"plain text, ünïcödé, 日本語 and 🎉"',
    '"a \\"quoted\\" word"',
    '"back\\\\slash"',
    '"ends in a backslash\\\\"',
    '"line\\nbreak\\ttab\\r\\b\\f\\/"',
    '"\\u00e9\\ud83c\\udf89 and a lone \\ud800"',
    '"raw\ncontrol"',
    '"raw\u0001control"',
    '"bad \\x escape"',
    '"unterminated',
    '"unterminated \\"',
  ];

  it('reads every literal as JSON.parse does, or refuses what JSON.parse refuses', () => {
    for (const literal of literals) {
      const read = readJsonString(`${literal}}}`, 0);
      const expected = parsed(literal);
      expect(read?.value, literal).toEqual(expected);
      if (read) expect(read.end, literal).toBe(literal.length);
    }
  });

  it('agrees with JSON.parse on random strings of quotes, backslashes, controls and text', () => {
    const alphabet = [
      'a',
      'é',
      '"',
      '\\',
      '\\"',
      '\\\\',
      '\\n',
      '\\u0041',
      '\n',
      '\u001f',
      ' ',
      '}',
    ];
    let seed = 7;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed / 2147483648;
    };
    for (let n = 0; n < 2000; n++) {
      let body = '';
      const length = Math.floor(random() * 8);
      for (let i = 0; i < length; i++) body += alphabet[Math.floor(random() * alphabet.length)];
      const data = `{"text":"${body}"}}`;
      const read = readJsonString(data, 8);
      let expected: string | undefined;
      try {
        const whole = JSON.parse(data.slice(0, -1)) as { text: unknown };
        expected = typeof whole.text === 'string' ? whole.text : undefined;
      } catch {
        expected = undefined;
      }
      if (expected === undefined) {
        // a record JSON.parse refuses: the literal alone must not pass for the whole record
        if (read) expect(data.slice(read.end), data).not.toBe('}}');
      } else {
        expect(read?.value, data).toBe(expected);
        expect(data.slice(read?.end ?? 0), data).toBe('}}');
      }
    }
  });
});

describe('readJsonIndex', () => {
  it('reads JSON integers and refuses leading zeros, signs and no digits', () => {
    expect(readJsonIndex('12,', 0)).toEqual({ value: 12, end: 2 });
    expect(readJsonIndex('0,', 0)).toEqual({ value: 0, end: 1 });
    expect(readJsonIndex('01,', 0)).toBeUndefined();
    expect(readJsonIndex('-1,', 0)).toBeUndefined();
    expect(readJsonIndex(',', 0)).toBeUndefined();
  });
});

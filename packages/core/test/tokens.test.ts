import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { encode as cl100k } from 'gpt-tokenizer/encoding/cl100k_base';
import { encode as o200k } from 'gpt-tokenizer/encoding/o200k_base';
import { describe, expect, it } from 'vitest';
import { estimateRequestTokens, estimateTextTokens, IMAGE_TOKEN_ESTIMATE } from './exports.js';
import { msg, PNG_1PX } from './helpers.js';

const prose = readFileSync(new URL('./fixtures/english-prose.txt', import.meta.url), 'utf8')
  .split(/\n\s*\n/)
  .map((p) => p.trim())
  .filter(Boolean);

describe('estimateTextTokens: ±10% on ordinary English (contract §3)', () => {
  it('has a corpus of ordinary English paragraphs', () => {
    expect(prose.length).toBeGreaterThanOrEqual(10);
  });
  for (const [name, encode] of [
    ['o200k', o200k],
    ['cl100k', cl100k],
  ] as const) {
    it(`lands within ±10% of ${name} on every paragraph, ±5% overall`, () => {
      let actualTotal = 0;
      let estimateTotal = 0;
      for (const paragraph of prose) {
        const actual = encode(paragraph).length;
        const estimate = estimateTextTokens(paragraph);
        actualTotal += actual;
        estimateTotal += estimate;
        expect(Math.abs(estimate - actual) / actual, paragraph.slice(0, 40)).toBeLessThanOrEqual(
          0.1,
        );
      }
      expect(Math.abs(estimateTotal - actualTotal) / actualTotal).toBeLessThanOrEqual(0.05);
    });
  }

  it('does not underestimate JSON (errs on the safe side)', () => {
    const json = JSON.stringify({
      path: 'src/index.ts',
      recursive: true,
      depth: 3,
      include: ['a/**', 'b/**'],
    });
    expect(estimateTextTokens(json)).toBeGreaterThanOrEqual(o200k(json).length);
  });

  it('counts an empty text as zero', () => {
    expect(estimateTextTokens('')).toBe(0);
  });
});

/** The rules as regular expressions: the definition the allocation-free scanner must match. */
function byPattern(text: string): number {
  let tokens = 0;
  for (const [, word, digits, space, punctuation] of text.matchAll(
    /(\p{L}+)|(\p{N}+)|(\s+)|([^\p{L}\p{N}\s]+)/gu,
  )) {
    if (word !== undefined) {
      tokens += /^[A-Za-z]+$/.test(word)
        ? 1 + Math.floor(Math.max(0, word.length - 9) / 6)
        : Math.ceil(word.length / 1.5);
    } else if (digits !== undefined) tokens += Math.ceil(digits.length / 3);
    else if (space !== undefined) tokens += space.includes('\n') ? 1 : 0;
    else if (punctuation !== undefined) tokens += Math.ceil(punctuation.length / 2);
  }
  return tokens;
}

describe('estimateTextTokens: the scanner counts what the rules say', () => {
  // letters, digits and spaces of several scripts, astral letters, lone surrogates, controls
  const pieces = [
    'word',
    'Straße',
    'naïve',
    'дом',
    '東京',
    '𝒜𝒷',
    '١٢٣',
    '½',
    '42',
    '\n',
    ' ',
    '\t',
    '\u00a0',
    '\u2028',
    '\u3000',
    '\ufeff',
    '—',
    '...',
    '{"a":1}',
    '\ud800',
    '\udc00',
    '😀',
    '\u0000',
    'x9y',
    'ＡＢ',
  ];
  const texts = fc.oneof(
    fc.string({ unit: 'binary', maxLength: 60 }),
    fc.array(fc.constantFrom(...pieces), { maxLength: 30 }).map((parts) => parts.join('')),
  );

  it('gives the figure of the regular-expression rules on any text', () => {
    fc.assert(
      fc.property(texts, (text) => {
        expect(estimateTextTokens(text)).toBe(byPattern(text));
      }),
      { numRuns: 3000 },
    );
  });

  it('gives their figure on the English corpus', () => {
    for (const paragraph of prose) expect(estimateTextTokens(paragraph)).toBe(byPattern(paragraph));
  });
});

describe('estimateRequestTokens', () => {
  it('adds messages, images, tools and the system prompt', () => {
    const text = msg('user', [{ type: 'text', text: 'Summarize README.md please' }]);
    const image = msg('user', [
      { type: 'image', source: { kind: 'base64', data: PNG_1PX }, media_type: 'image/png' },
    ]);
    const tool = {
      name: 'read_file',
      description: 'Read a file from the workspace',
      input_schema: { type: 'object', properties: { path: { type: 'string' } } },
    };
    const textOnly = estimateRequestTokens([text]);
    expect(textOnly).toBeGreaterThan(estimateTextTokens('Summarize README.md please'));
    expect(estimateRequestTokens([text, image])).toBe(textOnly + IMAGE_TOKEN_ESTIMATE + 4);
    expect(estimateRequestTokens([text], [tool])).toBeGreaterThan(textOnly + 10);
    expect(estimateRequestTokens([text], [], 'You are helpful.')).toBeGreaterThan(textOnly);
  });
});

import { describe, expect, it } from 'vitest';
import { DecimalStringSchema, numberToDecimalString, sumDecimalStrings } from './exports.js';

describe('sumDecimalStrings', () => {
  it('adds exactly, where floating point would not', () => {
    expect(0.1 + 0.2).not.toBe(0.3);
    expect(sumDecimalStrings(['0.1', '0.2'])).toBe('0.3');
    expect(sumDecimalStrings(['0.000105', '0.002091', '12'])).toBe('12.002196');
    expect(sumDecimalStrings(['0.5', '0.5'])).toBe('1');
    expect(sumDecimalStrings([])).toBe('0');
    expect(sumDecimalStrings(Array.from({ length: 10_000 }, () => '0.0000001'))).toBe('0.001');
  });

  it('refuses what is not a non-negative decimal string, naming it', () => {
    expect(() => sumDecimalStrings(['0.1', '-2'])).toThrow(/"-2"/);
    expect(() => sumDecimalStrings(['1e-3'])).toThrow(RangeError);
  });
});

describe('numberToDecimalString', () => {
  it.each([
    [5.66e-7, '0.000000566'],
    [1e-7, '0.0000001'],
    [1.5e-10, '0.00000000015'],
    [0.000654, '0.000654'],
    [1e21, '1000000000000000000000'],
    [1.25e22, '12500000000000000000000'],
    [-2.5e-8, '-0.000000025'],
    [42, '42'],
  ])('%s is %s', (value, expected) => {
    expect(numberToDecimalString(value)).toBe(expected);
  });

  it('makes a number in stored usage a decimal string the schema accepts', () => {
    const parsed = DecimalStringSchema.parse(5.66e-7);
    expect(parsed).toBe('0.000000566');
    expect(DecimalStringSchema.safeParse(parsed).success).toBe(true);
  });
});

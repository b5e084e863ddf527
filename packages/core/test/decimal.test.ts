import { describe, expect, it } from 'vitest';
import { sumDecimalStrings } from '../src/index.js';

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

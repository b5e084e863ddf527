import { describe, expect, it } from 'vitest';
import { InvalidUsageError, PROVIDER_COST_TOLERANCE, providerCostDiffers } from '../src/index.js';

describe('providerCostDiffers', () => {
  it('allows 1% of our cost either way, exactly', () => {
    expect(PROVIDER_COST_TOLERANCE).toBe('0.01');
    expect(providerCostDiffers('0.003396', '0.00342996')).toBe(false); // +1% exactly
    expect(providerCostDiffers('0.003396', '0.00336204')).toBe(false); // -1% exactly
    expect(providerCostDiffers('0.003396', '0.00342997')).toBe(true);
    expect(providerCostDiffers('0.003396', '0.00336203')).toBe(true);
  });

  it('works past the digits a binary float keeps', () => {
    // 0.1 + 0.2 in floats is 0.30000000000000004; here the figures stay exact
    expect(providerCostDiffers('0.3', '0.303')).toBe(false);
    expect(providerCostDiffers('0.3', '0.30300000000000000000001')).toBe(true);
  });

  it('treats two zeros as equal and anything against our zero as different', () => {
    expect(providerCostDiffers('0', '0')).toBe(false);
    expect(providerCostDiffers('0', '0.0000')).toBe(false);
    expect(providerCostDiffers('0', '0.000000001')).toBe(true);
  });

  it('takes another tolerance, and refuses what is not a decimal string', () => {
    expect(providerCostDiffers('1', '1.04', '0.05')).toBe(false);
    expect(providerCostDiffers('1', '1.06', '0.05')).toBe(true);
    expect(() => providerCostDiffers('1', '1e-3')).toThrow(InvalidUsageError);
    expect(() => providerCostDiffers('abc', '1')).toThrow(InvalidUsageError);
  });
});

import { DECIMAL_STRING, Exact } from './decimal.js';
import { InvalidUsageError } from './errors.js';

/**
 * How far a provider's own cost figure may stray from the locally computed cost, as a fraction
 * of ours, before it counts as a mismatch: 1%.
 */
export const PROVIDER_COST_TOLERANCE = '0.01';

/**
 * Whether a provider's own cost figure (`provider_cost_usd`, e.g. OpenRouter's `usage.cost`)
 * differs from ours (`cost_usd`) by more than `tolerance` of ours, in exact decimal arithmetic.
 * Two zeros are equal; when ours is zero, any non-zero figure differs.
 *
 * @param tolerance A decimal string, the fraction of `costUsd` allowed (default `"0.01"`).
 * @throws InvalidUsageError when an argument is not a decimal string.
 */
export function providerCostDiffers(
  costUsd: string,
  providerCostUsd: string,
  tolerance: string = PROVIDER_COST_TOLERANCE,
): boolean {
  const ours = decimal('cost_usd', costUsd);
  const theirs = decimal('provider_cost_usd', providerCostUsd);
  const allowed = decimal('tolerance', tolerance).times(ours.abs());
  return theirs.minus(ours).abs().greaterThan(allowed);
}

function decimal(field: string, value: string) {
  if (!DECIMAL_STRING.test(value)) {
    throw new InvalidUsageError(
      field,
      `must be a decimal string such as "0.000654", got "${value}"`,
    );
  }
  return new Exact(value);
}

import type { ErrorClass } from '@yourtool/core';

/**
 * What an {@link AvailabilityTracker} tells about its own transitions, so shared availability
 * can publish them (decision 0183). Calls are synchronous and must not throw.
 */
export interface AvailabilityListener {
  /** The key became unavailable for `cooldownMs` (threshold reached, or a failed probe). */
  unavailable(key: string, cooldownMs: number, lastError: ErrorClass): void;
  /** This instance's probe of the key succeeded. */
  probeSucceeded(key: string): void;
  /** This instance's probe ended without a verdict on health (or timed out). */
  probeReleased(key: string): void;
  /** The provider refused the credentials. */
  notConfigured(key: string): void;
  /** The provider was reconfigured. */
  configured(key: string): void;
}

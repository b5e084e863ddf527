import type { SessionStore } from './session-store.js';

// The availability verdicts several instances of an application share through their store
// (issue 49, decision 0183): core defines the shape, the store implements it, the router uses
// it, so neither router nor session imports the store.

/** Where a shared availability key stands; `half_open` is `unavailable` past its deadline. */
export type SharedAvailabilityState = 'available' | 'unavailable' | 'probing' | 'not_configured';

/** One key's shared verdict (`provider:<name>` or `model:<provider>/<model>`). */
export interface SharedAvailabilityRecord {
  /** `provider:<name>` or `model:<id>`, as the router's tracker names its keys. */
  readonly key: string;
  /** The verdict. */
  readonly state: SharedAvailabilityState;
  /** End of the cooldown in epoch ms on the store's clock (absolute, so restarts keep it); 0 when none. */
  readonly until: number;
  /** The instance probing the key (`probing`), else null. */
  readonly probeOwner: string | null;
  /** When that probe started, epoch ms on the store's clock; 0 when none. */
  readonly probeStarted: number;
  /** The cooldown the next failed probe doubles, in ms. */
  readonly cooldownMs: number;
  /** The error class of the failures that made it unavailable, if any. */
  readonly lastError: string | null;
}

/** What {@link SharedAvailabilityStore.markUnavailable} records. */
export interface SharedUnavailableInput {
  /** The key. */
  readonly key: string;
  /** Cooldown from now, in ms: the deadline becomes the later of the stored one and now + this. */
  readonly cooldownMs: number;
  /** The error class of the failures. */
  readonly lastError: string | null;
}

/**
 * Availability verdicts in a store several processes share. Every write is one conditional
 * statement, so concurrent instances agree: a deadline only ever moves later, exactly one
 * instance wins a probe, and only the probe's owner (or a reset) makes a probed key available.
 */
export interface SharedAvailabilityStore {
  /** Every stored key that is not plainly available, and the store's clock (epoch ms). */
  readAvailability(): Promise<{ now: number; records: SharedAvailabilityRecord[] }>;
  /** Makes a key unavailable; a stored later deadline stays (a repeat never shortens a cooldown). */
  markUnavailable(input: SharedUnavailableInput): Promise<SharedAvailabilityRecord>;
  /**
   * Elects the prober of a key whose cooldown ended, or whose probe outlived `probeTimeoutMs`:
   * `true` for the one instance whose conditional update won.
   */
  claimProbe(key: string, owner: string, probeTimeoutMs: number): Promise<boolean>;
  /** Ends a probe owned by `owner` without a verdict: unavailable again with the deadline passed. */
  releaseProbe(key: string, owner: string): Promise<void>;
  /**
   * The probe of `owner` succeeded: the key is available again. Other successes change nothing
   * shared, so a late reply of a call sent before a cooldown never ends it.
   */
  probeSucceeded(key: string, owner: string): Promise<void>;
  /** Marks a key not configured (credentials refused) until {@link clearAvailability}. */
  markNotConfigured(key: string): Promise<void>;
  /** Forgets a key (new credentials). */
  clearAvailability(key: string): Promise<void>;
}

/** A session store that can also share availability verdicts (the SQL store can). */
export interface SharedAvailabilityProvider {
  /** The shared availability of this store's database. */
  sharedAvailability(): SharedAvailabilityStore;
}

/** Whether `store` can share availability verdicts between the instances using it. */
export function supportsSharedAvailability(
  store: SessionStore,
): store is SessionStore & SharedAvailabilityProvider {
  return typeof (store as Partial<SharedAvailabilityProvider>).sharedAvailability === 'function';
}

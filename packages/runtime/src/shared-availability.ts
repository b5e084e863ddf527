import { type Logger, type SessionStore, supportsSharedAvailability } from '@yourtool/core';
import { AvailabilityTracker, SharedAvailability } from '@yourtool/router';
import type { RuntimeOptions } from './runtime-options.js';
import { RuntimeSetupError } from './setup-error.js';

/**
 * The runtime's availability tracker: alone (the default), or sharing its verdicts through the
 * store when `sharedAvailability` is set (decision 0183), in which case the stored verdicts are
 * read before the runtime serves anything, so a restart keeps running cooldowns.
 * @throws RuntimeSetupError when the store cannot share availability (the in-memory one).
 */
export async function availabilityOf(
  options: RuntimeOptions,
  store: SessionStore,
  logger: Logger,
): Promise<{ tracker: AvailabilityTracker; shared: SharedAvailability | undefined }> {
  const setting = options.sharedAvailability;
  if (setting === undefined || setting === false) {
    return { tracker: new AvailabilityTracker(options.availability), shared: undefined };
  }
  if (!supportsSharedAvailability(store)) {
    throw new RuntimeSetupError(
      'invalid_option',
      'sharedAvailability needs a store the instances share (a sqlite: or postgres:// store URL, or an SqlSessionStore); the in-memory store is one process',
    );
  }
  const shared = new SharedAvailability({
    store: store.sharedAvailability(),
    logger,
    ...(setting === true ? {} : setting),
  });
  const tracker = new AvailabilityTracker({
    ...options.availability,
    listener: shared.listener,
    probeGate: shared.probeGate,
  });
  await shared.attach(tracker);
  return { tracker, shared };
}

import { randomUUID } from 'node:crypto';
import type { ErrorClass, Logger, SharedAvailabilityStore } from '@yourtool/core';
import type { AvailabilityTracker } from './availability.js';
import type { AvailabilityListener } from './availability-listener.js';

/** Options of {@link SharedAvailability}. */
export interface SharedAvailabilityOptions {
  /** Where the verdicts live (the SQL store's `sharedAvailability()`). */
  store: SharedAvailabilityStore;
  /** How often the instance reads the others' verdicts, in ms. Default 500 (seen within 1 s). */
  refreshMs?: number;
  /** This instance's name in the probe election. Default a random UUID. */
  instanceId?: string;
  /** Receives a WARN when the store cannot be reached (the local tracker goes on alone). */
  logger?: Logger;
}

/** What {@link SharedAvailability} needs of a tracker (the router's `AvailabilityTracker`). */
export type SharedTracker = Pick<
  AvailabilityTracker,
  'adopt' | 'halfOpenKeys' | 'probeTimeoutMs' | 'state'
>;

/** Default of {@link SharedAvailabilityOptions.refreshMs}. */
export const DEFAULT_AVAILABILITY_REFRESH_MS = 500;

/**
 * Shares an {@link AvailabilityTracker}'s verdicts with the other instances on one store
 * (decision 0183). The tracker still reacts at once to its own failures; this publishes its
 * transitions, reads the others' every `refreshMs`, and runs the probe election: when a
 * cooldown ends, each instance tries one conditional update and only the winner's tracker
 * lets a call through as the probe; a probe silent past the probe timeout is taken over.
 *
 * Make one with {@link SharedAvailability.create} before the tracker, pass
 * `listener` and `probeGate` to the tracker, then {@link attach} it.
 */
export class SharedAvailability {
  /** This instance's name in the probe election. */
  readonly instanceId: string;
  /** Give this to the tracker's `listener` option. */
  readonly listener: AvailabilityListener;
  /** Give this to the tracker's `probeGate` option. */
  readonly probeGate: (key: string) => boolean;
  readonly #store: SharedAvailabilityStore;
  readonly #refreshMs: number;
  readonly #logger: Logger | undefined;
  readonly #claimed = new Set<string>();
  /** Keys with a write in flight: a read that began before it lands must not undo it. */
  readonly #pending = new Map<string, number>();
  #writes: Promise<unknown> = Promise.resolve();
  #tracker: SharedTracker | undefined;
  #timer: ReturnType<typeof setInterval> | undefined;
  #refreshing: Promise<void> | undefined;

  /** @throws TypeError when `refreshMs` is not a whole number of 10 ms or more. */
  constructor(options: SharedAvailabilityOptions) {
    const refresh = options.refreshMs ?? DEFAULT_AVAILABILITY_REFRESH_MS;
    if (!Number.isSafeInteger(refresh) || refresh < 10) {
      throw new TypeError(
        `sharedAvailability.refreshMs must be a whole number ≥ 10, got ${refresh}`,
      );
    }
    this.#store = options.store;
    this.#refreshMs = refresh;
    this.#logger = options.logger;
    this.instanceId = options.instanceId ?? randomUUID();
    this.probeGate = (key) => this.#claimed.has(key);
    this.listener = {
      unavailable: (key, cooldownMs, lastError: ErrorClass) => {
        this.#claimed.delete(key);
        this.#write(key, () => this.#store.markUnavailable({ key, cooldownMs, lastError }));
      },
      probeSucceeded: (key) => {
        this.#claimed.delete(key);
        this.#write(key, () => this.#store.probeSucceeded(key, this.instanceId));
      },
      probeReleased: (key) => {
        if (!this.#claimed.delete(key)) return;
        this.#write(key, () => this.#store.releaseProbe(key, this.instanceId));
      },
      notConfigured: (key) => this.#write(key, () => this.#store.markNotConfigured(key)),
      configured: (key) => this.#write(key, () => this.#store.clearAvailability(key)),
    };
  }

  /**
   * Connects the tracker, reads the stored verdicts once (so a restarted instance keeps the
   * cooldowns still running) and starts the refresh timer (unref'd: it keeps no process alive).
   */
  async attach(tracker: SharedTracker): Promise<void> {
    this.#tracker = tracker;
    await this.refresh();
    this.#timer = setInterval(() => void this.refresh(), this.#refreshMs);
    this.#timer.unref?.();
  }

  /** Reads the others' verdicts into the tracker and runs the probe election once. */
  refresh(): Promise<void> {
    this.#refreshing ??= this.#refresh().finally(() => {
      this.#refreshing = undefined;
    });
    return this.#refreshing;
  }

  /** Stops the timer and waits for the writes in flight. */
  async close(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#refreshing;
    await this.#writes;
  }

  async #refresh(): Promise<void> {
    const tracker = this.#tracker;
    if (!tracker) return;
    try {
      const { now, records } = await this.#store.readAvailability();
      for (const record of records) {
        if (this.#pending.has(record.key)) continue;
        const mine = record.state === 'probing' && record.probeOwner === this.instanceId;
        if (!mine) this.#claimed.delete(record.key);
        tracker.adopt(record, now);
      }
      await this.#elect(tracker);
    } catch (error) {
      this.#warn('read', error);
    }
  }

  /**
   * Runs the probe election for each half-open key, providers first. A model whose provider is
   * down is claimed only by its provider's prober, so the two keys of one probe call never go
   * to two instances that would each wait for the other.
   */
  async #elect(tracker: SharedTracker): Promise<void> {
    const keys = tracker
      .halfOpenKeys()
      .sort((a, b) => Number(a.startsWith('model:')) - Number(b.startsWith('model:')));
    for (const key of keys) {
      if (this.#claimed.has(key) || this.#pending.has(key)) continue;
      if (key.startsWith('model:')) {
        const provider = key.slice('model:'.length).split(':')[0] ?? '';
        const providerKey = `provider:${provider}`;
        if (tracker.state({ provider }) !== 'available' && !this.#claimed.has(providerKey))
          continue;
      }
      if (await this.#store.claimProbe(key, this.instanceId, tracker.probeTimeoutMs)) {
        this.#claimed.add(key);
      }
    }
  }

  /** Queues a write of `key`, in order; a failed write is logged, never thrown. */
  #write(key: string, write: () => Promise<unknown>): void {
    this.#pending.set(key, (this.#pending.get(key) ?? 0) + 1);
    this.#writes = this.#writes
      .then(write)
      .catch((error: unknown) => this.#warn('write', error))
      .finally(() => {
        const left = (this.#pending.get(key) ?? 1) - 1;
        if (left <= 0) this.#pending.delete(key);
        else this.#pending.set(key, left);
      });
  }

  #warn(what: 'read' | 'write', error: unknown): void {
    const message = error instanceof Error ? error.message : String(error);
    this.#logger?.warn(
      { component: 'shared-availability', operation: what, error: message },
      `shared availability: the store ${what} failed; this instance goes on with its own verdicts`,
    );
  }
}

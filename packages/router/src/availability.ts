import {
  type BusEvent,
  type ErrorClass,
  type EventBus,
  type LlmCallCompletedEvent,
  type LlmCallFailedEvent,
  parseModelId,
  type SharedAvailabilityRecord,
} from '@yourtool/core';
import type { AvailabilityListener } from './availability-listener.js';

/** Where a provider or a model stands. */
export type AvailabilityState =
  /** Calls go through. */
  | 'available'
  /** Sustained failures: no calls until the cooldown ends. */
  | 'unavailable'
  /** The cooldown ended: the next call is a probe. */
  | 'half_open'
  /** A probe call is in flight; others wait for its outcome. */
  | 'probing'
  /** Credentials were refused: no calls until reconfigured. */
  | 'not_configured';

/** Options of {@link AvailabilityTracker}. */
export interface AvailabilityOptions {
  /** Clock in ms (injectable for tests). Default `Date.now`. */
  now?: () => number;
  /** Consecutive failed calls that make a model or provider unavailable. Default 3. */
  failureThreshold?: number;
  /** Failures older than this no longer count toward the threshold. Default 60 s. */
  failureWindowMs?: number;
  /** First cooldown. Default 30 s; doubles after each failed probe. */
  cooldownMs?: number;
  /** Longest cooldown. Default 10 min. */
  maxCooldownMs?: number;
  /**
   * How long a probe may go without an outcome (`llm.call_completed` or a final
   * `llm.call_failed` of its model or provider) before it expires and the key is half-open
   * again, so the next call probes anew. Covers a probe that was routed but never run, or
   * whose outcome was lost. Default 5 min.
   */
  probeTimeoutMs?: number;
  /** Hears this tracker's own transitions (shared availability publishes them; decision 0183). */
  listener?: AvailabilityListener;
  /**
   * Whether this instance may probe a key whose cooldown ended (shared availability: the one
   * instance that won the store's election). Default: always.
   */
  probeGate?: (key: string) => boolean;
}

/** The verdict for one model. */
export interface AvailabilityVerdict {
  /** Whether a call may be routed to the model now. */
  ok: boolean;
  /** Whether that call would be the probe of a half-open model or provider. */
  probe: boolean;
  /** The state that decided: the provider's when it refuses, else the model's. */
  state: AvailabilityState;
  /** Why not, when `ok` is false. */
  reason: string | null;
}

interface KeyState {
  state: 'available' | 'unavailable' | 'probing' | 'not_configured';
  failures: number[];
  /** End of the cooldown (`unavailable`). */
  until: number;
  /** When the probe started (`probing`). */
  probeStarted: number;
  cooldown: number;
  lastError: ErrorClass | null;
}

/** Failure classes that count against a model. */
const MODEL_CLASSES: ReadonlySet<ErrorClass> = new Set(['rate_limit', 'server_error', 'network']);
/** Failure classes that count against its whole provider. */
const PROVIDER_CLASSES: ReadonlySet<ErrorClass> = new Set(['server_error', 'network']);

/** Default of {@link AvailabilityOptions.probeTimeoutMs}. */
export const DEFAULT_PROBE_TIMEOUT_MS = 300_000;

/**
 * The availability state machine of the routing engine, per (provider, model) and per provider,
 * fed by `llm.call_completed` / `llm.call_failed`:
 *
 * - `failureThreshold` consecutive failed calls (final failures, after the adapter's own
 *   retries) of class rate_limit, server_error or network within `failureWindowMs` make the
 *   model unavailable for a cooldown; server_error and network failures also count against the
 *   provider, which makes every model of it unavailable;
 * - after the cooldown the key is half-open: the next routed call is a probe and others wait;
 *   the probe's success makes it available again, its failure restarts a doubled cooldown;
 * - a probe whose outcome says nothing about the key's health (cancelled, invalid_request,
 *   context_overflow, other; for a provider also rate_limit, which the provider answered) is
 *   released: the key is half-open again, cooldown unchanged, and the next call probes;
 * - a probe that reports nothing within `probeTimeoutMs` expires the same way;
 * - an auth failure marks the provider not configured until {@link markConfigured};
 * - any successful call resets the failure count of its model and provider.
 */
export class AvailabilityTracker {
  readonly #keys = new Map<string, KeyState>();
  readonly #now: () => number;
  readonly #threshold: number;
  readonly #window: number;
  readonly #cooldown: number;
  readonly #maxCooldown: number;
  readonly #probeTimeout: number;
  readonly #listener: AvailabilityListener | undefined;
  readonly #gate: (key: string) => boolean;

  /** A tracker with the given thresholds and clock (every option has a default). */
  constructor(options: AvailabilityOptions = {}) {
    this.#now = options.now ?? Date.now;
    this.#threshold = options.failureThreshold ?? 3;
    this.#window = options.failureWindowMs ?? 60_000;
    this.#cooldown = options.cooldownMs ?? 30_000;
    this.#maxCooldown = options.maxCooldownMs ?? 600_000;
    this.#probeTimeout = options.probeTimeoutMs ?? DEFAULT_PROBE_TIMEOUT_MS;
    this.#listener = options.listener;
    this.#gate = options.probeGate ?? (() => true);
  }

  /** How long a probe may go without an outcome, in ms. */
  get probeTimeoutMs(): number {
    return this.#probeTimeout;
  }

  /**
   * Takes another instance's verdict on a key (shared availability): its deadline, translated
   * from the store's clock `storeNow` to this tracker's, never shortens a later local one.
   */
  adopt(record: SharedAvailabilityRecord, storeNow: number): void {
    const now = this.#now();
    if (record.state === 'available') {
      const state = this.#keys.get(record.key);
      if (state && state.state !== 'not_configured') {
        state.state = 'available';
        state.failures = [];
        state.cooldown = this.#cooldown;
      }
      return;
    }
    const state = this.#key(record.key);
    state.lastError = (record.lastError as ErrorClass | null) ?? state.lastError;
    if (record.state === 'not_configured') {
      state.state = 'not_configured';
      return;
    }
    if (record.cooldownMs > 0) state.cooldown = record.cooldownMs;
    const until = now + (record.until - storeNow);
    if (record.state === 'probing') {
      // this instance won the election: its tracker lets the probe through itself
      if (this.#gate(record.key)) return;
      state.state = 'probing';
      state.probeStarted = now - (storeNow - record.probeStarted);
      state.until = Math.min(until, now);
      return;
    }
    if (state.state === 'unavailable' && state.until > until) return;
    if (state.state === 'probing' && this.#gate(record.key)) return;
    state.state = 'unavailable';
    state.until = until;
  }

  /** Keys whose cooldown ended (half-open here), for the shared probe election. */
  halfOpenKeys(): string[] {
    const now = this.#now();
    return [...this.#keys.keys()].filter((key) => {
      const state = this.#settled(key);
      return state?.state === 'unavailable' && now >= state.until;
    });
  }

  /** Feeds every `llm.call_*` event of a bus into the tracker; returns the unsubscribe function. */
  connect(bus: EventBus): () => void {
    return bus.onAny((event) => this.record(event));
  }

  /** Applies one bus event (others are ignored). */
  record(event: BusEvent): void {
    if (event.type === 'llm.call_completed') this.#success(event);
    else if (event.type === 'llm.call_failed' && event.final) this.#failure(event);
  }

  /** Whether a call may go to `model` now (provider first, then the model). */
  check(model: string): AvailabilityVerdict {
    const { provider } = parseModelId(model);
    const providerVerdict = this.#verdict(`provider:${provider}`, `provider ${provider}`);
    if (!providerVerdict.ok) return providerVerdict;
    const modelVerdict = this.#verdict(`model:${model}`, model);
    if (!modelVerdict.ok) return modelVerdict;
    return { ...modelVerdict, probe: modelVerdict.probe || providerVerdict.probe };
  }

  /**
   * Records that a call was routed to `model`: a half-open key starts its probe, which ends with
   * the call's outcome on the bus or expires after `probeTimeoutMs`.
   */
  routed(model: string): void {
    const { provider } = parseModelId(model);
    const now = this.#now();
    for (const key of [`provider:${provider}`, `model:${model}`]) {
      const state = this.#settled(key);
      if (state?.state === 'unavailable' && now >= state.until && this.#gate(key)) {
        state.state = 'probing';
        state.probeStarted = now;
      }
    }
  }

  /** The state of a model (`model` given) or provider. */
  state(target: { provider: string } | { model: string }): AvailabilityState {
    const key = 'model' in target ? `model:${target.model}` : `provider:${target.provider}`;
    const state = this.#settled(key);
    if (!state) return 'available';
    if (state.state === 'unavailable' && this.#now() >= state.until) return 'half_open';
    return state.state;
  }

  /** Clears a provider's not-configured mark (new credentials). */
  markConfigured(provider: string): void {
    this.#keys.delete(`provider:${provider}`);
    this.#listener?.configured(`provider:${provider}`);
  }

  #key(key: string): KeyState {
    let state = this.#keys.get(key);
    if (!state) {
      state = {
        state: 'available',
        failures: [],
        until: 0,
        probeStarted: 0,
        cooldown: this.#cooldown,
        lastError: null,
      };
      this.#keys.set(key, state);
    }
    return state;
  }

  /** A key's state, with a probe past its deadline expired back to half-open. */
  #settled(key: string): KeyState | undefined {
    const state = this.#keys.get(key);
    if (state?.state === 'probing' && this.#now() - state.probeStarted >= this.#probeTimeout)
      this.#release(state, key);
    return state;
  }

  /** Ends a probe without a verdict on health: half-open again, cooldown unchanged. */
  #release(state: KeyState, key: string): void {
    state.state = 'unavailable';
    state.until = Math.min(state.until, this.#now());
    this.#listener?.probeReleased(key);
  }

  #verdict(key: string, label: string): AvailabilityVerdict {
    const state = this.#settled(key);
    if (!state || state.state === 'available')
      return { ok: true, probe: false, state: 'available', reason: null };
    if (state.state === 'not_configured') {
      return {
        ok: false,
        probe: false,
        state: 'not_configured',
        reason: `${label} refused the credentials (auth); reconfigure it`,
      };
    }
    if (state.state === 'probing') {
      return {
        ok: false,
        probe: false,
        state: 'probing',
        reason: `${label} is being probed after failures`,
      };
    }
    const now = this.#now();
    if (now >= state.until && !this.#gate(key)) {
      return {
        ok: false,
        probe: false,
        state: 'probing',
        reason: `${label} is being probed by another instance after failures`,
      };
    }
    if (now >= state.until) return { ok: true, probe: true, state: 'half_open', reason: null };
    const seconds = Math.ceil((state.until - now) / 1000);
    return {
      ok: false,
      probe: false,
      state: 'unavailable',
      reason: `${label} is unavailable after repeated ${state.lastError ?? 'failures'}; retry in ${seconds} s`,
    };
  }

  #success(event: LlmCallCompletedEvent): void {
    for (const key of [`provider:${event.provider}`, `model:${event.model}`]) {
      const state = this.#keys.get(key);
      if (!state || state.state === 'not_configured') continue;
      if (state.state === 'probing') this.#listener?.probeSucceeded(key);
      state.state = 'available';
      state.failures = [];
      state.cooldown = this.#cooldown;
    }
  }

  #failure(event: LlmCallFailedEvent): void {
    const modelKey = `model:${event.model}`;
    const providerKey = `provider:${event.provider}`;
    if (MODEL_CLASSES.has(event.error_class)) this.#count(modelKey, event.error_class);
    else this.#releaseProbe(modelKey);
    if (event.error_class === 'auth') {
      const state = this.#key(providerKey);
      state.state = 'not_configured';
      state.lastError = 'auth';
      this.#listener?.notConfigured(providerKey);
    } else if (PROVIDER_CLASSES.has(event.error_class)) {
      this.#count(providerKey, event.error_class);
    } else {
      this.#releaseProbe(providerKey);
    }
  }

  /** A call outcome that says nothing about this key's health ends its probe, if it had one. */
  #releaseProbe(key: string): void {
    const state = this.#keys.get(key);
    if (state?.state === 'probing') this.#release(state, key);
  }

  #count(key: string, errorClass: ErrorClass): void {
    const state = this.#key(key);
    const now = this.#now();
    state.lastError = errorClass;
    if (state.state === 'not_configured') return;
    if (state.state === 'probing' || (state.state === 'unavailable' && now >= state.until)) {
      // the probe failed: back off longer
      state.cooldown = Math.min(state.cooldown * 2, this.#maxCooldown);
      state.state = 'unavailable';
      state.until = now + state.cooldown;
      state.failures = [];
      this.#listener?.unavailable(key, state.cooldown, errorClass);
      return;
    }
    if (state.state === 'unavailable') return;
    state.failures = [...state.failures.filter((t) => now - t <= this.#window), now];
    if (state.failures.length >= this.#threshold) {
      state.state = 'unavailable';
      state.until = now + state.cooldown;
      state.failures = [];
      this.#listener?.unavailable(key, state.cooldown, errorClass);
    }
  }
}

import { linkAbort } from './abort-link.js';
import { NetworkError } from './errors.js';

/** Default longest silence between two chunks of a provider stream, in seconds. */
export const DEFAULT_IDLE_TIMEOUT_SECONDS = 60;

/** Which limit ended an attempt. */
export type DeadlineKind = 'overall' | 'idle';

/** The limits of one attempt, in milliseconds (`undefined`: no limit). */
export interface AttemptLimits {
  /** Longest the whole attempt may take, request to last byte (`timeout_seconds`). */
  timeoutMs?: number | undefined;
  /** Longest silence between two stream chunks once the first one arrived. */
  idleTimeoutMs?: number | undefined;
}

/**
 * The deadlines of one attempt of a provider call. Its `signal` aborts when the caller's signal
 * aborts (cancellation) or when a deadline passes; `expired` tells which deadline it was, so a
 * timeout is reported as `network` (retried) and a cancellation as `cancelled`.
 *
 * The SDKs' own timers stop once response headers arrive, so a provider that sends headers and
 * then stalls would otherwise hold a call for as long as the HTTP client's body timeout (minutes).
 * The overall deadline covers the whole exchange; the idle deadline covers the gaps between
 * stream chunks. The wait for the first chunk is under the overall deadline only: reasoning
 * models legitimately stream nothing while they think (docs/decisions/0075).
 *
 * The idle check costs one timer per idle period, not one per chunk: {@link touch} only records
 * the time, and the timer re-arms itself for the remainder when it fires early.
 */
export class AttemptDeadline {
  /** Aborts on cancellation or when a deadline passes. Hand it to the transport. */
  readonly signal: AbortSignal;
  readonly #controller = new AbortController();
  readonly #limits: AttemptLimits;
  readonly #now: () => number;
  #expired: DeadlineKind | null = null;
  #overallTimer: ReturnType<typeof setTimeout> | undefined;
  #idleTimer: ReturnType<typeof setTimeout> | undefined;
  #lastActivity = 0;
  readonly #unlink: () => void;

  /** Starts the overall deadline at once; the idle one starts with {@link armIdle}. */
  constructor(callSignal: AbortSignal, limits: AttemptLimits, now: () => number = Date.now) {
    // linked rather than `AbortSignal.any` (decision 0204); `clear` unlinks it
    this.signal = this.#controller.signal;
    this.#unlink = linkAbort(callSignal, this.#controller);
    this.#limits = limits;
    this.#now = now;
    const timeout = limits.timeoutMs;
    if (timeout !== undefined && Number.isFinite(timeout)) {
      this.#overallTimer = setTimeout(() => this.#expire('overall'), timeout);
    }
  }

  /** Which deadline passed, or `null` while none has. */
  get expired(): DeadlineKind | null {
    return this.#expired;
  }

  /** Starts (or restarts) the idle deadline from now. */
  armIdle(): void {
    const idle = this.#limits.idleTimeoutMs;
    if (idle === undefined || !Number.isFinite(idle) || this.#expired) return;
    this.#lastActivity = this.#now();
    if (this.#idleTimer === undefined) this.#scheduleIdle(idle);
  }

  /** Records that a chunk arrived (the idle deadline counts from the latest one). */
  touch(): void {
    this.#lastActivity = this.#now();
  }

  /** Stops both timers. Call when the attempt ends, however it ends. */
  clear(): void {
    this.#unlink();
    if (this.#overallTimer !== undefined) clearTimeout(this.#overallTimer);
    if (this.#idleTimer !== undefined) clearTimeout(this.#idleTimer);
    this.#overallTimer = undefined;
    this.#idleTimer = undefined;
  }

  /**
   * Settles like `promise`, or rejects as soon as {@link signal} aborts, so a transport that
   * ignores its abort signal can never keep the call waiting.
   */
  race<T>(promise: Promise<T>): Promise<T> {
    if (this.signal.aborted) {
      promise.catch(() => {});
      return Promise.reject(this.signal.reason);
    }
    return new Promise<T>((resolve, reject) => {
      const onAbort = () => reject(this.signal.reason);
      this.signal.addEventListener('abort', onAbort, { once: true });
      promise.then(
        (value) => {
          this.signal.removeEventListener('abort', onAbort);
          resolve(value);
        },
        (error: unknown) => {
          this.signal.removeEventListener('abort', onAbort);
          reject(error);
        },
      );
    });
  }

  /**
   * The `network` error a passed deadline is reported as (retryable like any network failure).
   */
  error(fields: { request_id: string; provider: string; cause?: unknown }): NetworkError {
    const message =
      this.#expired === 'idle'
        ? `${fields.provider}: the provider stream went silent for ${seconds(this.#limits.idleTimeoutMs)} (idle_timeout_seconds)`
        : `${fields.provider}: no complete response within ${seconds(this.#limits.timeoutMs)} (timeout_seconds)`;
    return new NetworkError(message, {
      request_id: fields.request_id,
      provider: fields.provider,
      provider_message: this.#expired === 'idle' ? 'stream idle timeout' : 'timeout',
      ...(fields.cause === undefined ? {} : { cause: fields.cause }),
    });
  }

  #scheduleIdle(delay: number): void {
    this.#idleTimer = setTimeout(() => {
      this.#idleTimer = undefined;
      const idle = this.#limits.idleTimeoutMs ?? Number.POSITIVE_INFINITY;
      const silentFor = this.#now() - this.#lastActivity;
      if (silentFor >= idle) this.#expire('idle');
      else this.#scheduleIdle(idle - silentFor);
    }, delay);
  }

  #expire(kind: DeadlineKind): void {
    if (this.#expired || this.signal.aborted) return;
    this.#expired = kind;
    this.clear();
    this.#controller.abort(new DeadlineExpired(kind));
  }
}

/** The abort reason of an attempt whose deadline passed. */
export class DeadlineExpired extends Error {
  /** Which deadline. */
  readonly kind: DeadlineKind;

  constructor(kind: DeadlineKind) {
    super(kind === 'idle' ? 'stream idle timeout' : 'request timeout');
    this.name = 'DeadlineExpired';
    this.kind = kind;
  }
}

function seconds(ms: number | undefined): string {
  if (ms === undefined) return 'the limit';
  const s = ms / 1000;
  return `${Number.isInteger(s) ? s : s.toFixed(3).replace(/0+$/, '')} s`;
}

import {
  AdapterError,
  CancelledError,
  isRetryableErrorClass,
  OtherAdapterError,
  RateLimitError,
} from './errors.js';

/** Longest a `retry-after` hint is honoured, in seconds (contract §6.4). */
export const MAX_RETRY_AFTER_SECONDS = 60;

/** Something observable about one attempt of a retried call. */
export type AttemptEvent =
  | {
      type: 'attempt.start';
      /** 1 for the first attempt. */
      attempt: number;
      /** Retries made before this attempt (0 for the first). */
      retry_count: number;
      request_id: string;
    }
  | {
      type: 'attempt.failed';
      attempt: number;
      retry_count: number;
      request_id: string;
      error: AdapterError;
      /** Whether another attempt follows. */
      will_retry: boolean;
      /** How long the helper waits before the next attempt, when there is one. */
      delay_ms: number | null;
    }
  | {
      type: 'attempt.succeeded';
      attempt: number;
      retry_count: number;
      request_id: string;
    };

/** Options of {@link withRetry}. */
export interface RetryOptions {
  /** Additional attempts after the first: total attempts = 1 + maxRetries. */
  maxRetries: number;
  /** Canonical request id, stamped on errors and attempt events. */
  requestId?: string;
  /** Aborts the call and any backoff sleep with a {@link CancelledError}. */
  signal?: AbortSignal;
  /** Observes each attempt (e.g. to emit `llm.call_started` / `llm.call_failed`). */
  onAttempt?: (event: AttemptEvent) => void;
  /** First backoff step in ms; doubles each retry. Default 1000. */
  baseDelayMs?: number;
  /** Upper bound of one backoff sleep in ms. Default 60 000. */
  maxDelayMs?: number;
  /** Source of jitter in [0, 1). Default `Math.random`. */
  random?: () => number;
  /** Maps an unknown thrown value to an AdapterError. Default: `other`, not retried. */
  toAdapterError?: (error: unknown) => AdapterError;
}

/** Context handed to each attempt. */
export interface AttemptContext {
  /** 1 for the first attempt. */
  attempt: number;
  /** The caller's signal, if any. */
  signal: AbortSignal | undefined;
}

/**
 * How long to wait before retry number `retryIndex` (0-based) after `error`.
 *
 * A rate-limit `retry-after` hint is honoured, capped at 60 s. Otherwise exponential backoff:
 * `baseDelayMs * 2^retryIndex` plus up to one `baseDelayMs` of jitter, capped at `maxDelayMs`.
 */
export function computeRetryDelayMs(
  error: AdapterError,
  retryIndex: number,
  options: Pick<RetryOptions, 'baseDelayMs' | 'maxDelayMs' | 'random'> = {},
): number {
  if (error instanceof RateLimitError && error.retry_after_seconds !== null) {
    return Math.round(Math.min(error.retry_after_seconds, MAX_RETRY_AFTER_SECONDS) * 1000);
  }
  const base = options.baseDelayMs ?? 1000;
  const max = options.maxDelayMs ?? MAX_RETRY_AFTER_SECONDS * 1000;
  const random = options.random ?? Math.random;
  const delay = base * 2 ** retryIndex + random() * base;
  // whole milliseconds: the figure reaches events and logs, where a fraction is noise
  return Math.round(Math.min(delay, max));
}

/** Sleeps `ms`, rejecting with {@link CancelledError} as soon as `signal` aborts. */
export function sleep(ms: number, signal?: AbortSignal, requestId = ''): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(new CancelledError('cancelled while waiting to retry', { request_id: requestId }));
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(new CancelledError('cancelled while waiting to retry', { request_id: requestId }));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

function defaultToAdapterError(error: unknown): AdapterError {
  if (error instanceof AdapterError) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new OtherAdapterError(message, { cause: error });
}

/**
 * Runs `fn` with the bounded retry of contract §6.4: at most `1 + maxRetries` attempts; only
 * `rate_limit`, `server_error` and `network` are retried; exponential backoff with jitter;
 * `retry-after` honoured up to 60 s. The error finally thrown carries `attempts`, `request_id`
 * and `retryable` (true for transient classes, so the caller knows a later call may succeed).
 */
export async function withRetry<T>(
  fn: (context: AttemptContext) => Promise<T>,
  options: RetryOptions,
): Promise<T> {
  const requestId = options.requestId ?? '';
  const toAdapterError = options.toAdapterError ?? defaultToAdapterError;
  const maxRetries = Math.max(0, Math.floor(options.maxRetries));
  if (options.signal?.aborted) {
    throw new CancelledError('the request was cancelled before it started', {
      request_id: requestId,
      attempts: 0,
    });
  }
  for (let retry = 0; ; retry++) {
    const attempt = retry + 1;
    options.onAttempt?.({
      type: 'attempt.start',
      attempt,
      retry_count: retry,
      request_id: requestId,
    });
    try {
      const result = await fn({ attempt, signal: options.signal });
      options.onAttempt?.({
        type: 'attempt.succeeded',
        attempt,
        retry_count: retry,
        request_id: requestId,
      });
      return result;
    } catch (thrown) {
      let error = toAdapterError(thrown);
      if (options.signal?.aborted && !(error instanceof CancelledError)) {
        error = new CancelledError('the request was cancelled', {
          request_id: requestId,
          cause: thrown,
        });
      }
      error.attempts = attempt;
      if (!error.request_id) error.request_id = requestId;
      error.retryable = isRetryableErrorClass(error.error_class);
      const willRetry = error.retryable && retry < maxRetries;
      const delay = willRetry ? computeRetryDelayMs(error, retry, options) : null;
      options.onAttempt?.({
        type: 'attempt.failed',
        attempt,
        retry_count: retry,
        request_id: requestId,
        error,
        will_retry: willRetry,
        delay_ms: delay,
      });
      if (!willRetry || delay === null) throw error;
      await sleep(delay, options.signal, requestId);
    }
  }
}

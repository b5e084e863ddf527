import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  type AdapterError,
  type AttemptEvent,
  AuthError,
  CancelledError,
  ContextOverflowError,
  computeRetryDelayMs,
  InvalidRequestError,
  NetworkError,
  RateLimitError,
  ServerError,
  withRetry,
} from './exports.js';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

/** A call that fails with the given errors in turn, then succeeds. */
function failing(...errors: AdapterError[]) {
  let calls = 0;
  const fn = vi.fn(async () => {
    const error = errors[calls++];
    if (error) throw error;
    return 'ok';
  });
  return fn;
}

describe('withRetry (contract §6.4)', () => {
  it('retries transient classes and succeeds: 1 + 2 attempts', async () => {
    const fn = failing(new ServerError('a'), new NetworkError('b'));
    const events: AttemptEvent[] = [];
    const promise = withRetry(fn, {
      maxRetries: 2,
      requestId: 'req_1',
      random: () => 0,
      onAttempt: (e) => events.push(e),
    });
    await vi.advanceTimersByTimeAsync(1000);
    expect(fn).toHaveBeenCalledTimes(2);
    await vi.advanceTimersByTimeAsync(2000);
    await expect(promise).resolves.toBe('ok');
    expect(fn).toHaveBeenCalledTimes(3);
    expect(events.map((e) => `${e.type}:${e.retry_count}`)).toEqual([
      'attempt.start:0',
      'attempt.failed:0',
      'attempt.start:1',
      'attempt.failed:1',
      'attempt.start:2',
      'attempt.succeeded:2',
    ]);
  });

  it('backs off exponentially with jitter of up to one base step', async () => {
    const error = new ServerError('x');
    expect(computeRetryDelayMs(error, 0, { random: () => 0 })).toBe(1000);
    expect(computeRetryDelayMs(error, 1, { random: () => 0 })).toBe(2000);
    expect(computeRetryDelayMs(error, 2, { random: () => 0.5 })).toBe(4500);
    expect(computeRetryDelayMs(error, 10, { random: () => 0 })).toBe(60_000);
    // whole milliseconds in events and logs (issue 35: `delay_ms: 2257.1897622958513`)
    expect(computeRetryDelayMs(error, 1, { random: () => 0.2571897622958513 })).toBe(2257);
    for (let i = 0; i < 50; i++) {
      expect(Number.isInteger(computeRetryDelayMs(error, i % 4))).toBe(true);
    }
  });

  it('waits the full backoff before the next attempt, not less', async () => {
    const fn = failing(new ServerError('a'));
    const promise = withRetry(fn, { maxRetries: 1, random: () => 0.5 });
    await vi.advanceTimersByTimeAsync(1499);
    expect(fn).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(1);
    await expect(promise).resolves.toBe('ok');
    expect(fn).toHaveBeenCalledTimes(2);
  });

  it('honours retry-after on rate limits', async () => {
    const fn = failing(new RateLimitError('slow', { retry_after_seconds: 7 }));
    const promise = withRetry(fn, { maxRetries: 2, random: () => 0.9 });
    await vi.advanceTimersByTimeAsync(6999);
    expect(fn).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(1);
    await expect(promise).resolves.toBe('ok');
  });

  it('caps retry-after at 60 seconds', async () => {
    const fn = failing(new RateLimitError('slow', { retry_after_seconds: 3600 }));
    const delays: Array<number | null> = [];
    const promise = withRetry(fn, {
      maxRetries: 2,
      onAttempt: (e) => e.type === 'attempt.failed' && delays.push(e.delay_ms),
    });
    await vi.advanceTimersByTimeAsync(59_999);
    expect(fn).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(1);
    await expect(promise).resolves.toBe('ok');
    expect(delays).toEqual([60_000]);
  });

  it('raises after 1 + max_retries attempts with retryable: true', async () => {
    const fn = failing(
      new RateLimitError('1'),
      new RateLimitError('2'),
      new RateLimitError('3'),
      new RateLimitError('4'),
    );
    const promise = withRetry(fn, { maxRetries: 2, requestId: 'req_9', random: () => 0 });
    const settled = promise.catch((e: unknown) => e);
    await vi.runAllTimersAsync();
    const error = (await settled) as RateLimitError;
    expect(error).toBeInstanceOf(RateLimitError);
    expect(error.message).toBe('3');
    expect(error.retryable).toBe(true);
    expect(error.attempts).toBe(3);
    expect(error.request_id).toBe('req_9');
    expect(fn).toHaveBeenCalledTimes(3);
  });

  it('marks a transient error retryable even with max_retries 0', async () => {
    const fn = failing(new ServerError('down'));
    const error = (await withRetry(fn, { maxRetries: 0 }).catch((e: unknown) => e)) as ServerError;
    expect(error.retryable).toBe(true);
    expect(error.attempts).toBe(1);
    expect(fn).toHaveBeenCalledTimes(1);
  });

  for (const error of [
    new AuthError('no'),
    new ContextOverflowError('big'),
    new InvalidRequestError('bad'),
    new CancelledError(),
  ]) {
    it(`does not retry ${error.error_class}`, async () => {
      const fn = failing(error);
      const thrown = (await withRetry(fn, { maxRetries: 5 }).catch(
        (e: unknown) => e,
      )) as AdapterError;
      expect(thrown).toBe(error);
      expect(thrown.retryable).toBe(false);
      expect(fn).toHaveBeenCalledTimes(1);
    });
  }

  it('wraps an unknown thrown value as other, not retried', async () => {
    const fn = vi.fn(async () => {
      throw new TypeError('oops');
    });
    const thrown = (await withRetry(fn, { maxRetries: 3 }).catch(
      (e: unknown) => e,
    )) as AdapterError;
    expect(thrown.error_class).toBe('other');
    expect(thrown.cause).toBeInstanceOf(TypeError);
    expect(fn).toHaveBeenCalledTimes(1);
  });

  it('stops sleeping and throws CancelledError when the signal aborts', async () => {
    const controller = new AbortController();
    const fn = failing(new ServerError('a'));
    const promise = withRetry(fn, { maxRetries: 2, signal: controller.signal }).catch(
      (e: unknown) => e,
    );
    await vi.advanceTimersByTimeAsync(100);
    controller.abort();
    const error = await promise;
    expect(error).toBeInstanceOf(CancelledError);
    expect(fn).toHaveBeenCalledTimes(1);
  });

  it('does not start when the signal is already aborted', async () => {
    const fn = failing();
    const error = await withRetry(fn, { maxRetries: 2, signal: AbortSignal.abort() }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(CancelledError);
    expect(fn).not.toHaveBeenCalled();
  });
});

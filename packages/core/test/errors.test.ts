import { describe, expect, it } from 'vitest';
import {
  AdapterError,
  AuthError,
  CancelledError,
  ContextOverflowError,
  classifyHttpStatus,
  createAdapterError,
  type ErrorClass,
  ErrorClassSchema,
  InvalidRequestError,
  NetworkError,
  OtherAdapterError,
  parseRetryAfter,
  RateLimitError,
  ServerError,
} from './exports.js';

describe('classifyHttpStatus (contract §6.2)', () => {
  const table: Array<[number, ErrorClass]> = [
    [400, 'invalid_request'],
    [401, 'auth'],
    [403, 'auth'],
    [404, 'invalid_request'],
    [408, 'network'],
    [409, 'invalid_request'],
    [413, 'context_overflow'],
    [422, 'invalid_request'],
    [429, 'rate_limit'],
    [500, 'server_error'],
    [502, 'server_error'],
    [503, 'server_error'],
    [529, 'server_error'],
    [200, 'other'],
    [302, 'other'],
  ];
  for (const [status, expected] of table) {
    it(`${status} → ${expected}`, () => expect(classifyHttpStatus(status)).toBe(expected));
  }
});

describe('AdapterError', () => {
  const subclasses: Record<ErrorClass, new (...args: never[]) => AdapterError> = {
    rate_limit: RateLimitError,
    auth: AuthError,
    server_error: ServerError,
    network: NetworkError,
    context_overflow: ContextOverflowError,
    invalid_request: InvalidRequestError,
    cancelled: CancelledError,
    other: OtherAdapterError,
  };

  it('builds the most specific subclass for every class, with the contract fields', () => {
    for (const errorClass of ErrorClassSchema.options) {
      const error = createAdapterError(errorClass, 'boom', {
        provider_status: 418,
        provider_message: 'teapot',
        request_id: 'req_1',
        provider: 'anthropic',
      });
      expect(error).toBeInstanceOf(subclasses[errorClass]);
      expect(error).toBeInstanceOf(AdapterError);
      expect(error.error_class).toBe(errorClass);
      expect(error.provider_status).toBe(418);
      expect(error.provider_message).toBe('teapot');
      expect(error.request_id).toBe('req_1');
      expect(error.retryable).toBe(['rate_limit', 'server_error', 'network'].includes(errorClass));
      expect(error.name).toBe(subclasses[errorClass].name);
    }
  });

  it('keeps the retry hint on rate limits', () => {
    const error = createAdapterError('rate_limit', 'slow down', { retry_after_seconds: 7 });
    expect((error as RateLimitError).retry_after_seconds).toBe(7);
  });
});

describe('parseRetryAfter', () => {
  it('reads seconds, milliseconds and HTTP dates', () => {
    expect(parseRetryAfter({ 'retry-after': '12' })).toBe(12);
    expect(parseRetryAfter(new Headers({ 'Retry-After': '1.5' }))).toBe(1.5);
    expect(parseRetryAfter({ 'retry-after-ms': '250', 'retry-after': '9' })).toBe(0.25);
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(parseRetryAfter({ 'Retry-After': 'Thu, 01 Jan 2026 00:00:30 GMT' }, () => now)).toBe(30);
  });

  it('returns null when absent or unreadable', () => {
    expect(parseRetryAfter(undefined)).toBeNull();
    expect(parseRetryAfter({})).toBeNull();
    expect(parseRetryAfter({ 'retry-after': 'soon' })).toBeNull();
  });
});

describe('brand checks (decision 0120)', () => {
  it('recognise errors of this copy of core and of another one', async () => {
    const { isAdapterError, isCancelledError, isYourtoolError, YOURTOOL_ERROR_BRAND } =
      await import('./exports.js');
    const cancelled = new CancelledError();
    expect(isAdapterError(cancelled)).toBe(true);
    expect(isCancelledError(cancelled)).toBe(true);
    expect(isCancelledError(new ServerError('boom'))).toBe(false);
    // what a second installed copy of core would throw: same brand, another class identity
    class ForeignAdapterError extends Error {
      readonly code = 'adapter_cancelled';
      readonly error_class = 'cancelled';
      constructor() {
        super('cancelled elsewhere');
        Object.defineProperty(this, Symbol.for('yourtool.error'), { value: true });
      }
    }
    const foreign = new ForeignAdapterError();
    expect(foreign instanceof AdapterError).toBe(false);
    expect(isAdapterError(foreign)).toBe(true);
    expect(isCancelledError(foreign)).toBe(true);
    expect(YOURTOOL_ERROR_BRAND).toBe(Symbol.for('yourtool.error'));
    // look-alikes without the brand are not ours
    expect(isYourtoolError(Object.assign(new Error('x'), { code: 'adapter_other' }))).toBe(false);
    expect(isAdapterError({ error_class: 'cancelled', code: 'x' })).toBe(false);
  });
});

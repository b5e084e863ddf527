import type { z } from 'zod';
import { lazySchema } from './lazy-schema.js';

/** The error classes, in the order of {@link ErrorClassSchema}. */
const ERROR_CLASSES = [
  'rate_limit',
  'auth',
  'server_error',
  'network',
  'context_overflow',
  'invalid_request',
  'cancelled',
  'other',
] as const;

/** Closed set of error classes every adapter maps its failures into (contract §6.1). */
export const ErrorClassSchema = lazySchema((z) => z.enum(ERROR_CLASSES));
/** An error class. */
export type ErrorClass = z.output<typeof ErrorClassSchema>;

/** The classes core's retry helper retries. Everything else is raised at once. */
export const RETRYABLE_ERROR_CLASSES: ReadonlySet<ErrorClass> = new Set([
  'rate_limit',
  'server_error',
  'network',
]);

/** Whether an error of this class is transient and worth retrying. */
export function isRetryableErrorClass(errorClass: ErrorClass): boolean {
  return RETRYABLE_ERROR_CLASSES.has(errorClass);
}

/**
 * Base class of every error this project throws on purpose. `code` is stable and meant for
 * programs; `message` is for people.
 */
export class YourtoolError extends Error {
  /** Stable machine-readable code. */
  readonly code: string;

  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
    // the brand behind isYourtoolError / isAdapterError: it survives a second copy of core
    Object.defineProperty(this, YOURTOOL_ERROR_BRAND, { value: true });
  }
}

/**
 * Marks every {@link YourtoolError}. A registry-wide symbol (`Symbol.for`), so that an error
 * made by one installed copy of `@yourtool/core` is recognised by another, where `instanceof`
 * would say no (decision 0120).
 */
export const YOURTOOL_ERROR_BRAND: unique symbol = Symbol.for('yourtool.error');

function branded(value: unknown): value is YourtoolError {
  return (
    value instanceof Error &&
    (value as unknown as Record<symbol, unknown>)[YOURTOOL_ERROR_BRAND] === true &&
    typeof (value as { code?: unknown }).code === 'string'
  );
}

/**
 * Whether `value` is a {@link YourtoolError} from any copy of `@yourtool/core` (checked by
 * brand, not by `instanceof`).
 */
export function isYourtoolError(value: unknown): value is YourtoolError {
  return branded(value);
}

/**
 * Whether `value` is an {@link AdapterError} from any copy of `@yourtool/core`: branded, with
 * a known `error_class`. Use it instead of `instanceof AdapterError` in code that may meet
 * errors thrown by another package's copy of core.
 */
export function isAdapterError(value: unknown): value is AdapterError {
  return (
    branded(value) &&
    (ERROR_CLASSES as readonly unknown[]).includes((value as { error_class?: unknown }).error_class)
  );
}

/** Whether `value` is a {@link CancelledError} (error class `cancelled`) from any copy of core. */
export function isCancelledError(value: unknown): value is CancelledError {
  return isAdapterError(value) && value.error_class === 'cancelled';
}

/** Fields every {@link AdapterError} carries (contract §6.3). */
export interface AdapterErrorFields {
  /** HTTP status when the provider answered, `null` for pre-response failures. */
  provider_status?: number | null;
  /** The provider's own message, with secrets redacted. */
  provider_message?: string;
  /**
   * True when the error class is transient (rate limit, server error, network): the call was
   * retried as far as `max_retries` allowed and a later call may succeed.
   */
  retryable?: boolean;
  /** The canonical request id of the failed call. */
  request_id?: string;
  /** Which provider (adapter name) failed. */
  provider?: string;
  /** How many attempts were made before giving up (1 + retries). */
  attempts?: number;
  /** Retry hint from the provider, in seconds (rate limits). */
  retry_after_seconds?: number | null;
  /** The underlying error (SDK error, socket error). */
  cause?: unknown;
}

/**
 * Base of all adapter failures. Catch this for general handling; catch a subclass for targeted
 * recovery. Fields keep the contract's names.
 */
export class AdapterError extends YourtoolError {
  /** The class this failure was mapped to. */
  readonly error_class: ErrorClass;
  /** HTTP status, or `null` when no response arrived. */
  readonly provider_status: number | null;
  /** The provider's message, secrets redacted. */
  readonly provider_message: string;
  /** Whether the class is transient (the call was retried within `max_retries`). */
  retryable: boolean;
  /** Canonical request id. */
  request_id: string;
  /** Provider (adapter name). */
  readonly provider: string | null;
  /** Attempts made, including the first. */
  attempts: number;

  constructor(errorClass: ErrorClass, message: string, fields: AdapterErrorFields = {}) {
    super(`adapter_${errorClass}`, message, { cause: fields.cause });
    this.error_class = errorClass;
    this.provider_status = fields.provider_status ?? null;
    this.provider_message = fields.provider_message ?? message;
    this.retryable = fields.retryable ?? isRetryableErrorClass(errorClass);
    this.request_id = fields.request_id ?? '';
    this.provider = fields.provider ?? null;
    this.attempts = fields.attempts ?? 1;
  }
}

/** The provider signalled a rate limit or overload. */
export class RateLimitError extends AdapterError {
  /** The provider's retry hint in seconds, if it sent one. */
  readonly retry_after_seconds: number | null;

  constructor(message: string, fields: AdapterErrorFields = {}) {
    super('rate_limit', message, fields);
    this.retry_after_seconds = fields.retry_after_seconds ?? null;
  }
}

/** Missing, invalid or insufficient credentials (401, 403). Never retried. */
export class AuthError extends AdapterError {
  constructor(message: string, fields: AdapterErrorFields = {}) {
    super('auth', message, fields);
  }
}

/** The provider failed (5xx other than rate limiting). */
export class ServerError extends AdapterError {
  constructor(message: string, fields: AdapterErrorFields = {}) {
    super('server_error', message, fields);
  }
}

/** No usable response: connection refused, DNS, TLS, timeout before the response. */
export class NetworkError extends AdapterError {
  constructor(message: string, fields: AdapterErrorFields = {}) {
    super('network', message, fields);
  }
}

/** The request does not fit the model's context window. Never retried. */
export class ContextOverflowError extends AdapterError {
  constructor(message: string, fields: AdapterErrorFields = {}) {
    super('context_overflow', message, fields);
  }
}

/** The provider refused the request as malformed (4xx other than auth). Never retried. */
export class InvalidRequestError extends AdapterError {
  constructor(message: string, fields: AdapterErrorFields = {}) {
    super('invalid_request', message, fields);
  }
}

/** The call was cancelled through `cancel(request_id)` or an AbortSignal. */
export class CancelledError extends AdapterError {
  constructor(message = 'the request was cancelled', fields: AdapterErrorFields = {}) {
    super('cancelled', message, fields);
  }
}

/** A failure that fits no other class. */
export class OtherAdapterError extends AdapterError {
  constructor(message: string, fields: AdapterErrorFields = {}) {
    super('other', message, fields);
  }
}

/** Builds the most specific {@link AdapterError} subclass for `errorClass`. */
export function createAdapterError(
  errorClass: ErrorClass,
  message: string,
  fields: AdapterErrorFields = {},
): AdapterError {
  switch (errorClass) {
    case 'rate_limit':
      return new RateLimitError(message, fields);
    case 'auth':
      return new AuthError(message, fields);
    case 'server_error':
      return new ServerError(message, fields);
    case 'network':
      return new NetworkError(message, fields);
    case 'context_overflow':
      return new ContextOverflowError(message, fields);
    case 'invalid_request':
      return new InvalidRequestError(message, fields);
    case 'cancelled':
      return new CancelledError(message, fields);
    case 'other':
      return new OtherAdapterError(message, fields);
  }
}

/**
 * Default class for an HTTP status (contract §6.2). Providers refine it from their error bodies.
 * 401/403 auth, 408 network, 413 context overflow, 429 rate limit, 5xx server error,
 * other 4xx invalid request, anything else other.
 */
export function classifyHttpStatus(status: number): ErrorClass {
  if (status === 401 || status === 403) return 'auth';
  if (status === 408) return 'network';
  if (status === 413) return 'context_overflow';
  if (status === 429) return 'rate_limit';
  if (status >= 500 && status <= 599) return 'server_error';
  if (status >= 400 && status <= 499) return 'invalid_request';
  return 'other';
}

/**
 * Reads a `retry-after` (seconds or HTTP date) or `retry-after-ms` header into seconds.
 * Returns `null` when absent or unreadable. `now` is injectable for tests.
 */
export function parseRetryAfter(
  headers: Headers | Record<string, string | string[] | undefined> | null | undefined,
  now: () => number = Date.now,
): number | null {
  if (!headers) return null;
  const get = (name: string): string | undefined => {
    if (typeof (headers as Headers).get === 'function') {
      return (headers as Headers).get(name) ?? undefined;
    }
    const record = headers as Record<string, string | string[] | undefined>;
    const key = Object.keys(record).find((k) => k.toLowerCase() === name);
    const value = key === undefined ? undefined : record[key];
    return Array.isArray(value) ? value[0] : value;
  };
  const ms = get('retry-after-ms');
  if (ms !== undefined && ms.trim() !== '') {
    const value = Number(ms);
    if (Number.isFinite(value) && value >= 0) return value / 1000;
  }
  const raw = get('retry-after');
  if (raw === undefined || raw.trim() === '') return null;
  const seconds = Number(raw);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds;
  const date = Date.parse(raw);
  if (Number.isNaN(date)) return null;
  return Math.max(0, (date - now()) / 1000);
}

/**
 * An adapter was configured with an option it cannot use: an unknown key, a wrong type, a value
 * out of range (`options.vertexai: expected a boolean, got "false"`). Thrown by the adapter's
 * constructor, so a misconfigured model fails at setup instead of every turn later; the
 * registry reports it as a configuration error naming `adapters.<key>.<path>`.
 */
export class AdapterOptionError extends YourtoolError {
  /** The adapter (provider key) whose option it is. */
  readonly adapter: string;
  /** Where, from the adapter config's root: `options.vertexai`, `options.tool_id.pattern`. */
  readonly path: string;
  /** What is wrong with it, for people (never quoting a secret). */
  readonly reason: string;

  constructor(adapter: string, path: string, reason: string) {
    super('invalid_adapter_option', `${adapter}: ${path}: ${reason}`);
    this.adapter = adapter;
    this.path = path;
    this.reason = reason;
  }
}

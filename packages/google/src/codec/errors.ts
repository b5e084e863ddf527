import { ApiError } from '@google/genai';
import { type AdapterError, CancelledError, type ErrorClass, isAdapterError } from '@yourtool/core';
import {
  classifyHttpStatus,
  classifyTransportFailure,
  createAdapterError,
  MAX_RETRY_AFTER_SECONDS,
  redactError,
  redactSecrets,
} from '@yourtool/core/adapter';
import { GOOGLE } from './signatures.js';

/** The `error` object of a Google API error body (`google.rpc.Status` in JSON). */
export interface GoogleErrorBody {
  code?: number;
  message?: string;
  /** The canonical status name: `RESOURCE_EXHAUSTED`, `INVALID_ARGUMENT`, ... */
  status?: string;
  details?: Array<Record<string, unknown>>;
}

/**
 * Gemini's documented message for a prompt over the model's window ("The input token count
 * (1200000) exceeds the maximum number of tokens allowed (1048576)."): an `INVALID_ARGUMENT`
 * like any other bad field, so only this phrase of the provider's own body tells them apart
 * (the provider's own body may be read; a runtime's message never is, its wording changes).
 */
const CONTEXT_OVERFLOW_TEXT =
  /input token count.*exceeds the maximum|exceeds the maximum number of tokens/i;

/** `ErrorInfo.reason` values Google uses for a bad or missing API key (sent as a 400). */
const AUTH_REASONS = new Set([
  'API_KEY_INVALID',
  'API_KEY_EXPIRED',
  'API_KEY_SERVICE_BLOCKED',
  'API_KEY_HTTP_REFERRER_BLOCKED',
  'API_KEY_IP_ADDRESS_BLOCKED',
  'ACCESS_TOKEN_EXPIRED',
  'SERVICE_DISABLED',
  'CONSUMER_INVALID',
]);

function detailOfType(body: GoogleErrorBody, suffix: string): Record<string, unknown> | undefined {
  return body.details?.find(
    (d) => typeof d['@type'] === 'string' && (d['@type'] as string).endsWith(suffix),
  );
}

/**
 * Classifies a Google API error by its canonical status and `ErrorInfo.reason` (contract §6.2
 * with Google's codes), falling back to the HTTP status table:
 *
 * - `RESOURCE_EXHAUSTED` (429: quota or rate) → rate_limit;
 * - `UNAVAILABLE` (503: overloaded), `INTERNAL`, `DEADLINE_EXCEEDED` → server_error (retried);
 * - `UNAUTHENTICATED`, `PERMISSION_DENIED`, and an `INVALID_ARGUMENT` whose `ErrorInfo.reason`
 *   is `API_KEY_INVALID` (Google's answer to a bad key) → auth;
 * - `INVALID_ARGUMENT` saying the input token count exceeds the maximum → context_overflow;
 * - `INVALID_ARGUMENT`, `FAILED_PRECONDITION`, `NOT_FOUND`, `OUT_OF_RANGE` → invalid_request.
 */
export function classifyGoogleError(status: number | undefined, body: GoogleErrorBody): ErrorClass {
  const info = detailOfType(body, 'google.rpc.ErrorInfo');
  if (typeof info?.reason === 'string' && AUTH_REASONS.has(info.reason)) return 'auth';
  switch (body.status) {
    case 'RESOURCE_EXHAUSTED':
      return 'rate_limit';
    case 'UNAVAILABLE':
    case 'INTERNAL':
    case 'DEADLINE_EXCEEDED':
    case 'UNKNOWN':
      return 'server_error';
    case 'UNAUTHENTICATED':
    case 'PERMISSION_DENIED':
      return 'auth';
    case 'INVALID_ARGUMENT':
      return CONTEXT_OVERFLOW_TEXT.test(body.message ?? '')
        ? 'context_overflow'
        : 'invalid_request';
    case 'FAILED_PRECONDITION':
    case 'NOT_FOUND':
    case 'OUT_OF_RANGE':
    case 'ALREADY_EXISTS':
      return 'invalid_request';
  }
  if (status === undefined) return 'server_error';
  return classifyHttpStatus(status);
}

/**
 * The retry hint of a Google error: `RetryInfo.retryDelay` (a protobuf duration such as
 * `"0.100s"` or `"37s"`), in seconds, or null.
 */
export function googleRetryDelaySeconds(body: GoogleErrorBody): number | null {
  const delay = detailOfType(body, 'google.rpc.RetryInfo')?.retryDelay;
  if (typeof delay !== 'string') return null;
  const match = /^(\d+(?:\.\d+)?)s$/.exec(delay.trim());
  if (!match) return null;
  return Math.min(Number(match[1]), MAX_RETRY_AFTER_SECONDS);
}

/**
 * Reads the error body out of an SDK `ApiError`: its message is the JSON body (or, for an
 * error inside a stream, `got status: X. {json}`).
 */
export function parseGoogleErrorBody(message: string): GoogleErrorBody {
  const start = message.indexOf('{');
  if (start === -1) return { message };
  try {
    const parsed = JSON.parse(message.slice(start)) as
      | { error?: GoogleErrorBody }
      | GoogleErrorBody;
    const body = (parsed as { error?: GoogleErrorBody }).error ?? (parsed as GoogleErrorBody);
    return typeof body === 'object' && body !== null ? body : { message };
  } catch {
    return { message };
  }
}

/** Secrets to redact: the API key and custom header values. */
export type GoogleErrorSecrets = ReadonlyArray<string | null | undefined>;

/**
 * Maps anything the `@google/genai` SDK (or the adapter) throws to an `AdapterError`, by type
 * and Google's status codes, never by a runtime's wording, which changes between versions:
 *
 * - an `AbortError` → cancelled;
 * - the SDK's `ApiError` → {@link classifyGoogleError} on its status and error body, with
 *   `RetryInfo` as the retry hint;
 * - anything else by core's `classifyTransportFailure` (a broken connection → network, a reply
 *   that is not JSON → server_error); the rest → other.
 *
 * The API key and `secrets` are redacted from every message, and `cause` is a redacted copy.
 */
export function toGoogleAdapterError(
  error: unknown,
  requestId: string,
  secrets: GoogleErrorSecrets,
): AdapterError {
  // by brand, not class: an error from another installed copy of core passes through too
  if (isAdapterError(error)) {
    if (!error.request_id) error.request_id = requestId;
    return error;
  }
  const redact = (text: string) => redactSecrets(text, secrets);
  const fields = { request_id: requestId, provider: GOOGLE, cause: redactError(error, secrets) };
  if (error instanceof Error && error.name === 'AbortError')
    return new CancelledError('the request was cancelled', fields);
  if (error instanceof ApiError) {
    const body = parseGoogleErrorBody(error.message);
    const providerMessage = redact(body.message ?? error.message);
    const errorClass = classifyGoogleError(error.status, body);
    return createAdapterError(
      errorClass,
      redact(`google ${error.status} ${body.status ?? 'error'}: ${providerMessage}`),
      {
        ...fields,
        provider_status: error.status,
        provider_message: providerMessage,
        retry_after_seconds: googleRetryDelaySeconds(body),
      },
    );
  }
  const message = error instanceof Error ? error.message : String(error);
  const transport = classifyTransportFailure(error);
  if (transport) {
    const what =
      transport.error_class === 'network'
        ? `the connection failed or broke before the reply was complete: ${transport.description}`
        : 'the reply was not valid JSON';
    return createAdapterError(transport.error_class, redact(`google: ${what} (${message})`), {
      ...fields,
      provider_message: redact(message),
    });
  }
  return createAdapterError('other', redact(`google: ${message}`), {
    ...fields,
    provider_message: redact(message),
  });
}

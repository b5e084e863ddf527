import { type AdapterError, CancelledError, type ErrorClass, isAdapterError } from '@yourtool/core';
import {
  classifyHttpStatus,
  classifyTransportFailure,
  createAdapterError,
  parseRetryAfter,
  redactError,
  redactSecrets,
} from '@yourtool/core/adapter';
import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai';
import { OPENAI } from './request.js';

/**
 * Messages that mean the prompt does not fit the context window. A 400 about a field's own
 * maximum length ("Expected a string with maximum length 40" for a tool call id) is not one.
 */
const CONTEXT_OVERFLOW_TEXT =
  /maximum context length|context[ _]length|context window|prompt is too long|too many tokens|reduce the length of the (messages|prompt)/i;

/** Error codes that name a malformed field, never an overflow (e.g. a tool call id over 40 characters). */
const FIELD_ERROR_CODES = new Set([
  'string_above_max_length',
  'array_above_max_length',
  'invalid_type',
  'invalid_value',
  'unsupported_parameter',
  'unsupported_value',
]);

/** The parts of a provider error the classifier reads. */
export interface OpenAIErrorFacts {
  /** HTTP status; `undefined` for an error that arrived inside a stream. */
  status: number | undefined;
  /** `error.code` (a string for OpenAI; OpenRouter sends the HTTP status as a number). */
  code: string | number | null | undefined;
  /** `error.type`. */
  type: string | null | undefined;
  /** `error.message`. */
  message: string;
}

/**
 * Classifies an OpenAI error (contract §6.2): the status table, refined by `error.code` and
 * `error.type`:
 *
 * - `rate_limit_exceeded` and `insufficient_quota` → rate_limit (an exhausted quota makes the
 *   provider unusable for now, like a rate limit; decision 0043);
 * - `context_length_exceeded`, or a message about the context length → context_overflow;
 * - `invalid_api_key` → auth;
 * - `type: server_error` → server_error;
 * - codes about a malformed field (`string_above_max_length`: a tool call id over 40
 *   characters, ...) → invalid_request, never context_overflow;
 * - an error inside a stream without a status → server_error.
 */
export function classifyOpenAIError(facts: OpenAIErrorFacts): ErrorClass {
  const code = typeof facts.code === 'string' ? facts.code : null;
  switch (code) {
    case 'rate_limit_exceeded':
    case 'insufficient_quota':
      return 'rate_limit';
    case 'context_length_exceeded':
      return 'context_overflow';
    case 'invalid_api_key':
      return 'auth';
  }
  if (facts.type === 'insufficient_quota') return 'rate_limit';
  if (facts.type === 'server_error') return 'server_error';
  if (code !== null && FIELD_ERROR_CODES.has(code)) return 'invalid_request';
  const byStatus = facts.status === undefined ? 'server_error' : classifyHttpStatus(facts.status);
  if (
    (byStatus === 'invalid_request' || facts.status === undefined) &&
    CONTEXT_OVERFLOW_TEXT.test(facts.message)
  ) {
    return 'context_overflow';
  }
  return byStatus;
}

/** The `error` object of an SDK error's body (the SDK already unwraps `{ error: {...} }`). */
export function openAIErrorBody(error: APIError): {
  code?: string | number | null;
  type?: string | null;
  message?: string;
  metadata?: Record<string, unknown>;
} {
  const body = error.error as
    | {
        error?: { code?: string | number; type?: string; message?: string };
        code?: string | number;
        type?: string;
        message?: string;
        metadata?: Record<string, unknown>;
      }
    | undefined;
  return body?.error ?? body ?? {};
}

/** Options of {@link toOpenAIAdapterError}. */
export interface ToOpenAIAdapterErrorOptions {
  /** Provider key and message prefix. Default `openai`. */
  provider?: string;
  /** The API key, redacted from every message and from the kept `cause`. */
  apiKey?: string | null;
  /** Other secrets redacted the same way (custom header values: a proxy token, ...). */
  secrets?: ReadonlyArray<string | null | undefined>;
  /** Classifier (default {@link classifyOpenAIError}); OpenRouter brings its own. */
  classify?: (facts: OpenAIErrorFacts, error: APIError) => ErrorClass;
}

/**
 * Maps anything the openai SDK (or the adapter) throws to an `AdapterError`, by the error's
 * type, never by the wording of its message (decision 0072):
 *
 * - the SDK's `APIUserAbortError` → `CancelledError`; `APIConnectionTimeoutError` and
 *   `APIConnectionError` → `NetworkError`; `APIError` → by {@link classifyOpenAIError} (or the
 *   provider's classifier), with `retry-after` read;
 * - anything else by core's `classifyTransportFailure`: a connection that broke mid-body or
 *   mid-stream (`ECONNRESET`, `UND_ERR_SOCKET` on the cause chain) → network; a reply or stream
 *   chunk that is not valid JSON (`SyntaxError`, "Unterminated string ...") → server_error
 *   (decision 0071);
 * - the rest → other.
 *
 * The API key and `secrets` (and anything shaped like a key) are redacted from every message,
 * and the SDK error is kept as `cause` only as a redacted copy (core's `redactError`), so a key
 * a provider or a proxy echoed back never shows in `util.inspect`, `console.error` or an
 * `onAttempt` observer (decision 0073).
 */
export function toOpenAIAdapterError(
  error: unknown,
  requestId: string,
  options: ToOpenAIAdapterErrorOptions = {},
): AdapterError {
  const provider = options.provider ?? OPENAI;
  // by brand: an error from another installed copy of core passes through too (decision 0120)
  if (isAdapterError(error)) {
    if (!error.request_id) error.request_id = requestId;
    return error;
  }
  const secrets = [options.apiKey, ...(options.secrets ?? [])];
  const redact = (text: string) => redactSecrets(text, secrets);
  const fields = { request_id: requestId, provider, cause: redactError(error, secrets) };
  if (error instanceof APIUserAbortError) {
    return new CancelledError('the request was cancelled', fields);
  }
  if (error instanceof APIConnectionTimeoutError) {
    return createAdapterError(
      'network',
      `${provider}: the request timed out before a response arrived`,
      { ...fields, provider_message: 'timeout' },
    );
  }
  if (error instanceof APIConnectionError) {
    const cause = (error.cause as Error | undefined)?.message ?? error.message;
    return createAdapterError(
      'network',
      redact(`${provider}: could not reach the API (${cause})`),
      {
        ...fields,
        provider_message: redact(cause),
      },
    );
  }
  if (error instanceof APIError) {
    const body = openAIErrorBody(error);
    const message = redact(String(body.message ?? error.message));
    const facts: OpenAIErrorFacts = {
      status: error.status,
      code: error.code ?? body.code ?? null,
      type: error.type ?? body.type ?? null,
      message,
    };
    const errorClass = (options.classify ?? classifyOpenAIError)(facts, error);
    const status = error.status ?? null;
    const label = facts.code ?? facts.type ?? 'error';
    return createAdapterError(
      errorClass,
      redact(`${provider} ${status ?? 'stream'} ${label}: ${message}`),
      {
        ...fields,
        provider_status: status,
        provider_message: message,
        retry_after_seconds: parseRetryAfter(error.headers),
      },
    );
  }
  const message = error instanceof Error ? error.message : String(error);
  const transport = classifyTransportFailure(error);
  if (transport) {
    const what =
      transport.error_class === 'network'
        ? `the connection broke before the reply was complete: ${transport.description}`
        : 'the reply was not valid JSON';
    return createAdapterError(transport.error_class, redact(`${provider}: ${what} (${message})`), {
      ...fields,
      provider_message: redact(message),
    });
  }
  return createAdapterError('other', redact(`${provider}: ${message}`), {
    ...fields,
    provider_message: redact(message),
  });
}

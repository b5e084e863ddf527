import {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  APIUserAbortError,
} from '@anthropic-ai/sdk';
import { type AdapterError, CancelledError, type ErrorClass, isAdapterError } from '@yourtool/core';
import {
  classifyHttpStatus,
  classifyTransportFailure,
  createAdapterError,
  parseRetryAfter,
  redactError,
  redactSecrets,
} from '@yourtool/core/adapter';
import { ANTHROPIC } from './request.js';

/**
 * Anthropic's wording for a prompt that does not fit ("prompt is too long: 210000 tokens >
 * 200000 maximum", "input length and `max_tokens` exceed context limit"): its API has no
 * dedicated error type for it, so the provider's own documented message is read. Only the
 * provider's error body is matched, never a runtime's message, and only phrases about the
 * context: a field named `context_management` is not an overflow.
 */
const CONTEXT_OVERFLOW_TEXT =
  /prompt is too long|exceeds? (?:the )?context|context (?:window|limit|length)|too many (?:input )?tokens/i;

/**
 * Refines the status-based class with Anthropic's `error.type` (contract §6.2):
 * `overloaded_error` and `rate_limit_error` → rate_limit (also on 529);
 * `authentication_error`, `permission_error` → auth; `invalid_request_error` whose message
 * speaks of the context or of too many tokens → context_overflow; `request_too_large` →
 * context_overflow; `api_error` → server_error; `not_found_error` → invalid_request.
 */
export function classifyAnthropicError(
  status: number | undefined,
  type: string | null | undefined,
  message: string,
): ErrorClass {
  switch (type) {
    case 'overloaded_error':
    case 'rate_limit_error':
      return 'rate_limit';
    case 'authentication_error':
    case 'permission_error':
      return 'auth';
    case 'request_too_large':
      return 'context_overflow';
    case 'invalid_request_error':
      return CONTEXT_OVERFLOW_TEXT.test(message) ? 'context_overflow' : 'invalid_request';
    case 'api_error':
      return 'server_error';
    case 'not_found_error':
      return 'invalid_request';
  }
  if (status === 529) return 'rate_limit';
  if (status === undefined) return 'server_error';
  return classifyHttpStatus(status);
}

function bodyError(error: APIError): { type?: string; message?: string } {
  const body = error.error as
    | { error?: { type?: string; message?: string }; type?: string; message?: string }
    | undefined;
  return body?.error ?? body ?? {};
}

/** Secrets to redact: one value (the API key) or several (the key and custom header values). */
export type AnthropicErrorSecrets =
  | string
  | null
  | undefined
  | ReadonlyArray<string | null | undefined>;

/**
 * Maps anything the Anthropic SDK (or the adapter) throws to an `AdapterError`, by the error's
 * type, never by the wording of its message, which runtimes and SDK versions change. The error
 * and its message name `provider` (default `anthropic`; `vertex-anthropic` for Claude on Vertex):
 *
 * - the SDK's `APIUserAbortError` → cancelled; `APIConnectionTimeoutError` and
 *   `APIConnectionError` → network; `APIError` → by status and Anthropic's `error.type`
 *   ({@link classifyAnthropicError});
 * - anything else by core's `classifyTransportFailure`: a connection that broke mid-body or
 *   mid-stream (`ECONNRESET`, `UND_ERR_SOCKET` on the cause chain) → network; a reply or stream
 *   event that is not valid JSON (`SyntaxError`) → server_error (the provider answered, and garbled it);
 * - the rest → other.
 *
 * `secrets` (the API key, custom header values) and anything shaped like a key are redacted from
 * every message, and the SDK error is kept as `cause` only as a redacted copy (core's
 * `redactError`), so `util.inspect`, `console.error` or an `onAttempt` observer never show a
 * key a provider or a proxy echoed back.
 */
export function toAnthropicAdapterError(
  error: unknown,
  requestId: string,
  secrets: AnthropicErrorSecrets,
  provider: string = ANTHROPIC,
): AdapterError {
  // by brand, not class: an error from another installed copy of core passes through too
  if (isAdapterError(error)) {
    if (!error.request_id) error.request_id = requestId;
    return error;
  }
  const secretList = typeof secrets === 'string' || secrets == null ? [secrets] : secrets;
  const redact = (text: string) => redactSecrets(text, secretList);
  const fields = {
    request_id: requestId,
    provider,
    cause: redactError(error, secretList),
  };
  if (error instanceof APIUserAbortError)
    return new CancelledError('the request was cancelled', fields);
  if (error instanceof APIConnectionTimeoutError) {
    return createAdapterError(
      'network',
      `${provider}: the request timed out before a response arrived`,
      {
        ...fields,
        provider_message: 'timeout',
      },
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
    const detail = bodyError(error);
    const type = error.type ?? detail.type ?? null;
    const providerMessage = redact(error.apiMessage ?? detail.message ?? error.message);
    const errorClass = classifyAnthropicError(error.status, type, providerMessage);
    const status = error.status ?? null;
    return createAdapterError(
      errorClass,
      redact(`${provider} ${status ?? 'stream'} ${type ?? 'error'}: ${providerMessage}`),
      {
        ...fields,
        provider_status: status,
        provider_message: providerMessage,
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

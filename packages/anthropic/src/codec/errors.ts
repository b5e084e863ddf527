import {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  APIUserAbortError,
} from '@anthropic-ai/sdk';
import {
  AdapterError,
  CancelledError,
  classifyHttpStatus,
  createAdapterError,
  type ErrorClass,
  parseRetryAfter,
  redactSecrets,
} from '@yourtool/core';
import { ANTHROPIC } from './request.js';

const CONTEXT_OVERFLOW_TEXT = /context|tokens? exceed|too long|too many tokens/i;

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

/**
 * Maps anything the Anthropic SDK (or the adapter) throws to an `AdapterError`, with the API key
 * and anything shaped like a key redacted from every message.
 */
export function toAnthropicAdapterError(
  error: unknown,
  requestId: string,
  apiKey: string | null | undefined,
): AdapterError {
  if (error instanceof AdapterError) {
    if (!error.request_id) error.request_id = requestId;
    return error;
  }
  const redact = (text: string) => redactSecrets(text, [apiKey]);
  const fields = { request_id: requestId, provider: ANTHROPIC, cause: error };
  if (error instanceof APIUserAbortError)
    return new CancelledError('the request was cancelled', fields);
  if (error instanceof APIConnectionTimeoutError) {
    return createAdapterError(
      'network',
      'anthropic: the request timed out before a response arrived',
      {
        ...fields,
        provider_message: 'timeout',
      },
    );
  }
  if (error instanceof APIConnectionError) {
    const cause = (error.cause as Error | undefined)?.message ?? error.message;
    return createAdapterError('network', redact(`anthropic: could not reach the API (${cause})`), {
      ...fields,
      provider_message: redact(cause),
    });
  }
  if (error instanceof APIError) {
    const detail = bodyError(error);
    const type = error.type ?? detail.type ?? null;
    const providerMessage = redact(error.apiMessage ?? detail.message ?? error.message);
    const errorClass = classifyAnthropicError(error.status, type, providerMessage);
    const status = error.status ?? null;
    return createAdapterError(
      errorClass,
      redact(`anthropic ${status ?? 'stream'} ${type ?? 'error'}: ${providerMessage}`),
      {
        ...fields,
        provider_status: status,
        provider_message: providerMessage,
        retry_after_seconds: parseRetryAfter(error.headers),
      },
    );
  }
  const message = error instanceof Error ? error.message : String(error);
  return createAdapterError('other', redact(`anthropic: ${message}`), {
    ...fields,
    provider_message: redact(message),
  });
}

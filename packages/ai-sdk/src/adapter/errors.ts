import { AISDKError, APICallError } from '@ai-sdk/provider';
import { type AdapterError, CancelledError, type ErrorClass, isAdapterError } from '@yourtool/core';
import {
  classifyHttpStatus,
  classifyTransportFailure,
  createAdapterError,
  parseRetryAfter,
  redactSecrets,
} from '@yourtool/core/adapter';

const BY_NAME: Record<string, ErrorClass> = {
  AI_LoadAPIKeyError: 'auth',
  AI_LoadSettingError: 'invalid_request',
  AI_InvalidPromptError: 'invalid_request',
  AI_InvalidArgumentError: 'invalid_request',
  AI_UnsupportedFunctionalityError: 'invalid_request',
  AI_JSONParseError: 'server_error',
  AI_TypeValidationError: 'server_error',
  AI_InvalidResponseDataError: 'server_error',
  AI_EmptyResponseBodyError: 'server_error',
  AI_NoContentGeneratedError: 'server_error',
};

const OVERFLOW = /context[ _-]?(length|window)|too many tokens|prompt is too long|maximum context/i;

/** Where the error happened, for the `AdapterError`'s fields. */
export interface ErrorPlace {
  provider: string;
  request_id: string;
  secrets: readonly string[];
}

/**
 * Anything an AI SDK model throws → this contract's `AdapterError`: `APICallError` by status
 * (context overflow by the body's text, `retry-after` honoured), the SDK's other errors by name,
 * transport failures as network errors. Request and response bodies are never quoted (they hold
 * prompts), and configured secrets are redacted from the message.
 */
export function toAdapterError(error: unknown, place: ErrorPlace): AdapterError {
  if (isAdapterError(error)) return error;
  const fields = { provider: place.provider, request_id: place.request_id };
  const message = redactSecrets(
    error instanceof Error ? error.message : String(error),
    place.secrets,
  );
  const make = (errorClass: ErrorClass, extra: Record<string, unknown> = {}) =>
    createAdapterError(errorClass, `${place.provider}: ${message}`, {
      ...fields,
      provider_message: message,
      ...extra,
    });
  if (error instanceof Error && error.name === 'AbortError')
    return new CancelledError(undefined, fields);
  if (APICallError.isInstance(error) && (error.statusCode ?? 0) >= 400) {
    const body = error.responseBody ?? '';
    const status = error.statusCode ?? 0;
    const overflow = OVERFLOW.test(body) || OVERFLOW.test(error.message);
    return make(overflow ? 'context_overflow' : classifyHttpStatus(status), {
      provider_status: error.statusCode,
      retry_after_seconds: parseRetryAfter(error.responseHeaders),
    });
  }
  return make(classOfChain(error));
}

/** The class of an error without a status, read along its cause chain (the SDK wraps failures). */
function classOfChain(error: unknown): ErrorClass {
  let named: ErrorClass | undefined;
  for (let cause = error, depth = 0; cause && depth < 8; depth++) {
    const transport = classifyTransportFailure(cause);
    if (transport) return transport.error_class ?? 'network';
    const name = (cause as { name?: unknown }).name;
    if (!named && AISDKError.isInstance(cause) && typeof name === 'string') named = BY_NAME[name];
    if (!named && cause instanceof SyntaxError) named = 'server_error';
    cause = (cause as { cause?: unknown }).cause;
  }
  // An APICallError with no status is a request that never got an answer.
  return (
    named ??
    (APICallError.isInstance(error) && error.statusCode === undefined ? 'network' : 'other')
  );
}

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
  const fields = { provider: place.provider, request_id: place.request_id, cause: undefined };
  const message = redactSecrets(
    error instanceof Error ? error.message : String(error),
    place.secrets,
  );
  if (error instanceof Error && error.name === 'AbortError')
    return new CancelledError(undefined, fields);
  if (APICallError.isInstance(error) && error.statusCode !== undefined) {
    const body = error.responseBody ?? '';
    const errorClass =
      OVERFLOW.test(body) || OVERFLOW.test(error.message)
        ? 'context_overflow'
        : classifyHttpStatus(error.statusCode);
    return createAdapterError(errorClass, `${place.provider}: ${message}`, {
      ...fields,
      provider_status: error.statusCode,
      provider_message: message,
      retry_after_seconds: parseRetryAfter(error.responseHeaders),
    });
  }
  const transport = classifyTransportFailure(
    APICallError.isInstance(error) ? (error.cause ?? error) : error,
  );
  if (transport || APICallError.isInstance(error)) {
    return createAdapterError('network', `${place.provider}: ${message}`, {
      ...fields,
      provider_message: message,
    });
  }
  const named = AISDKError.isInstance(error) ? BY_NAME[error.name] : undefined;
  return createAdapterError(named ?? 'other', `${place.provider}: ${message}`, {
    ...fields,
    provider_message: message,
  });
}

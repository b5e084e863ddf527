import {
  type AdapterError,
  type ErrorClass,
  isAdapterError,
  OtherAdapterError,
} from '@yourtool/core';
import {
  classifyHttpStatus,
  classifyTransportFailure,
  createAdapterError,
  parseRetryAfter,
  redactError,
  redactSecrets,
} from '@yourtool/core/adapter';
import { ACME } from './codec.js';

/** What the error mapping needs to keep secrets out of messages. */
export interface AcmeErrorContext {
  request_id: string;
  secrets: ReadonlyArray<string | null | undefined>;
}

/**
 * A non-2xx response → the most specific AdapterError. The API says "too large for model" in a
 * 400 when the prompt does not fit the context window.
 */
export async function errorFromResponse(
  response: Response,
  context: AcmeErrorContext,
): Promise<AdapterError> {
  const text = await response.text().catch(() => '');
  let message = text.trim() === '' ? `HTTP ${response.status}` : text.trim().slice(0, 500);
  try {
    const parsed = JSON.parse(text) as { message?: unknown };
    if (typeof parsed.message === 'string') message = parsed.message;
  } catch {
    // not JSON (a proxy's HTML page): the text is the message
  }
  message = redactSecrets(message, context.secrets);
  let errorClass: ErrorClass = classifyHttpStatus(response.status);
  if (errorClass === 'invalid_request' && /too large for model|context length/i.test(message)) {
    errorClass = 'context_overflow';
  }
  return createAdapterError(errorClass, `${ACME}: ${message}`, {
    provider: ACME,
    provider_status: response.status,
    provider_message: message,
    request_id: context.request_id,
    retry_after_seconds: parseRetryAfter(response.headers),
  });
}

/** Anything a call threw → an AdapterError (core turns aborts into CancelledError itself). */
export function toAcmeError(error: unknown, context: AcmeErrorContext): AdapterError {
  // ours (an HTTP error above, or core's MalformedStreamError) pass through, whatever copy of
  // core made them
  if (isAdapterError(error)) return error;
  const cause = redactError(error, context.secrets);
  const transport = classifyTransportFailure(error);
  if (transport) {
    return createAdapterError(transport.error_class, `${ACME}: ${transport.description}`, {
      provider: ACME,
      request_id: context.request_id,
      cause,
    });
  }
  const text = error instanceof Error ? error.message : String(error);
  return new OtherAdapterError(`${ACME}: ${redactSecrets(text, context.secrets)}`, {
    provider: ACME,
    request_id: context.request_id,
    cause,
  });
}

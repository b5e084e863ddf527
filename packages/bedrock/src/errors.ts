import { BedrockRuntimeServiceException } from '@aws-sdk/client-bedrock-runtime';
import { type AdapterError, CancelledError, type ErrorClass, isAdapterError } from '@yourtool/core';
import {
  classifyHttpStatus,
  classifyTransportFailure,
  createAdapterError,
  parseRetryAfter,
  redactError,
  redactSecrets,
} from '@yourtool/core/adapter';
import { BEDROCK } from './provider.js';

/**
 * Bedrock's exception names (the `x-amzn-errortype` header of an HTTP error, the
 * `:exception-type` of a stream frame, the SDK class's `name`) → the contract's class.
 */
const EXCEPTION_CLASSES: Readonly<Record<string, ErrorClass>> = {
  ThrottlingException: 'rate_limit',
  ServiceQuotaExceededException: 'rate_limit',
  ModelNotReadyException: 'rate_limit',
  TooManyRequestsException: 'rate_limit',
  ModelTimeoutException: 'network',
  InternalServerException: 'server_error',
  ServiceUnavailableException: 'server_error',
  ModelErrorException: 'server_error',
  ModelStreamErrorException: 'server_error',
  AccessDeniedException: 'auth',
  UnrecognizedClientException: 'auth',
  ExpiredTokenException: 'auth',
  InvalidSignatureException: 'auth',
  IncompleteSignatureException: 'auth',
  MissingAuthenticationTokenException: 'auth',
  InvalidClientTokenId: 'auth',
  CredentialsProviderError: 'auth',
  TokenProviderError: 'auth',
  ValidationException: 'invalid_request',
  ResourceNotFoundException: 'invalid_request',
  ConflictException: 'invalid_request',
};

/**
 * The texts Bedrock's ValidationException carries when the input does not fit the model's
 * context (it has no dedicated exception for it): Claude's "prompt is too long" and "input
 * length and `max_tokens` exceed context limit", Llama's and Mistral's "Input is too long for
 * requested model", "too many total text bytes", Nova's "Input Tokens Exceeded", and the
 * OpenAI-style "maximum context length" of models Bedrock serves behind that API.
 */
const CONTEXT_OVERFLOW_TEXT =
  /input is too long|exceed context limit|too many total text bytes|prompt is too long|input tokens exceeded|maximum context length|context window/i;

/** The event-stream decoder's own failures: a frame cut short, or one whose CRC is wrong. */
const BROKEN_FRAME_TEXT = /^Truncated event message received|checksum .*(?:does not|did not) match/;

/** The SDK's message when no Region was configured or found. */
const REGION_MISSING_TEXT = /^Region is missing/;

/** Secrets to redact from every message and from the kept cause. */
export type BedrockSecrets = ReadonlyArray<string | null | undefined>;

/** The class of an exception Bedrock named, refined by its message and status. */
export function classifyBedrockException(
  name: string,
  status: number | undefined,
  message: string,
): ErrorClass {
  const known = EXCEPTION_CLASSES[name];
  if (known === 'invalid_request' && name === 'ValidationException') {
    return CONTEXT_OVERFLOW_TEXT.test(message) ? 'context_overflow' : 'invalid_request';
  }
  if (known) return known;
  if (status !== undefined) return classifyHttpStatus(status);
  return 'other';
}

/** What a person should know beyond the provider's text, for the classes that need it. */
function hint(name: string): string {
  if (name === 'ResourceNotFoundException') {
    return ' (the model id is unknown in this Region, or the model is not enabled for this account: check the id, the Region, and model access in the Bedrock console)';
  }
  if (name === 'AccessDeniedException') {
    return ' (the credentials lack bedrock:InvokeModel / bedrock:InvokeModelWithResponseStream on this model, or the model is not enabled for this account)';
  }
  return '';
}

/** What the SDK hangs on an error it made from an HTTP reply, read without trusting its type. */
interface ServiceFields {
  /** The HTTP status (`$metadata.httpStatusCode`), absent for an exception in the stream. */
  status: number | undefined;
  /** AWS's request id, for the provider's logs. */
  requestId: string | null;
  /** The provider's retry hint (`retry-after-ms` / `retry-after` on `$response`), in seconds. */
  retryAfter: number | null;
}

function serviceFields(error: unknown): ServiceFields {
  const { $metadata: metadata, $response: response } = (error ?? {}) as {
    $metadata?: { httpStatusCode?: number; requestId?: string };
    $response?: { headers?: Record<string, string> };
  };
  return {
    status: metadata?.httpStatusCode,
    requestId: metadata?.requestId ?? null,
    // Bedrock sends no hint on throttles today; a proxy or a later API version may
    retryAfter: parseRetryAfter(response?.headers),
  };
}

/** Whether `error` is one Bedrock (or the SDK's credential chain) named. */
function isNamedException(error: unknown): error is Error {
  if (!(error instanceof Error)) return false;
  if (error instanceof BedrockRuntimeServiceException) return true;
  return EXCEPTION_CLASSES[error.name] !== undefined || /Exception$/.test(error.name);
}

/**
 * Maps anything the Bedrock client (or the adapter) throws to an `AdapterError`:
 *
 * - an `AdapterError` passes through (its `request_id` filled in);
 * - an abort (`AbortError`) → cancelled: core turns a passed deadline into its own `network`
 *   error before this runs;
 * - an exception Bedrock named, over HTTP or in the stream (`ThrottlingException`,
 *   `ModelStreamErrorException`, ...) or the SDK's credential chain named
 *   (`CredentialsProviderError`) → by {@link classifyBedrockException};
 * - the event-stream decoder's broken frames ("Truncated event message received", a CRC that
 *   does not match) and connection failures (`ECONNREFUSED`, `ECONNRESET`, HTTP/2 stream and
 *   session errors, the handler's `TimeoutError`) → network;
 * - a reply that is not Bedrock's (a proxy's HTML page, a redirect) → by its HTTP status;
 * - "Region is missing" → auth (a setup problem, never retried);
 * - the rest → other.
 *
 * `secrets` (the API key, the AWS secret key and session token, header values) and anything
 * shaped like a key are redacted from every message; the cause is kept only as a redacted copy.
 */
export function toBedrockAdapterError(
  error: unknown,
  requestId: string,
  secrets: BedrockSecrets,
): AdapterError {
  // by brand, not class: an error from another installed copy of core passes through too
  if (isAdapterError(error)) {
    if (!error.request_id) error.request_id = requestId;
    return error;
  }
  const redact = (text: string) => redactSecrets(text, secrets);
  const fields = { request_id: requestId, provider: BEDROCK, cause: redactError(error, secrets) };
  const name = error instanceof Error ? error.name : '';
  const message = redact(error instanceof Error ? error.message : String(error));
  if (name === 'AbortError') return new CancelledError('the request was cancelled', fields);
  if (isNamedException(error)) {
    const { status, requestId: awsRequestId, retryAfter } = serviceFields(error);
    const errorClass = classifyBedrockException(name, status, message);
    const where = status === undefined ? 'in the stream' : String(status);
    const id = awsRequestId ? ` [aws request id ${awsRequestId}]` : '';
    return createAdapterError(
      errorClass,
      `bedrock ${where} ${name}: ${message}${hint(name)}${id}`,
      {
        ...fields,
        provider_status: status ?? null,
        provider_message: message,
        retry_after_seconds: retryAfter,
      },
    );
  }
  return transportError(error, message, fields);
}

/** A failure below Bedrock's API: a broken frame, a connection, a timeout, a missing Region. */
function transportError(
  error: unknown,
  message: string,
  fields: { request_id: string; provider: string; cause: unknown },
): AdapterError {
  const status = serviceFields(error).status;
  const detail = { ...fields, provider_message: message, provider_status: status ?? null };
  if (status !== undefined && (status < 200 || status > 299)) {
    // an HTTP reply that is not Bedrock's error shape (a proxy's page, a captive portal's
    // redirect): its status says what happened, not the parser that failed on its body
    return createAdapterError(
      classifyHttpStatus(status),
      `bedrock ${status}: the reply was not a Bedrock response (${message})`,
      detail,
    );
  }
  if (BROKEN_FRAME_TEXT.test(message)) {
    return createAdapterError('network', `bedrock: the event stream broke (${message})`, detail);
  }
  if (REGION_MISSING_TEXT.test(message)) {
    return createAdapterError(
      'auth',
      'bedrock: no AWS Region: set options.region in the adapter config, AWS_REGION, or region in the shared config profile',
      { ...detail, retryable: false },
    );
  }
  const code = (error as { code?: unknown } | null)?.code;
  if (
    (error instanceof Error && error.name === 'TimeoutError') ||
    (typeof code === 'string' && code.startsWith('ERR_HTTP2_'))
  ) {
    return createAdapterError('network', `bedrock: the connection failed (${message})`, detail);
  }
  const transport = classifyTransportFailure(error);
  if (transport) {
    const what =
      transport.error_class === 'network'
        ? `the connection failed: ${transport.description}`
        : 'the reply was not valid JSON';
    return createAdapterError(transport.error_class, `bedrock: ${what} (${message})`, detail);
  }
  return createAdapterError('other', `bedrock: ${message}`, detail);
}

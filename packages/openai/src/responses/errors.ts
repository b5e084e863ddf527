import type { AdapterError, ErrorClass } from '@yourtool/core';
import { createAdapterError, redactSecrets } from '@yourtool/core/adapter';
import { classifyOpenAIError } from '../codec/errors.js';
import { OPENAI } from '../codec/request.js';

/** The error a failed response carries (`response.error`, or an `error` stream event). */
export interface OpenAIResponsesFailure {
  code?: string | null;
  message?: string | null;
  type?: string | null;
}

/** `response.error.code` values that say the request itself was wrong (images, prompt). */
const INVALID_REQUEST_CODES = new Set([
  'invalid_prompt',
  'invalid_image',
  'invalid_image_format',
  'invalid_base64_image',
  'invalid_image_url',
  'image_too_large',
  'image_too_small',
  'image_parse_error',
  'image_content_policy_violation',
  'invalid_image_mode',
  'image_file_too_large',
  'unsupported_image_media_type',
  'empty_image_file',
  'failed_to_download_image',
  'image_file_not_found',
  'data_residency_mismatch',
  'bio_policy',
  'misalignment_policy_violation',
]);

/**
 * Classifies the error of a response that failed after the API accepted it (`status:
 * "failed"`, a `response.failed` stream event): `server_error` and `vector_store_timeout` →
 * server_error; `rate_limit_exceeded` → rate_limit; codes about the prompt, an image or a
 * policy → invalid_request; anything else as core's OpenAI classifier does for an error without
 * an HTTP status (server_error unless the code or message says otherwise).
 */
export function classifyOpenAIResponsesFailure(failure: OpenAIResponsesFailure): ErrorClass {
  const code = failure.code ?? null;
  if (code === 'server_error' || code === 'vector_store_timeout') return 'server_error';
  if (code !== null && INVALID_REQUEST_CODES.has(code)) return 'invalid_request';
  return classifyOpenAIError({
    status: undefined,
    code,
    type: failure.type ?? null,
    message: failure.message ?? '',
  });
}

/** Options of {@link toOpenAIResponsesFailureError}. */
export interface OpenAIResponsesFailureOptions {
  /** Provider key and message prefix. Default `openai`. */
  provider?: string;
  /** Secrets redacted from the message (the API key, custom header values). */
  secrets?: ReadonlyArray<string | null | undefined>;
}

/**
 * The `AdapterError` for a response that failed after it was accepted, classified by
 * {@link classifyOpenAIResponsesFailure}, its message redacted.
 */
export function toOpenAIResponsesFailureError(
  failure: OpenAIResponsesFailure | null | undefined,
  requestId: string,
  options: OpenAIResponsesFailureOptions = {},
): AdapterError {
  const provider = options.provider ?? OPENAI;
  const facts = failure ?? {};
  const message = redactSecrets(
    String(facts.message ?? 'the response failed without an error message'),
    [...(options.secrets ?? [])],
  );
  const label = facts.code ?? facts.type ?? 'response_failed';
  return createAdapterError(
    classifyOpenAIResponsesFailure(facts),
    `${provider} response failed (${label}): ${message}`,
    { request_id: requestId, provider, provider_status: null, provider_message: message },
  );
}

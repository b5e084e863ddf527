import {
  AdapterError,
  CancelledError,
  classifyHttpStatus,
  createAdapterError,
  type ErrorClass,
  parseRetryAfter,
  redactSecrets,
} from '@yourtool/core';
import { OLLAMA } from './request.js';

const CONTEXT_OVERFLOW_TEXT =
  /exceeds? the context|context (length|window|size)|too many tokens|prompt is too long|input (is )?too long/i;
const MODEL_NOT_FOUND_TEXT = /model ["'`]?([^"'`\s]+)["'`]? not found|not found, try pulling/i;
const OVERLOADED_TEXT = /server busy|maximum pending requests|too many (concurrent )?requests/i;
const UNSUPPORTED_TEXT = /does not support (tools|thinking|vision|images|chat|generate|insert)/i;

/** What the error mapper knows about the failed call. */
export interface OllamaErrorContext {
  request_id: string;
  /** The Ollama host the call went to, for messages about reaching it. */
  host: string;
  /** Wire model name, for messages about a missing model. */
  model?: string;
  /** The API key (Ollama behind an authenticating proxy, or ollama.com), redacted everywhere. */
  apiKey?: string | null;
  /** Headers of the failed HTTP response, when one arrived (for `retry-after`). */
  headers?: Headers | null;
}

/**
 * Classifies an Ollama failure from its HTTP status and its `{"error": "..."}` message (contract
 * §6.2 with Ollama's wording): a context-length message → context_overflow (whatever the
 * status; Ollama has used 400, 413 and 500 for it); "server busy" / too many pending requests
 * → rate_limit (an overloaded server, like Anthropic's 529); a model Ollama does not have (404)
 * → invalid_request; a model that lacks a capability ("does not support tools") →
 * invalid_request; otherwise the status table. `status` undefined means the failure was
 * reported inside a stream: server_error.
 */
export function classifyOllamaError(status: number | undefined, message: string): ErrorClass {
  if (CONTEXT_OVERFLOW_TEXT.test(message)) return 'context_overflow';
  if (OVERLOADED_TEXT.test(message)) return 'rate_limit';
  if (UNSUPPORTED_TEXT.test(message) || MODEL_NOT_FOUND_TEXT.test(message))
    return 'invalid_request';
  if (status === undefined) return 'server_error';
  return classifyHttpStatus(status);
}

/** The `ResponseError` the ollama client throws for non-2xx replies (not exported by it). */
interface ResponseErrorLike {
  name: 'ResponseError';
  error: string;
  status_code: number;
}

function isResponseError(error: unknown): error is ResponseErrorLike {
  return (
    error instanceof Error &&
    error.name === 'ResponseError' &&
    typeof (error as Partial<ResponseErrorLike>).status_code === 'number'
  );
}

function causeCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

const NETWORK_CODES: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host lookup failed',
  ECONNRESET: 'connection reset',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ETIMEDOUT: 'connection timed out',
  UND_ERR_CONNECT_TIMEOUT: 'connection timed out',
  UND_ERR_SOCKET: 'the connection closed before the reply was complete',
  UND_ERR_HEADERS_TIMEOUT: 'no reply headers in time',
  UND_ERR_BODY_TIMEOUT: 'the reply stalled',
};

/**
 * Maps anything the ollama client (or fetch beneath it) throws to an `AdapterError`, with
 * messages a person can act on: Ollama not running (connection refused) names the host and
 * `ollama serve`; a missing model names the model and `ollama pull`; a stream that ended early
 * or a dropped connection is `network`; a reply that is not JSON is `other`. API keys are
 * redacted from every message.
 */
export function toOllamaAdapterError(error: unknown, context: OllamaErrorContext): AdapterError {
  if (error instanceof AdapterError) {
    if (!error.request_id) error.request_id = context.request_id;
    return error;
  }
  const redact = (text: string) => redactSecrets(text, [context.apiKey]);
  const fields = { request_id: context.request_id, provider: OLLAMA, cause: error };
  const model = context.model ?? 'the model';

  if (error instanceof Error && error.name === 'AbortError')
    return new CancelledError('the request was cancelled', fields);
  if (error instanceof Error && error.name === 'TimeoutError') {
    return createAdapterError(
      'network',
      `ollama: no complete reply from ${context.host} before the timeout (timeout_seconds); a large model may still be loading`,
      { ...fields, provider_message: 'timeout' },
    );
  }

  if (isResponseError(error)) {
    const providerMessage = redact(error.error);
    const status = error.status_code;
    const errorClass = classifyOllamaError(status, providerMessage);
    let message = `ollama ${status}: ${providerMessage}`;
    if (status === 404 && MODEL_NOT_FOUND_TEXT.test(providerMessage)) {
      message = `ollama: model "${model}" is not available on the Ollama server at ${context.host}; download it with \`ollama pull ${model}\` (${providerMessage})`;
    } else if (status === 404) {
      message = `ollama 404 from ${context.host}: ${providerMessage}. Is base_url the Ollama server root (e.g. http://127.0.0.1:11434, without /api or /v1)?`;
    } else if (UNSUPPORTED_TEXT.test(providerMessage)) {
      message = `ollama ${status}: ${providerMessage}. Its capabilities (from /api/show, or capabilityOverrides) decide what the adapter sends`;
    }
    return createAdapterError(errorClass, redact(message), {
      ...fields,
      provider_status: status,
      provider_message: providerMessage,
      retry_after_seconds: parseRetryAfter(context.headers),
    });
  }

  const code = causeCode(error);
  if (code === 'ECONNREFUSED') {
    return createAdapterError(
      'network',
      redact(
        `ollama: could not connect to Ollama at ${context.host} (connection refused). Is Ollama running? Start it with \`ollama serve\` (or the Ollama app), or point base_url at the right host.`,
      ),
      { ...fields, provider_message: 'connection refused' },
    );
  }
  const description = code ? NETWORK_CODES[code] : undefined;
  const raw = error instanceof Error ? error.message : String(error);
  if (description || /fetch failed|terminated|socket|network/i.test(raw)) {
    return createAdapterError(
      'network',
      redact(`ollama: request to ${context.host} failed (${description ?? raw})`),
      { ...fields, provider_message: redact(description ?? raw) },
    );
  }
  if (/did not receive done/i.test(raw)) {
    return createAdapterError(
      'network',
      'ollama: the stream ended before Ollama said it was done',
      { ...fields, provider_message: redact(raw) },
    );
  }
  if (error instanceof SyntaxError) {
    return createAdapterError('other', redact(`ollama: the reply was not valid JSON (${raw})`), {
      ...fields,
      provider_message: redact(raw),
    });
  }
  // The ollama client throws a plain Error carrying the text of an in-stream `{"error": ...}`;
  // anything else is unexpected.
  const errorClass =
    error instanceof Error && error.constructor === Error
      ? classifyOllamaError(undefined, raw)
      : 'other';
  return createAdapterError(errorClass, redact(`ollama: ${raw}`), {
    ...fields,
    provider_message: redact(raw),
  });
}

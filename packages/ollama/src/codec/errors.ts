import { type AdapterError, CancelledError, type ErrorClass, isAdapterError } from '@yourtool/core';
import {
  classifyHttpStatus,
  classifyTransportFailure,
  createAdapterError,
  parseRetryAfter,
  redactError,
  redactSecrets,
} from '@yourtool/core/adapter';
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
  /**
   * Further values to redact everywhere (the adapter passes its `extra_headers` values): from
   * the message, `provider_message`, and the redacted copy of the original error kept as `cause`.
   */
  secrets?: ReadonlyArray<string | null | undefined>;
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

/**
 * A line of an Ollama NDJSON stream that is not a JSON object (cut, garbled, or not JSON at all).
 * The adapter's transport raises it instead of letting the ollama client drop the line. A
 * `SyntaxError`: the provider answered and what it sent does not parse, which core classifies
 * as `server_error` (the provider's failure, not the connection's).
 */
export class OllamaMalformedChunkError extends SyntaxError {
  /** 1-based number of the offending line in the response body. */
  readonly line: number;

  /** `reason` says what is wrong with the line, e.g. "is not valid JSON". */
  constructor(line: number, reason: string) {
    super(`ollama: line ${line} of the streamed reply ${reason}`);
    this.name = 'OllamaMalformedChunkError';
    this.line = line;
  }
}

/** An Ollama NDJSON stream that ended without the `done: true` line (a `network` failure). */
export class OllamaIncompleteStreamError extends Error {
  /** Lines received before the stream ended. */
  readonly lines: number;

  /** `lines`: how many lines arrived before the end. */
  constructor(lines: number) {
    super(
      `ollama: the stream ended after ${lines} line${lines === 1 ? '' : 's'}, before Ollama said it was done`,
    );
    this.name = 'OllamaIncompleteStreamError';
    this.lines = lines;
  }
}

/** An `{"error": "..."}` line inside an Ollama stream: Ollama failed after it began answering. */
export class OllamaStreamErrorLine extends Error {
  /** The error text Ollama sent. */
  readonly provider_message: string;

  /** `providerMessage`: the line's `error` text. */
  constructor(providerMessage: string) {
    super(`ollama: ${providerMessage}`);
    this.name = 'OllamaStreamErrorLine';
    this.provider_message = providerMessage;
  }
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

/** What every mapping step shares: the call's context, the fields of the error, redaction. */
interface Mapping {
  context: OllamaErrorContext;
  fields: { request_id: string; provider: typeof OLLAMA; cause: unknown };
  redact: (text: string) => string;
}

/**
 * Maps anything the ollama client (or fetch beneath it) throws to an `AdapterError`, with
 * messages a person can act on: Ollama not running (connection refused) names the host and
 * `ollama serve`; a missing model names the model and `ollama pull`. Failures below HTTP are
 * classified by type, never by message wording (core's `classifyTransportFailure`): a transport
 * error code on the cause chain (a refused, reset or dropped connection) is `network`, a reply
 * or stream line that does not parse is `server_error`, a stream that ends before `done` is
 * `network`. The API key and `secrets` are redacted from every message, and `cause` is a
 * redacted copy of the original error (core's `redactError`), never the original.
 */
export function toOllamaAdapterError(error: unknown, context: OllamaErrorContext): AdapterError {
  // by brand, not class: an error from another installed copy of core passes through too
  if (isAdapterError(error)) {
    if (!error.request_id) error.request_id = context.request_id;
    return error;
  }
  const secrets = [context.apiKey, ...(context.secrets ?? [])];
  const mapping: Mapping = {
    context,
    fields: {
      request_id: context.request_id,
      provider: OLLAMA,
      cause: redactError(error, secrets),
    },
    redact: (text) => redactSecrets(text, secrets),
  };
  return (
    fromAbort(error, mapping) ??
    (isResponseError(error) ? fromResponseError(error, mapping) : undefined) ??
    fromStreamFailure(error, mapping) ??
    fromTransportFailure(error, mapping)
  );
}

/** The call was cancelled (`AbortError`), or its timeout passed (`TimeoutError`). */
function fromAbort(error: unknown, { context, fields }: Mapping): AdapterError | undefined {
  if (!(error instanceof Error)) return undefined;
  if (error.name === 'AbortError') return new CancelledError('the request was cancelled', fields);
  if (error.name !== 'TimeoutError') return undefined;
  return createAdapterError(
    'network',
    `ollama: no complete reply from ${context.host} before the timeout (timeout_seconds); a large model may still be loading`,
    { ...fields, provider_message: 'timeout' },
  );
}

/** A non-2xx reply: classified from its status and text, the message saying what to do. */
function fromResponseError(error: ResponseErrorLike, mapping: Mapping): AdapterError {
  const { context, fields, redact } = mapping;
  const providerMessage = redact(String(error.error));
  const status = error.status_code;
  const model = context.model ?? 'the model';
  let message = `ollama ${status}: ${providerMessage}`;
  if (status === 404 && MODEL_NOT_FOUND_TEXT.test(providerMessage)) {
    message = `ollama: model "${model}" is not available on the Ollama server at ${context.host}; download it with \`ollama pull ${model}\` (${providerMessage})`;
  } else if (status === 404) {
    message = `ollama 404 from ${context.host}: ${providerMessage}. Is base_url the Ollama server root (e.g. http://127.0.0.1:11434, without /api or /v1)?`;
  } else if (UNSUPPORTED_TEXT.test(providerMessage)) {
    message = `ollama ${status}: ${providerMessage}. Its capabilities (from /api/show, or capabilityOverrides) decide what the adapter sends`;
  }
  return createAdapterError(classifyOllamaError(status, providerMessage), redact(message), {
    ...fields,
    provider_status: status,
    provider_message: providerMessage,
    retry_after_seconds: parseRetryAfter(context.headers),
  });
}

/** The adapter's own stream failures: an error line, a stream cut before `done`, a bad line. */
function fromStreamFailure(error: unknown, { fields, redact }: Mapping): AdapterError | undefined {
  if (error instanceof OllamaStreamErrorLine) {
    const providerMessage = redact(error.provider_message);
    return createAdapterError(
      classifyOllamaError(undefined, providerMessage),
      `ollama: the stream failed: ${providerMessage}`,
      { ...fields, provider_message: providerMessage },
    );
  }
  if (error instanceof OllamaIncompleteStreamError) {
    return createAdapterError('network', error.message, {
      ...fields,
      provider_message: 'stream ended before done',
    });
  }
  if (error instanceof OllamaMalformedChunkError) {
    return createAdapterError('server_error', error.message, {
      ...fields,
      provider_message: 'malformed stream line',
    });
  }
  return undefined;
}

/** Failures below HTTP, classified by type (core's `classifyTransportFailure`); else `other`. */
function fromTransportFailure(error: unknown, { context, fields, redact }: Mapping): AdapterError {
  const raw = redact(error instanceof Error ? error.message : String(error));
  const transport = classifyTransportFailure(error);
  if (transport?.code === 'ECONNREFUSED') {
    return createAdapterError(
      'network',
      redact(
        `ollama: could not connect to Ollama at ${context.host} (connection refused). Is Ollama running? Start it with \`ollama serve\` (or the Ollama app), or point base_url at the right host.`,
      ),
      { ...fields, provider_message: transport.description },
    );
  }
  if (transport?.error_class === 'network') {
    return createAdapterError(
      'network',
      redact(`ollama: request to ${context.host} failed (${transport.description})`),
      { ...fields, provider_message: transport.description },
    );
  }
  if (transport) {
    return createAdapterError(
      transport.error_class,
      `ollama: the reply from ${context.host} was not valid JSON (${raw})`,
      { ...fields, provider_message: raw },
    );
  }
  // The ollama client reports an in-stream `{"error": ...}` line as a plain Error carrying its
  // text (the adapter's own transport raises OllamaStreamErrorLine first; this is for callers
  // of the codec that use the client directly); anything else is unexpected.
  const errorClass =
    error instanceof Error && error.constructor === Error
      ? classifyOllamaError(undefined, raw)
      : 'other';
  return createAdapterError(errorClass, `ollama: ${raw}`, { ...fields, provider_message: raw });
}

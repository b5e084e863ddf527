import type { CallOptions, CallRunnerOptions, InflightCalls } from './adapter.js';
import type { AttemptLimits } from './deadline.js';
import { type AdapterError, CancelledError } from './errors.js';
import { type Logger, silentLogger, withLogFields } from './logger.js';
import type { CanonicalRequest } from './schemas/adapter.js';
import type { StreamEvent } from './schemas/stream.js';
import type { StreamBuilder } from './stream/builder.js';
import type { WireBody } from './stream/wire-body.js';
import type { CallTrace, CallTraceSetup } from './telemetry/call-trace.js';

// What the complete and stream calls share: the setup and context types (exported from the
// toolkit) and the helpers both runners use (internal).

/** What every call of an adapter shares: its name, in-flight registry, retry and error mapping. */
export interface AdapterCallSetup {
  /** Adapter name (the provider key). */
  provider: string;
  /** The adapter's in-flight calls, so `cancel(request_id)` reaches this call. */
  inflight: InflightCalls;
  /** `AdapterConfig.max_retries`. */
  maxRetries: number;
  /** Backoff tuning. */
  retry?: CallRunnerOptions['retry'];
  /** The adapter's logger (a call's `options.logger` wins). */
  logger?: Logger;
  /**
   * Maps anything the SDK throws to an {@link AdapterError}: classification from the status
   * and the provider's error body, `retry-after`, and secret redaction.
   */
  toAdapterError: (error: unknown, request: CanonicalRequest) => AdapterError;
  /**
   * Longest one attempt may take, from sending the request to the last byte of the reply
   * (`timeout_seconds` in ms). A passed deadline is a `network` failure, retried like one.
   */
  timeoutMs?: number;
  /**
   * Longest silence between two chunks of a stream once the first chunk arrived
   * (`idle_timeout_seconds` in ms). A passed deadline is a `network` failure.
   */
  idleTimeoutMs?: number;
  /**
   * Values that must never leave in an error (the API key, custom header values): a transport
   * error the runtime keeps as the `cause` of a timeout or cancellation is a redacted copy
   * (`redactError`).
   */
  secrets?: ReadonlyArray<string | null | undefined>;
  /**
   * The model's wire name (`wireNames`), recorded as `gen_ai.request.model` on the call's span;
   * default: the canonical id's name after its provider key.
   */
  wireName?: (model: string) => string;
  /** Where the adapter sends (`server.address` and `server.port` of the call's telemetry). */
  server?: CallTraceSetup['server'];
  /** The provider's finish reason of a reply, read from its `provider_raw` (telemetry). */
  wireFinishReason?: CallTraceSetup['wireFinishReason'];
}

/** Context handed to an adapter's transport for one attempt. */
export interface CallAttemptContext {
  request: CanonicalRequest;
  /**
   * Aborts when the caller's signal aborts, `cancel(request_id)` is called, or the attempt's
   * deadline passes. Hand it to the HTTP client.
   */
  signal: AbortSignal;
  /** 1 for the first attempt. */
  attempt: number;
  logger: Logger;
}

/** How an adapter opens a provider stream and maps its chunks. */
export interface StreamCallSpec<Chunk> {
  /**
   * Sends the request and resolves once the provider accepted it (response headers): with the
   * SDK's parsed stream, or with the response body for core to read ({@link WireBody}: records
   * parsed a network read at a time, no async step per event).
   */
  open: (context: CallAttemptContext) => Promise<AsyncIterable<Chunk> | WireBody<Chunk>>;
  /**
   * Maps one provider chunk to canonical events through the builder (which already produced
   * `message.start`). When the provider says the message is done, call `builder.complete(...)`
   * and return its events.
   */
  onChunk: (chunk: Chunk, builder: StreamBuilder, context: CallAttemptContext) => StreamEvent[];
  /**
   * Whether a chunk is the provider's reply starting (default: every chunk). An adapter that
   * appends its own end-of-stream marker answers `false` for it, so a provider stream that
   * closes without sending anything is an error before the first event (no events, retried)
   * rather than a `message.start` followed by an error.
   */
  startsMessage?: (chunk: Chunk) => boolean;
  /** The provider interleaves parallel tool calls' fragments (see `StreamBuilderOptions`). */
  toolCallsEndAtFinish?: boolean;
}

/** The cancellation of a call whose signal aborted before anything was sent. */
export function cancelledBeforeStart(
  request: { request_id?: unknown },
  provider: string,
): CancelledError {
  return new CancelledError('the request was cancelled before it was sent', {
    request_id: typeof request.request_id === 'string' ? request.request_id : '',
    provider,
    attempts: 0,
  });
}

/** The call's logger, with `request_id` and `session_id` on every entry. */
export function callLogger(
  setup: AdapterCallSetup,
  options: CallOptions,
  request: CanonicalRequest,
): Logger {
  const base = options.logger ?? setup.logger ?? silentLogger;
  const session_id = request.messages.at(-1)?.session_id;
  return withLogFields(base, {
    request_id: request.request_id,
    ...(session_id ? { session_id } : {}),
  });
}

/** The `onAttempt` of the bounded retry: the caller's, observed by the call's trace if any. */
export function attemptHook(options: CallOptions, trace: CallTrace | null) {
  if (trace) return { onAttempt: trace.observe(options.onAttempt) };
  return options.onAttempt ? { onAttempt: options.onAttempt } : {};
}

/** The attempt limits of a call setup. */
export function attemptLimits(setup: AdapterCallSetup): AttemptLimits {
  return { timeoutMs: setup.timeoutMs, idleTimeoutMs: setup.idleTimeoutMs };
}

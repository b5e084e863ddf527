import {
  type CallOptions,
  type CallRunnerOptions,
  type InflightCalls,
  normalizeRequest,
} from './adapter.js';
import { attemptHook, attemptLimits, callLogger, cancelledBeforeStart } from './call-helpers.js';
import { AttemptDeadline } from './deadline.js';
import { type AdapterError, CancelledError } from './errors.js';
import type { Logger } from './logger.js';
import { redactError } from './redact.js';
import { withRetry } from './retry.js';
import type {
  CanonicalRequest,
  CanonicalRequestInput,
  CanonicalResponse,
} from './schemas/adapter.js';
import { type CallTrace, type CallTraceSetup, openCallTrace } from './telemetry/call-trace.js';

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
   * ({@link redactError}).
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

/**
 * Runs a non-streaming adapter call under the contract: validates the request, refuses an
 * already-aborted signal without sending anything, registers the call for `cancel`, bounds each
 * attempt by `timeout_seconds` (headers and body; a passed deadline is `network`, retried),
 * retries transient failures, and maps every failure to an `AdapterError` (a cancelled call to
 * {@link CancelledError}).
 */
export async function runCompleteCall(
  setup: AdapterCallSetup,
  input: CanonicalRequestInput,
  options: CallOptions,
  call: (context: CallAttemptContext) => Promise<CanonicalResponse>,
): Promise<CanonicalResponse> {
  if (options.signal?.aborted) throw cancelledBeforeStart(input, setup.provider);
  const request = normalizeRequest(input);
  const logger = callLogger(setup, options, request);
  const { signal, end } = setup.inflight.begin(request.request_id, options.signal);
  const limits = attemptLimits(setup);
  let trace: CallTrace | null = null;
  try {
    const opening = openCallTrace(setup, request, options.telemetry, false);
    trace = opening instanceof Promise ? await opening : opening;
    const response = await withRetry(
      async (attempt) => {
        const deadline = new AttemptDeadline(signal, limits);
        const context = { request, signal: deadline.signal, attempt: attempt.attempt, logger };
        try {
          return await deadline.race(trace ? trace.run(() => call(context)) : call(context));
        } catch (error) {
          if (deadline.expired && !signal.aborted) {
            throw deadline.error({
              request_id: request.request_id,
              provider: setup.provider,
              cause: redactError(error, setup.secrets),
            });
          }
          throw error;
        } finally {
          deadline.clear();
        }
      },
      {
        maxRetries: setup.maxRetries,
        requestId: request.request_id,
        signal,
        ...attemptHook(options, trace),
        ...setup.retry,
        toAdapterError: (error) =>
          signal.aborted
            ? new CancelledError('the request was cancelled', {
                request_id: request.request_id,
                provider: setup.provider,
                cause: redactError(error, setup.secrets),
              })
            : setup.toAdapterError(error, request),
      },
    );
    trace?.response(response);
    return response;
  } catch (error) {
    trace?.failed(error);
    throw error;
  } finally {
    end();
  }
}

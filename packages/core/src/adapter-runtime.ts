import {
  type AdapterRuntimeOptions,
  type CallOptions,
  type InflightCalls,
  normalizeRequest,
} from './adapter.js';
import { type AdapterError, CancelledError, NetworkError } from './errors.js';
import { type Logger, silentLogger } from './logger.js';
import { withRetry } from './retry.js';
import type {
  CanonicalRequest,
  CanonicalRequestInput,
  CanonicalResponse,
} from './schemas/adapter.js';
import type { StreamEvent } from './schemas/stream.js';
import { StreamBuilder } from './stream/builder.js';

/** What every call of an adapter shares: its name, in-flight registry, retry and error mapping. */
export interface AdapterCallSetup {
  /** Adapter name (the provider key). */
  provider: string;
  /** The adapter's in-flight calls, so `cancel(request_id)` reaches this call. */
  inflight: InflightCalls;
  /** `AdapterConfig.max_retries`. */
  maxRetries: number;
  /** Backoff tuning. */
  retry?: AdapterRuntimeOptions['retry'];
  /** The adapter's logger (a call's `options.logger` wins). */
  logger?: Logger;
  /**
   * Maps anything the SDK throws to an {@link AdapterError}: classification from the status
   * and the provider's error body, `retry-after`, and secret redaction.
   */
  toAdapterError: (error: unknown, request: CanonicalRequest) => AdapterError;
}

/** Context handed to an adapter's transport for one attempt. */
export interface CallAttemptContext {
  request: CanonicalRequest;
  /** Aborts when the caller's signal aborts or `cancel(request_id)` is called. */
  signal: AbortSignal;
  /** 1 for the first attempt. */
  attempt: number;
  logger: Logger;
}

function cancelledBeforeStart(request: { request_id?: unknown }, provider: string): CancelledError {
  return new CancelledError('the request was cancelled before it was sent', {
    request_id: typeof request.request_id === 'string' ? request.request_id : '',
    provider,
    attempts: 0,
  });
}

/**
 * Runs a non-streaming adapter call under the contract: validates the request, refuses an
 * already-aborted signal without sending anything, registers the call for `cancel`, retries
 * transient failures, and maps every failure to an `AdapterError` (a cancelled call to
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
  const logger = options.logger ?? setup.logger ?? silentLogger;
  const { signal, end } = setup.inflight.begin(request.request_id, options.signal);
  try {
    return await withRetry(
      (attempt) => call({ request, signal, attempt: attempt.attempt, logger }),
      {
        maxRetries: setup.maxRetries,
        requestId: request.request_id,
        signal,
        ...(options.onAttempt ? { onAttempt: options.onAttempt } : {}),
        ...setup.retry,
        toAdapterError: (error) =>
          signal.aborted
            ? new CancelledError('the request was cancelled', {
                request_id: request.request_id,
                provider: setup.provider,
                cause: error,
              })
            : setup.toAdapterError(error, request),
      },
    );
  } finally {
    end();
  }
}

/** How an adapter opens a provider stream and maps its chunks. */
export interface StreamCallSpec<Chunk> {
  /** Sends the request and resolves once the provider accepted it (response headers). */
  open: (context: CallAttemptContext) => Promise<AsyncIterable<Chunk>>;
  /**
   * Maps one provider chunk to canonical events through the builder (which already produced
   * `message.start`). When the provider says the message is done, call `builder.complete(...)`
   * and return its events.
   */
  onChunk: (chunk: Chunk, builder: StreamBuilder, context: CallAttemptContext) => StreamEvent[];
}

/**
 * Runs a streaming adapter call under the contract:
 *
 * - the request is validated and an already-aborted signal is refused before anything is sent;
 * - opening the stream is retried like a non-streaming call; once events flow it is not;
 * - `message.start` is produced when the first provider chunk arrives;
 * - a failure before the first event is thrown; after it, `message.complete` with
 *   `stop_reason: "error"` and the partial content is yielded, then the error is thrown;
 * - a cancellation (`cancel(request_id)` or the signal) once the request is sent ends open tool
 *   uses, yields `message.complete` with `stop_reason: "cancelled"` (after `message.start` if
 *   none came yet) and ends the iterator;
 * - a provider stream that ends without completing the message is an error (`network`).
 */
export async function* runStreamCall<Chunk>(
  setup: AdapterCallSetup,
  input: CanonicalRequestInput,
  options: CallOptions,
  spec: StreamCallSpec<Chunk>,
): AsyncGenerator<StreamEvent, void, undefined> {
  if (options.signal?.aborted) throw cancelledBeforeStart(input, setup.provider);
  const request = normalizeRequest(input);
  const logger = options.logger ?? setup.logger ?? silentLogger;
  const { signal, end } = setup.inflight.begin(request.request_id, options.signal);
  const builder = new StreamBuilder({
    request_id: request.request_id,
    model: request.model,
    provider: setup.provider,
    logger,
  });
  let context: CallAttemptContext = { request, signal, attempt: 1, logger };
  let iterator: AsyncIterator<Chunk> | undefined;
  let onAbort: (() => void) | undefined;
  let exhausted = false;
  try {
    let chunks: AsyncIterable<Chunk>;
    try {
      chunks = await withRetry(
        (attempt) => {
          context = { request, signal, attempt: attempt.attempt, logger };
          return spec.open(context);
        },
        {
          maxRetries: setup.maxRetries,
          requestId: request.request_id,
          signal,
          ...(options.onAttempt ? { onAttempt: options.onAttempt } : {}),
          ...setup.retry,
          toAdapterError: (error) => setup.toAdapterError(error, request),
        },
      );
    } catch (error) {
      // Cancelled while the request was in flight: the stream still ends the one way.
      if (signal.aborted) {
        yield* builder.interrupt('cancelled');
        return;
      }
      throw error;
    }
    iterator = chunks[Symbol.asyncIterator]();
    const source = iterator;
    // Each wait on the provider also ends when the call is cancelled, so a provider stream
    // that ignores the abort can never keep the iterator waiting. Not `Promise.race` against
    // one long-lived "aborted" promise: every race leaves a reaction on that promise, holding
    // the chunk it settled with, so a long stream kept every chunk alive until it ended.
    let wake: ((value: 'aborted') => void) | undefined;
    onAbort = () => wake?.('aborted');
    signal.addEventListener('abort', onAbort, { once: true });
    const nextChunk = (): Promise<IteratorResult<Chunk> | 'aborted'> =>
      signal.aborted
        ? Promise.resolve('aborted')
        : new Promise((resolve, reject) => {
            wake = resolve;
            source.next().then(resolve, reject);
          });
    try {
      for (;;) {
        const next = await nextChunk();
        wake = undefined;
        if (next === 'aborted') break;
        if (next.done) {
          exhausted = true;
          break;
        }
        if (!builder.started) yield builder.start();
        if (builder.finished) continue;
        for (const event of spec.onChunk(next.value, builder, context)) yield event;
      }
    } catch (error) {
      if (!signal.aborted) {
        const mapped = setup.toAdapterError(error, request);
        if (builder.started) yield* builder.interrupt('error');
        throw mapped;
      }
    }
    if (signal.aborted) {
      yield* builder.interrupt('cancelled');
      return;
    }
    if (!builder.finished) {
      const truncated = new NetworkError(
        'the provider stream ended before the message was complete',
        {
          request_id: request.request_id,
          provider: setup.provider,
        },
      );
      if (builder.started) yield* builder.interrupt('error');
      throw truncated;
    }
  } finally {
    // Stopped early (consumer break, cancel, error): let the provider stream release its
    // connection without waiting on it.
    if (onAbort) signal.removeEventListener('abort', onAbort);
    if (iterator && !exhausted) void iterator.return?.()?.catch(() => {});
    end();
  }
}

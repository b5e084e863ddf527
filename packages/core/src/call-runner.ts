import {
  type CallOptions,
  type CallRunnerOptions,
  type InflightCalls,
  normalizeRequest,
} from './adapter.js';
import { AttemptDeadline, type AttemptLimits } from './deadline.js';
import { type AdapterError, CancelledError, NetworkError } from './errors.js';
import { type Logger, silentLogger, withLogFields } from './logger.js';
import { redactError } from './redact.js';
import { withRetry } from './retry.js';
import type {
  CanonicalRequest,
  CanonicalRequestInput,
  CanonicalResponse,
} from './schemas/adapter.js';
import type { StreamEvent } from './schemas/stream.js';
import { StreamBuilder } from './stream/builder.js';
import { type CallTrace, openCallTrace } from './telemetry/call-trace.js';

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

function cancelledBeforeStart(request: { request_id?: unknown }, provider: string): CancelledError {
  return new CancelledError('the request was cancelled before it was sent', {
    request_id: typeof request.request_id === 'string' ? request.request_id : '',
    provider,
    attempts: 0,
  });
}

/** The call's logger, with `request_id` and `session_id` on every entry. */
function callLogger(
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
function attemptHook(options: CallOptions, trace: CallTrace | null) {
  if (trace) return { onAttempt: trace.observe(options.onAttempt) };
  return options.onAttempt ? { onAttempt: options.onAttempt } : {};
}

function attemptLimits(setup: AdapterCallSetup): AttemptLimits {
  return { timeoutMs: setup.timeoutMs, idleTimeoutMs: setup.idleTimeoutMs };
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

/** Opened stream of one attempt, with its first chunk already read. */
interface OpenedStream<Chunk> {
  iterator: AsyncIterator<Chunk>;
  first: Chunk;
  deadline: AttemptDeadline;
  context: CallAttemptContext;
}

/** What the parts of one streaming call share. */
interface StreamRun<Chunk> {
  setup: AdapterCallSetup;
  spec: StreamCallSpec<Chunk>;
  request: CanonicalRequest;
  logger: Logger;
  /** The call's signal: the caller's signal or `cancel(request_id)`. */
  signal: AbortSignal;
  limits: AttemptLimits;
  trace: CallTrace | null;
}

/** The failure of a provider stream that ended before the message was complete. */
function streamEndedEarly<Chunk>(run: StreamRun<Chunk>, cause?: unknown): NetworkError {
  return new NetworkError('the provider stream ended before the message was complete', {
    request_id: run.request.request_id,
    provider: run.setup.provider,
    ...(cause === undefined ? {} : { cause }),
  });
}

function streamBuilderOf<Chunk>(run: StreamRun<Chunk>): StreamBuilder {
  return new StreamBuilder({
    request_id: run.request.request_id,
    model: run.request.model,
    provider: run.setup.provider,
    logger: run.logger,
    ...(run.spec.toolCallsEndAtFinish ? { toolCallsEndAtFinish: true } : {}),
  });
}

/** One attempt at opening the stream: sends the request and reads the first chunk. */
async function openStreamAttempt<Chunk>(
  run: StreamRun<Chunk>,
  attempt: number,
): Promise<OpenedStream<Chunk>> {
  const { spec, trace, signal } = run;
  const deadline = new AttemptDeadline(signal, run.limits);
  const context: CallAttemptContext = {
    request: run.request,
    signal: deadline.signal,
    attempt,
    logger: run.logger,
  };
  let iterator: AsyncIterator<Chunk> | undefined;
  try {
    const chunks = await deadline.race(
      trace ? trace.run(() => spec.open(context)) : spec.open(context),
    );
    iterator = chunks[Symbol.asyncIterator]();
    const first = await deadline.race(iterator.next());
    if (first.done || (spec.startsMessage && !spec.startsMessage(first.value))) {
      throw streamEndedEarly(run);
    }
    return { iterator, first: first.value, deadline, context };
  } catch (error) {
    deadline.clear();
    if (iterator) void iterator.return?.()?.catch(() => {});
    if (deadline.expired && !signal.aborted) {
      throw deadline.error({
        request_id: run.request.request_id,
        provider: run.setup.provider,
        cause: redactError(error, run.setup.secrets),
      });
    }
    throw error;
  }
}

/**
 * Opens the stream, retrying like a non-streaming call until its first chunk arrived; `null`
 * when the call was cancelled meanwhile.
 */
async function openStream<Chunk>(
  run: StreamRun<Chunk>,
  options: CallOptions,
): Promise<OpenedStream<Chunk> | null> {
  const { setup, request } = run;
  try {
    const opened = await withRetry((attempt) => openStreamAttempt(run, attempt.attempt), {
      maxRetries: setup.maxRetries,
      requestId: request.request_id,
      signal: run.signal,
      ...attemptHook(options, run.trace),
      ...setup.retry,
      toAdapterError: (error) => setup.toAdapterError(error, request),
    });
    run.trace?.firstChunk();
    return opened;
  } catch (error) {
    if (run.signal.aborted) return null;
    throw error;
  }
}

/**
 * Waits for a stream's chunks. Each wait also ends when the attempt's signal aborts
 * (cancellation or a passed deadline), so a provider stream that ignores the abort can never
 * keep the iterator waiting. Not `Promise.race` against one long-lived "aborted" promise: every
 * race leaves a reaction on that promise, holding the chunk it settled with, so a long stream
 * kept every chunk alive until it ended.
 */
class ChunkWaiter<Chunk> {
  readonly #source: AsyncIterator<Chunk>;
  readonly #signal: AbortSignal;
  #wake: ((value: 'aborted') => void) | undefined;
  readonly #onAbort = () => this.#wake?.('aborted');

  constructor(source: AsyncIterator<Chunk>, signal: AbortSignal) {
    this.#source = source;
    this.#signal = signal;
    signal.addEventListener('abort', this.#onAbort, { once: true });
  }

  /** The next chunk, or `'aborted'` once the attempt's signal aborted. */
  next(): Promise<IteratorResult<Chunk> | 'aborted'> {
    if (this.#signal.aborted) return Promise.resolve('aborted');
    return new Promise((resolve, reject) => {
      this.#wake = resolve;
      this.#source.next().then(resolve, reject);
    });
  }

  /** Forgets the settled wait. */
  settled(): void {
    this.#wake = undefined;
  }

  dispose(): void {
    this.#signal.removeEventListener('abort', this.#onAbort);
  }
}

/** The failure a throw while the stream was read stands for. */
function readFailure<Chunk>(run: StreamRun<Chunk>, deadline: AttemptDeadline, error: unknown) {
  return deadline.expired !== null
    ? deadline.error({
        request_id: run.request.request_id,
        provider: run.setup.provider,
        cause: redactError(error, run.setup.secrets),
      })
    : run.setup.toAdapterError(error, run.request);
}

/** The failure of a stream that stopped without a throw: a passed deadline, or no completion. */
function stopFailure<Chunk>(
  run: StreamRun<Chunk>,
  deadline: AttemptDeadline,
  builder: StreamBuilder,
): AdapterError | undefined {
  if (deadline.expired !== null) {
    return deadline.error({ request_id: run.request.request_id, provider: run.setup.provider });
  }
  return builder.finished ? undefined : streamEndedEarly(run);
}

/**
 * Runs a streaming adapter call under the contract:
 *
 * - the request is validated and an already-aborted signal is refused before anything is sent;
 * - opening the stream and waiting for its first chunk is retried like a non-streaming call
 *   (nothing has been yielded yet); once events flow it is not;
 * - each attempt is bounded by `timeout_seconds` as a whole and, after the first chunk, by
 *   `idle_timeout_seconds` between chunks; a passed deadline is a `network` failure;
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
  const logger = callLogger(setup, options, request);
  const { signal, end } = setup.inflight.begin(request.request_id, options.signal);
  const run: StreamRun<Chunk> = {
    setup,
    spec,
    request,
    logger,
    signal,
    limits: attemptLimits(setup),
    trace: null,
  };
  const builder = streamBuilderOf(run);
  let opened: OpenedStream<Chunk> | null = null;
  let exhausted = false;
  let thrown: { error: unknown } | null = null;
  try {
    const opening = openCallTrace(setup, request, options.telemetry, true);
    run.trace = opening instanceof Promise ? await opening : opening;
    opened = await openStream(run, options);
    if (!opened) {
      // Cancelled while the request was in flight: the stream still ends the one way.
      yield* builder.interrupt('cancelled');
      return;
    }
    const { deadline, context } = opened;
    deadline.armIdle();
    const waiter = new ChunkWaiter(opened.iterator, deadline.signal);
    let failure: AdapterError | undefined;
    try {
      let next: IteratorResult<Chunk> | 'aborted' = { done: false, value: opened.first };
      yield builder.start();
      for (;;) {
        if (next === 'aborted') break;
        if (next.done) {
          exhausted = true;
          break;
        }
        if (!builder.finished) {
          for (const event of spec.onChunk(next.value, builder, context)) yield event;
        }
        next = await waiter.next();
        waiter.settled();
        deadline.touch();
      }
    } catch (error) {
      if (!signal.aborted) failure = readFailure(run, deadline, error);
    } finally {
      waiter.dispose();
      deadline.clear();
    }
    if (signal.aborted) {
      yield* builder.interrupt('cancelled');
      return;
    }
    failure ??= stopFailure(run, deadline, builder);
    if (failure) {
      yield* builder.interrupt('error');
      throw failure;
    }
  } catch (error) {
    thrown = { error };
    throw error;
  } finally {
    // Stopped early (consumer break, cancel, error): let the provider stream release its
    // connection without waiting on it.
    if (opened && !exhausted) void opened.iterator.return?.()?.catch(() => {});
    opened?.deadline.clear();
    end();
    if (run.trace) endTrace(run.trace, builder, thrown);
  }
}

/** Ends a stream's trace the way the stream ended. */
function endTrace(trace: CallTrace, builder: StreamBuilder, thrown: { error: unknown } | null) {
  const completion = builder.completion;
  if (thrown) trace.failed(thrown.error, completion);
  else if (completion) trace.completed(completion);
  else trace.abandoned(builder.usage);
}

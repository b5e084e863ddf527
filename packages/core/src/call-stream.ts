import { type CallOptions, normalizeRequest } from './adapter.js';
import {
  type AdapterCallSetup,
  attemptHook,
  attemptLimits,
  type CallAttemptContext,
  callLogger,
  cancelledBeforeStart,
  type StreamCallSpec,
} from './call-shared.js';
import { AttemptDeadline, type AttemptLimits } from './deadline.js';
import { type AdapterError, NetworkError } from './errors.js';
import type { Logger } from './logger.js';
import { redactError } from './redact.js';
import { withRetry } from './retry.js';
import type { CanonicalRequest, CanonicalRequestInput } from './schemas/adapter.js';
import type { StreamEvent } from './schemas/stream.js';
import { StreamBuilder } from './stream/builder.js';
import { type EventPuller, FlatStream } from './stream/flat-stream.js';
import { heldPuller, ReadMapper } from './stream/read-mapper.js';
import {
  bodyChunkSource,
  type ChunkSource,
  isWireBody,
  iterableChunkSource,
  type WireBody,
} from './stream/wire-body.js';
import { type CallTrace, openCallTrace } from './telemetry/call-trace.js';
import { estimateBlockTokens, estimateRequestTokens } from './tokens.js';

/** Opened stream of one attempt, with its first batch of chunks already read. */
interface OpenedStream<Chunk> {
  source: ChunkSource<Chunk>;
  first: Chunk[];
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
  let source: ChunkSource<Chunk> | undefined;
  try {
    const opened = await deadline.race(
      trace ? trace.run(() => spec.open(context)) : spec.open(context),
    );
    source = isWireBody(opened)
      ? bodyChunkSource(opened as WireBody<Chunk>)
      : iterableChunkSource(opened as AsyncIterable<Chunk>);
    const first = await deadline.race(source.next());
    if (first === null || (spec.startsMessage && !spec.startsMessage(first[0] as Chunk))) {
      throw streamEndedEarly(run);
    }
    return { source, first, deadline, context };
  } catch (error) {
    deadline.clear();
    source?.close();
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
  readonly #source: ChunkSource<Chunk>;
  readonly #signal: AbortSignal;
  #wake: ((value: 'aborted') => void) | undefined;
  readonly #onAbort = () => this.#wake?.('aborted');

  constructor(source: ChunkSource<Chunk>, signal: AbortSignal) {
    this.#source = source;
    this.#signal = signal;
    signal.addEventListener('abort', this.#onAbort, { once: true });
  }

  /** The next batch of chunks (`null`: the stream ended), or `'aborted'` once the signal aborted. */
  next(): Promise<Chunk[] | null | 'aborted'> {
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
export function runStreamCall<Chunk>(
  setup: AdapterCallSetup,
  input: CanonicalRequestInput,
  options: CallOptions,
  spec: StreamCallSpec<Chunk>,
): AsyncGenerator<StreamEvent, void, undefined> {
  const consumer: { stream?: FlatStream<StreamEvent> } = {};
  const stream = new FlatStream(
    streamBatches({ setup, input, options, spec }, () => consumer.stream?.dropped ?? 0),
  );
  consumer.stream = stream;
  return stream;
}

/** What {@link runStreamCall} was called with. */
interface StreamCall<Chunk> {
  setup: AdapterCallSetup;
  input: CanonicalRequestInput;
  options: CallOptions;
  spec: StreamCallSpec<Chunk>;
}

/** {@link runStreamCall}'s events, a batch per provider read. */
async function* streamBatches<Chunk>(
  { setup, input, options, spec }: StreamCall<Chunk>,
  /** Events of the last batch the consumer left unread when it stopped early. */
  dropped: () => number,
): AsyncGenerator<StreamEvent[] | EventPuller<StreamEvent>, void, undefined> {
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
  const read = { exhausted: false };
  let thrown: { error: unknown } | null = null;
  try {
    const opening = openCallTrace(setup, request, options.telemetry, true);
    run.trace = opening instanceof Promise ? await opening : opening;
    opened = await openStream(run, options);
    if (!opened) {
      // Cancelled while the request was in flight: the stream still ends the one way.
      yield builder.interrupt('cancelled');
      return;
    }
    yield* readStream(run, builder, opened, read);
  } catch (error) {
    thrown = { error };
    throw error;
  } finally {
    // Stopped early (consumer break, cancel, error): let the provider stream release its
    // connection without waiting on it.
    if (opened && !read.exhausted) opened.source.close();
    opened?.deadline.clear();
    end();
    // a consumer that stopped before reading message.complete abandoned the call, even when the
    // provider's whole reply had arrived in the read it stopped in
    if (run.trace) endTrace(run.trace, builder, thrown, !read.exhausted && dropped() > 0);
  }
}

/**
 * Reads an opened stream to its end: each read's events as the consumer pulls them, then the
 * one way a stream ends (cancelled, or an error after the partial reply). `read.exhausted` says
 * whether the provider's stream was read to its end.
 */
async function* readStream<Chunk>(
  run: StreamRun<Chunk>,
  builder: StreamBuilder,
  opened: OpenedStream<Chunk>,
  read: { exhausted: boolean },
): AsyncGenerator<StreamEvent[] | EventPuller<StreamEvent>, void, undefined> {
  const { signal } = run;
  const { deadline, context } = opened;
  deadline.armIdle();
  const waiter = new ChunkWaiter(opened.source, deadline.signal);
  const reads = new ReadMapper(run.spec, builder, context, signal);
  let failure: AdapterError | undefined;
  try {
    reads.load(opened.first, builder.start());
    for (;;) {
      // a read's chunks are mapped as the consumer reads their events (decision 0147)
      yield reads.pull;
      reads.rethrow();
      const batch = await waiter.next();
      waiter.settled();
      deadline.touch();
      if (batch === 'aborted') break;
      if (batch === null) {
        read.exhausted = true;
        break;
      }
      reads.load(batch);
    }
  } catch (error) {
    if (!signal.aborted) failure = readFailure(run, deadline, error);
  } finally {
    waiter.dispose();
    deadline.clear();
  }
  if (signal.aborted) {
    yield interrupted(run, builder, 'cancelled');
    return;
  }
  failure ??= stopFailure(run, deadline, builder);
  if (failure) {
    // blocks held behind an open tool use are the provider's, delivered before the failure;
    // a consumer that cancels while reading them gets a cancelled reply instead
    yield heldPuller(builder, signal);
    if (signal.aborted) {
      yield interrupted(run, builder, 'cancelled');
      return;
    }
    yield interrupted(run, builder, 'error');
    throw failure;
  }
}

/**
 * Ends an interrupted stream. A provider that reports usage only at its end (Chat Completions)
 * has reported none yet: the input was still billed, so the reply carries local estimates,
 * flagged `estimated`, rather than zeros that price it as free.
 */
function interrupted<Chunk>(
  run: StreamRun<Chunk>,
  builder: StreamBuilder,
  reason: 'cancelled' | 'error',
): StreamEvent[] {
  if (!builder.usageReported && !builder.finished) {
    const { messages, tools, system_prompt } = run.request;
    builder.updateUsage({
      input_tokens: estimateRequestTokens(messages, tools, system_prompt),
      output_tokens: builder.content().reduce((sum, block) => sum + estimateBlockTokens(block), 0),
      estimated: true,
    });
  }
  return builder.interrupt(reason);
}

/** Ends a stream's trace the way the stream ended. */
function endTrace(
  trace: CallTrace,
  builder: StreamBuilder,
  thrown: { error: unknown } | null,
  stoppedEarly: boolean,
) {
  const completion = builder.completion;
  if (thrown) trace.failed(thrown.error, completion);
  else if (completion && !stoppedEarly) trace.completed(completion);
  else trace.abandoned(builder.usage);
}

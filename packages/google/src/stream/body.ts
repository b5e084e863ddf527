import type { WireBody } from '@yourtool/core/adapter';
import type { GeminiResponseLike } from '../codec/response.js';
import { parseGeminiEvent, streamErrorOf } from './chunk.js';
import { GeminiContinuation, type HopError } from './continuation.js';
import { HopTail } from './hop-tail.js';

/**
 * Sends the stream's request again to resume it (`continuationToken`: where from), through the
 * SDK, and resolves with the response whose status the SDK checked.
 */
export type GeminiResend = (continuationToken: string | undefined) => Promise<Response>;

/** Options of {@link geminiStreamBody}. */
export interface GeminiStreamBodyOptions {
  /** Sends a continuation hop. */
  resend: GeminiResend;
  /** Whether the SDK talks to Vertex AI (its response converter differs from the Gemini API's). */
  vertex: boolean;
  /** `config.automaticContinuation !== false`. */
  automaticContinuation: boolean;
  /** The attempt's signal. */
  signal: AbortSignal;
}

/** Ends the data of the event the reader injects between two hops' bodies (see `HopTail`). */
const HOP_MARK = '\u0000yourtool:gemini-next-hop';
type ReadResult = Awaited<ReturnType<ReadableStreamDefaultReader<Uint8Array>['read']>>;
const DONE: IteratorReturnResult<undefined> = { done: true, value: undefined };
const JSON_SPACE = new Set([0x20, 0x09, 0x0a, 0x0d]);
const decoder = new TextDecoder();

/**
 * A `streamGenerateContent?alt=sse` response body for core to read (decision 0147), read the
 * way `@google/genai`'s `generateContentStream` read it, so every stream maps to the same events:
 * each `data:` event is parsed by {@link parseGeminiEvent} (events with an `event:` name are
 * skipped, as the SDK skipped every event not starting with `data:`); a network read that is
 * itself a JSON error object fails with the SDK's `ApiError`, as does a body whose last event
 * is unfinished (the SDK's `Incomplete JSON segment at the end`); and Gemini's automatic
 * continuation ({@link GeminiContinuation}) sends further hops and reads their bodies as the
 * continuation of this one. `first` is the first hop's response, its status already checked.
 */
export function geminiStreamBody(
  first: Response,
  options: GeminiStreamBodyOptions,
): WireBody<GeminiResponseLike> {
  const hops = new GeminiHops(first, options);
  return { body: hops, framing: 'sse', parse: hops.parse };
}

function bodyReader(response: Response): ReadableStreamDefaultReader<Uint8Array> {
  if (!response.body) throw new Error('Response body is empty');
  return response.body.getReader();
}

/** The SDK's check of a whole network read: a read that is one JSON error object is its error. */
function readError(bytes: Uint8Array): unknown {
  let i = 0;
  while (i < bytes.length && JSON_SPACE.has(bytes[i] as number)) i++;
  if (bytes[i] !== 0x7b) return undefined;
  try {
    return streamErrorOf(JSON.parse(decoder.decode(bytes)));
  } catch {
    return undefined;
  }
}

/** The bytes of every hop's body in turn, and the parse of their events. */
class GeminiHops implements AsyncIterableIterator<Uint8Array> {
  readonly #options: GeminiStreamBodyOptions;
  readonly #continuation: GeminiContinuation;
  readonly #tail = new HopTail();
  #reader: ReadableStreamDefaultReader<Uint8Array>;
  /** An event failed and the continuation chose to resume: the next read opens the next hop. */
  #resume = false;
  /** Events are dropped up to the one the reader injected before the next hop's body. */
  #skipping = false;
  #closed = false;

  constructor(first: Response, options: GeminiStreamBodyOptions) {
    this.#options = options;
    this.#continuation = new GeminiContinuation(options.automaticContinuation, options.signal);
    this.#continuation.startHop();
    this.#reader = bodyReader(first);
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  next(): Promise<IteratorResult<Uint8Array>> {
    if (this.#closed) return Promise.resolve(DONE);
    if (this.#resume) {
      this.#resume = false;
      this.#release();
      return this.#nextHop();
    }
    return this.#reader.read().then(this.#onRead, this.#onReadError);
  }

  /** Stops reading: the current body is cancelled, and no further hop is sent. */
  return(): Promise<IteratorResult<Uint8Array>> {
    if (!this.#closed) {
      this.#closed = true;
      this.#release();
    }
    return Promise.resolve(DONE);
  }

  /** One SSE event → the chunk for the mapper (see {@link geminiStreamBody}). */
  readonly parse = (data: string, event: string, line: number): GeminiResponseLike | undefined => {
    if (this.#skipping) {
      if (data.endsWith(HOP_MARK)) this.#skipping = false;
      return undefined;
    }
    if (event !== '') return undefined;
    let chunk: GeminiResponseLike;
    try {
      chunk = parseGeminiEvent(data, line, this.#options.vertex);
    } catch (error) {
      // the hop failed here; the rest of its body is dropped if the stream resumes
      this.#endHopOrThrow({ error });
      this.#skipping = true;
      this.#resume = true;
      return undefined;
    }
    this.#continuation.observe(chunk);
    return chunk;
  };

  readonly #onRead = (result: ReadResult) => {
    if (this.#closed) return DONE;
    if (result.done) {
      const unfinished = this.#tail.incomplete;
      return this.#endHop(
        unfinished ? { error: new Error('Incomplete JSON segment at the end') } : undefined,
      );
    }
    const error = readError(result.value);
    if (error) return this.#endHop({ error });
    this.#tail.note(result.value);
    return result as IteratorYieldResult<Uint8Array>;
  };

  readonly #onReadError = (error: unknown) => this.#endHop({ error });

  /** The current hop ended (or failed): the next hop's first bytes, or the end. */
  #endHop(hopError: HopError | undefined): Promise<IteratorResult<Uint8Array>> | typeof DONE {
    if (this.#closed) return DONE;
    if (hopError) this.#release();
    if (!this.#continuation.endHop(hopError)) {
      this.#closed = true;
      return DONE;
    }
    return this.#nextHop();
  }

  /** Sends hops until one is accepted; its body starts after the injected event. */
  async #nextHop(): Promise<IteratorResult<Uint8Array>> {
    for (;;) {
      const token = this.#continuation.startHop();
      let response: Response;
      try {
        response = await this.#options.resend(token);
      } catch (error) {
        this.#endHopOrThrow({ error });
        continue;
      }
      if (this.#closed) {
        response.body?.cancel().catch(() => {});
        return DONE;
      }
      this.#reader = bodyReader(response);
      this.#skipping = true;
      return { done: false, value: this.#tail.injection(HOP_MARK) };
    }
  }

  /** A failed hop: returns if the stream resumes, else throws what it fails with. */
  #endHopOrThrow(hopError: HopError): void {
    if (!this.#continuation.endHop(hopError)) throw hopError.error;
  }

  #release(): void {
    this.#reader.cancel().catch(() => {});
  }
}

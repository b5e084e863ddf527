import { type ByteSource, MalformedStreamError, type StreamFormat } from './body.js';
import { type FrameSink, NdjsonFramer, SseFramer } from './frames.js';

/**
 * Returned by a {@link WireBody}'s `parse` for the provider's own end-of-stream record (Chat
 * Completions' `data: [DONE]`): reading stops there and the body is released.
 */
export const STREAM_DONE: unique symbol = Symbol.for('yourtool.stream-done') as never;

/**
 * A provider stream's response body, for core to read: what an adapter's `open` may return
 * instead of its SDK's parsed stream once the SDK sent the request (auth, base URL, headers,
 * status errors). Core reads each network read's records synchronously and hands the parsed
 * chunks to the adapter's mapper, with no async step per event; deadlines, cancellation and the
 * stream error contract are the same as for an SDK stream.
 */
export interface WireBody<Chunk> {
  /** The response body (`Response.body`). */
  readonly body: ByteSource;
  /** How records are framed: `text/event-stream` or one JSON value per line. */
  readonly framing: StreamFormat;
  /**
   * One record → the chunk the adapter's mapper takes: an SSE event's data and `event:` name
   * (`''` when it named none), or an NDJSON line (name `''`; {@link parseNdjsonLine} parses it
   * with the line in its error). `undefined` skips the record (keep-alives); {@link STREAM_DONE}
   * ends the stream. A throw (a provider `error` event, data that is not JSON) fails the read
   * like a transport error.
   */
  readonly parse: (
    data: string,
    event: string,
    line: number,
  ) => Chunk | typeof STREAM_DONE | undefined;
  /** A last chunk for the mapper once the body ended or `STREAM_DONE` came (an end marker). */
  readonly end?: () => Chunk | undefined;
  /** Bound of one record, in characters (default 8 MiB). */
  readonly maxRecordChars?: number;
}

/** Whether an adapter's `open` returned a {@link WireBody} rather than an iterable of chunks. */
export function isWireBody(value: unknown): value is WireBody<unknown> {
  return (
    typeof value === 'object' &&
    value !== null &&
    'framing' in value &&
    'body' in value &&
    typeof (value as { parse?: unknown }).parse === 'function'
  );
}

/**
 * Where one attempt's chunks come from: a batch per network read (a {@link WireBody}) or one
 * chunk at a time (an SDK's iterable). `null` once the stream ended.
 * @internal
 */
export interface ChunkSource<Chunk> {
  next(): Promise<Chunk[] | null>;
  /** Releases the connection of a stream left before its end. */
  close(): void;
}

/** A source over an SDK's async iterable: each chunk a batch of one. @internal */
export function iterableChunkSource<Chunk>(chunks: AsyncIterable<Chunk>): ChunkSource<Chunk> {
  const iterator = chunks[Symbol.asyncIterator]();
  return {
    next: () => iterator.next().then((result) => (result.done ? null : [result.value])),
    close: () => {
      void iterator.return?.()?.catch(() => {});
    },
  };
}

/** A source that reads a {@link WireBody}: one batch of parsed chunks per network read. @internal */
export function bodyChunkSource<Chunk>(wire: WireBody<Chunk>): ChunkSource<Chunk> {
  return new BodyChunkSource(wire);
}

class BodyChunkSource<Chunk> implements ChunkSource<Chunk> {
  readonly #wire: WireBody<Chunk>;
  readonly #read: () => Promise<IteratorResult<Uint8Array>>;
  readonly #cancel: () => void;
  readonly #decoder = new TextDecoder('utf-8', { fatal: true });
  readonly #framer: SseFramer | NdjsonFramer;
  readonly #sink: FrameSink;
  #batch: Chunk[] = [];
  #stopped = false;
  #failure: { error: unknown } | undefined;
  #finished = false;

  constructor(wire: WireBody<Chunk>) {
    this.#wire = wire;
    const body = wire.body;
    if ('getReader' in body) {
      const reader = body.getReader();
      this.#read = () => reader.read() as Promise<IteratorResult<Uint8Array>>;
      this.#cancel = () => {
        reader.cancel().catch(() => {});
      };
    } else {
      const iterator = body[Symbol.asyncIterator]();
      this.#read = () => iterator.next();
      this.#cancel = () => {
        void iterator.return?.()?.catch(() => {});
      };
    }
    this.#framer =
      wire.framing === 'sse'
        ? new SseFramer(wire.maxRecordChars)
        : new NdjsonFramer(wire.maxRecordChars);
    this.#sink = (data, event, line) => {
      if (this.#stopped) return;
      const chunk = wire.parse(data, event, line);
      if (chunk === STREAM_DONE) this.#stopped = true;
      else if (chunk !== undefined) this.#batch.push(chunk);
    };
  }

  async next(): Promise<Chunk[] | null> {
    if (this.#failure) throw this.#failure.error;
    while (!this.#finished) {
      const result = await this.#read();
      try {
        if (result.done) this.#endOfBody();
        else this.#framer.feed(this.#decode(result.value), this.#sink);
      } catch (error) {
        // the chunks before a bad record are delivered first, as a per-event reader would
        if (this.#batch.length === 0) throw error;
        this.#failure = { error };
        return this.#take();
      }
      if (this.#stopped && !this.#finished) {
        this.#cancel();
        this.#finish();
      }
      if (this.#batch.length > 0) return this.#take();
    }
    return null;
  }

  #take(): Chunk[] {
    const batch = this.#batch;
    this.#batch = [];
    return batch;
  }

  close(): void {
    if (!this.#finished) {
      this.#finished = true;
      this.#cancel();
    }
  }

  #endOfBody(): void {
    const rest = this.#decode();
    if (rest !== '') this.#framer.feed(rest, this.#sink);
    if (this.#framer instanceof NdjsonFramer) this.#framer.end(this.#sink);
    this.#finish();
  }

  #finish(): void {
    this.#finished = true;
    const last = this.#wire.end?.();
    if (last !== undefined) this.#batch.push(last);
  }

  #decode(bytes?: Uint8Array): string {
    try {
      return bytes ? this.#decoder.decode(bytes, { stream: true }) : this.#decoder.decode();
    } catch {
      throw new MalformedStreamError(this.#wire.framing, this.#framer.line, 'is not valid UTF-8');
    }
  }
}

import { ServerError } from '../errors.js';

/** A response body: a web `ReadableStream` (what `fetch` gives) or any async iterable of bytes. */
export type ByteSource = ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>;

/** Options shared by core's stream body readers ({@link readSseEvents}, {@link readNdjson}). */
export interface StreamReadOptions {
  /**
   * Aborts the read: the body is cancelled (releasing the connection) and the signal's reason
   * is thrown, as `fetch` does, so core's call runners see a cancellation or a passed deadline.
   */
  signal?: AbortSignal;
}

/** Which reader found the problem. */
export type StreamFormat = 'sse' | 'ndjson';

/**
 * A provider stream that cannot be read: a line or event longer than the reader's bound,
 * bytes that are not UTF-8, or (NDJSON) a line that is not JSON. It is a {@link ServerError}
 * (decision 0071: a reply the provider garbled is the provider's failure), so an adapter may
 * pass it through its error mapping unchanged. `line` is the 1-based line of the body where
 * the problem was found (`null` when it concerns a whole event).
 */
export class MalformedStreamError extends ServerError {
  /** The reader that failed. */
  readonly format: StreamFormat;
  /** 1-based line number in the body, or `null`. */
  readonly line: number | null;
  /** What was wrong, e.g. `is not valid JSON`. */
  readonly reason: string;

  constructor(format: StreamFormat, line: number | null, reason: string) {
    super(
      `malformed ${format === 'sse' ? 'SSE' : 'NDJSON'} stream: ${line === null ? '' : `line ${line} `}${reason}`,
    );
    this.format = format;
    this.line = line;
    this.reason = reason;
  }
}

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('This operation was aborted', 'AbortError');
}

/**
 * Reads a body as text chunks (UTF-8, fatal on invalid bytes), honouring `signal`. Stopping
 * early cancels the body.
 * @internal
 */
export async function* textChunks(
  body: ByteSource,
  format: StreamFormat,
  currentLine: () => number,
  signal?: AbortSignal,
): AsyncGenerator<string, void, undefined> {
  if (signal?.aborted) throw abortReason(signal);
  const iterator: AsyncIterator<Uint8Array> =
    'getReader' in body ? readerIterator(body) : body[Symbol.asyncIterator]();
  const decoder = new TextDecoder('utf-8', { fatal: true });
  const decode = (bytes?: Uint8Array): string => {
    try {
      return bytes ? decoder.decode(bytes, { stream: true }) : decoder.decode();
    } catch {
      throw new MalformedStreamError(format, currentLine(), 'is not valid UTF-8');
    }
  };
  let finished = false;
  let onAbort: (() => void) | undefined;
  const aborted = signal
    ? new Promise<never>((_, reject) => {
        onAbort = () => reject(abortReason(signal));
        signal.addEventListener('abort', onAbort, { once: true });
      })
    : undefined;
  // a rejection nobody awaits yet must not surface as unhandled
  aborted?.catch(() => {});
  try {
    for (;;) {
      const next = await (aborted ? Promise.race([iterator.next(), aborted]) : iterator.next());
      if (next.done) {
        finished = true;
        const rest = decode();
        if (rest !== '') yield rest;
        return;
      }
      const text = decode(next.value);
      if (text !== '') yield text;
    }
  } finally {
    if (onAbort) signal?.removeEventListener('abort', onAbort);
    if (!finished) await iterator.return?.().catch(() => undefined);
  }
}

function readerIterator(body: ReadableStream<Uint8Array>): AsyncIterator<Uint8Array> {
  const reader = body.getReader();
  return {
    next: () => reader.read() as Promise<IteratorResult<Uint8Array>>,
    return: async () => {
      await reader.cancel().catch(() => undefined);
      return { done: true, value: undefined };
    },
  };
}

import {
  type ByteSource,
  MalformedStreamError,
  parseNdjsonLine,
  STREAM_DONE,
  type WireBody,
} from '@yourtool/core/adapter';
import type { ChatResponse } from 'ollama';
import {
  OllamaIncompleteStreamError,
  OllamaMalformedChunkError,
  OllamaStreamErrorLine,
} from './errors.js';

/**
 * An Ollama NDJSON body (`/api/chat` with `stream: true`), for core to read a network read at a
 * time (core frames the lines: blank lines skipped, a trailing `\r` dropped, a line bounded by
 * 8 MiB of characters, a last line without a newline read too). Each line is parsed once, up to
 * and including the `done: true` line, after which the rest of the body is cancelled (the
 * connection released). An unparseable line ends the stream with an error rather than being
 * dropped, since a reply with text silently missing cannot be told from a correct one:
 *
 * - a line that is not JSON, or not a JSON object, or bytes that are not UTF-8 →
 *   {@link OllamaMalformedChunkError} (`server_error`; core's `MalformedStreamError` for the
 *   framing's own failures, which {@link ollamaReadError} turns into it); the lines before it
 *   are mapped first;
 * - an `{"error": ...}` line → {@link OllamaStreamErrorLine};
 * - a body that ends without a `done: true` line → {@link OllamaIncompleteStreamError}
 *   (`network`);
 * - a transport failure of the body (a reset connection, an abort) is thrown as it is.
 *
 * The errors are raw: core passes whatever fails the read to the adapter's `toAdapterError`.
 */
export function ollamaStreamBody(body: ByteSource): WireBody<ChatResponse> {
  /** Lines parsed so far, the count the errors report (as the adapter always did). */
  let lines = 0;
  let done: ChatResponse | undefined;
  return {
    body,
    framing: 'ndjson',
    parse: (text, _event, line) => {
      const value = parseNdjsonLine(text, line);
      lines++;
      const chunk = ollamaChunk(value, lines);
      if (chunk.done !== true) return chunk;
      // the done line ends the read (the body is cancelled); `end` hands it to the mapper
      done = chunk;
      return STREAM_DONE;
    },
    end: () => {
      const last = done;
      if (last === undefined) throw new OllamaIncompleteStreamError(lines);
      done = undefined;
      return last;
    },
  };
}

/**
 * What failed a read of an Ollama body, in the adapter's terms: core's `MalformedStreamError`
 * for an NDJSON line (not JSON, too long, not UTF-8) is the {@link OllamaMalformedChunkError}
 * for that line; anything else is returned as it is.
 */
export function ollamaReadError(error: unknown): unknown {
  if (error instanceof MalformedStreamError && error.format === 'ndjson')
    return new OllamaMalformedChunkError(error.line ?? 0, error.reason);
  return error;
}

/** A parsed line as a chat chunk: a JSON object that is not an `{"error": ...}` line. */
function ollamaChunk(value: unknown, line: number): ChatResponse {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new OllamaMalformedChunkError(line, 'is not a JSON object');
  }
  if ('error' in value) {
    const error = (value as { error: unknown }).error;
    throw new OllamaStreamErrorLine(
      typeof error === 'string' ? error : (JSON.stringify(error) ?? 'unknown error'),
    );
  }
  return value as ChatResponse;
}

/**
 * The streamed body is read by core's `readNdjson` (issue 26), with an unparseable line still
 * ending the stream with an error rather than being dropped, since a reply with text silently
 * missing cannot be told from a correct one.
 */
import { describe, expect, it } from 'vitest';
import { readOllamaChunks } from '../src/client.js';
import {
  OllamaIncompleteStreamError,
  OllamaMalformedChunkError,
  OllamaStreamErrorLine,
} from '../src/codec/errors.js';

const encoder = new TextEncoder();

/** A body of the given pieces, and whether it was cancelled. */
function body(...pieces: Array<string | Uint8Array>) {
  const state = { cancelled: false };
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const piece of pieces)
        controller.enqueue(typeof piece === 'string' ? encoder.encode(piece) : piece);
      controller.close();
    },
    cancel() {
      state.cancelled = true;
    },
  });
  return { stream, state };
}

async function read(stream: ReadableStream<Uint8Array>) {
  const chunks: unknown[] = [];
  try {
    for await (const chunk of readOllamaChunks(stream)) chunks.push(chunk);
    return { chunks, error: undefined };
  } catch (error) {
    return { chunks, error };
  }
}

const line = (content: string) => `{"message":{"content":"${content}"},"done":false}\n`;
const done = '{"message":{"content":""},"done":true,"done_reason":"stop"}\n';

describe('readOllamaChunks', () => {
  it('yields each line once, across pieces, skipping blank lines, up to the done line', async () => {
    const { stream } = body(
      line('He').slice(0, 10),
      line('He').slice(10),
      '\n  \r\n',
      line('y'),
      done,
    );
    const { chunks, error } = await read(stream);
    expect(error).toBeUndefined();
    expect(chunks).toHaveLength(3);
    expect(chunks.at(-1)).toMatchObject({ done: true });
  });

  it('stops at the done line, cancelling the rest of the body', async () => {
    const { stream, state } = body(line('a'), done, line('after'));
    const { chunks } = await read(stream);
    expect(chunks).toHaveLength(2);
    expect(state.cancelled).toBe(true);
  });

  it('a line that is not JSON is an OllamaMalformedChunkError naming it, after the lines before', async () => {
    const { stream } = body(line('a'), '{"model": oops}\n', done);
    const { chunks, error } = await read(stream);
    expect(chunks).toHaveLength(1);
    expect(error).toBeInstanceOf(OllamaMalformedChunkError);
    expect((error as OllamaMalformedChunkError).line).toBe(2);
    expect((error as Error).message).toBe('ollama: line 2 of the streamed reply is not valid JSON');
  });

  it('JSON that is not an object, a cut last line and bytes that are not UTF-8 are errors too', async () => {
    for (const bad of [
      '[1,2]\n',
      '42\n',
      'null\n',
      '{"message":{"content":"cut',
      new Uint8Array([0xff, 0x0a]),
    ]) {
      const { error } = await read(body(line('a'), bad).stream);
      expect(error).toBeInstanceOf(OllamaMalformedChunkError);
    }
  });

  it('an {"error": ...} line is an OllamaStreamErrorLine with its text', async () => {
    const { error } = await read(body(line('a'), '{"error":"model crashed"}\n').stream);
    expect(error).toBeInstanceOf(OllamaStreamErrorLine);
    expect((error as OllamaStreamErrorLine).provider_message).toBe('model crashed');
  });

  it('a body that ends without a done line is an OllamaIncompleteStreamError', async () => {
    const { chunks, error } = await read(body(line('a'), line('b')).stream);
    expect(chunks).toHaveLength(2);
    expect(error).toBeInstanceOf(OllamaIncompleteStreamError);
    expect((error as OllamaIncompleteStreamError).lines).toBe(2);
  });

  it('every failure goes through mapError, once; after it the stream is over', async () => {
    const seen: unknown[] = [];
    const mapped = readOllamaChunks(body(line('a'), '42\n', done).stream, (error) => {
      seen.push(error);
      return new Error('mapped');
    });
    const iterator = mapped[Symbol.asyncIterator]();
    expect((await iterator.next()).done).toBe(false);
    await expect(iterator.next()).rejects.toThrow('mapped');
    expect(seen).toHaveLength(1);
    expect(seen[0]).toBeInstanceOf(OllamaMalformedChunkError);
    expect(await iterator.next()).toEqual({ done: true, value: undefined });
  });
});

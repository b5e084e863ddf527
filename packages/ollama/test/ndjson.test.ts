/**
 * The streamed body is read by core a network read at a time (issue 30; before, the adapter's
 * own iterator over core's `readNdjson`, issue 26), each line parsed by the adapter's
 * `ollamaStreamBody`, with an unparseable line still ending the stream with an error rather than
 * being dropped, since a reply with text silently missing cannot be told from a correct one.
 * Driven through `stream()` with a `fetch` that answers with the given body pieces, each piece
 * one network read.
 */
import {
  type AdapterError,
  type CanonicalRequestInput,
  createMessage,
  NetworkError,
  newRequestId,
  newSessionId,
  ServerError,
  type StreamEvent,
} from '@yourtool/core';
import { describe, expect, it } from 'vitest';
import { OllamaAdapter } from '../src/index.js';

const encoder = new TextEncoder();

/** A body of the given pieces (one read each), and whether it was cancelled. */
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

const API_KEY = 'sk-ndjson-secret';

/** Streams one call whose response body is `stream`; its events and its error, if any. */
async function read(stream: ReadableStream<Uint8Array>) {
  const fetch: typeof globalThis.fetch = async () =>
    new Response(stream, { status: 200, headers: { 'content-type': 'application/x-ndjson' } });
  const ollama = new OllamaAdapter(
    {
      base_url: 'http://127.0.0.1:9',
      api_key: API_KEY,
      max_retries: 0,
      options: { detect_capabilities: false },
    },
    { fetch },
  );
  const events: StreamEvent[] = [];
  const request: CanonicalRequestInput = {
    request_id: newRequestId(),
    model: 'ollama:qwen3:8b',
    max_output_tokens: 64,
    messages: [
      createMessage({
        session_id: newSessionId(),
        role: 'user',
        content: [{ type: 'text', text: 'Hi' }],
      }),
    ],
  };
  try {
    for await (const event of ollama.stream(request)) events.push(event);
    return { events, error: undefined, request };
  } catch (error) {
    return { events, error: error as AdapterError, request };
  } finally {
    await ollama.close();
  }
}

const texts = (events: StreamEvent[]) =>
  events.flatMap((e) => (e.type === 'text.delta' ? [e.text] : [])).join('');
const stopReason = (events: StreamEvent[]) => {
  const last = events.at(-1);
  return last?.type === 'message.complete' ? last.stop_reason : undefined;
};

const line = (content: string) => `{"message":{"content":"${content}"},"done":false}\n`;
const done = '{"message":{"content":""},"done":true,"done_reason":"stop"}\n';

describe('the streamed NDJSON body', () => {
  it('maps each line once, across reads, skipping blank lines, up to the done line', async () => {
    const { stream } = body(
      line('He').slice(0, 10),
      line('He').slice(10),
      '\n  \r\n',
      line('y'),
      done,
    );
    const { events, error } = await read(stream);
    expect(error).toBeUndefined();
    expect(texts(events)).toBe('Hey');
    expect(stopReason(events)).toBe('end_turn');
  });

  it('maps the done line when the body goes on, and stops there, cancelling the rest', async () => {
    const { stream, state } = body(line('a'), done, line('after'));
    const { events, error } = await read(stream);
    expect(error).toBeUndefined();
    expect(texts(events)).toBe('a');
    expect(stopReason(events)).toBe('end_turn');
    expect(state.cancelled).toBe(true);
  });

  it('the done line and lines after it in one read: the done line ends the stream', async () => {
    const { stream } = body(`${line('a')}${done}${line('after')}not json\n`);
    const { events, error } = await read(stream);
    expect(error).toBeUndefined();
    expect(texts(events)).toBe('a');
    expect(stopReason(events)).toBe('end_turn');
  });

  it('a line that is not JSON is a server_error naming it, after the lines before', async () => {
    const { stream } = body(line('a'), '{"model": oops}\n', done);
    const { events, error } = await read(stream);
    expect(texts(events)).toBe('a');
    expect(stopReason(events)).toBe('error');
    expect(error).toBeInstanceOf(ServerError);
    expect(error?.message).toBe('ollama: line 2 of the streamed reply is not valid JSON');
    expect(error?.provider_message).toBe('malformed stream line');
    expect((error?.cause as Error | undefined)?.name).toBe('OllamaMalformedChunkError');
  });

  it('a bad line in the same read as good ones: the good ones are mapped first', async () => {
    const { stream } = body(`${line('a')}${line('b')}[1]\n${done}`);
    const { events, error } = await read(stream);
    expect(texts(events)).toBe('ab');
    expect(error?.message).toBe('ollama: line 3 of the streamed reply is not a JSON object');
  });

  it('JSON that is not an object, a cut last line and bytes that are not UTF-8 are errors too', async () => {
    const cases: Array<[string | Uint8Array, string]> = [
      ['[1,2]\n', 'line 2 of the streamed reply is not a JSON object'],
      ['42\n', 'line 2 of the streamed reply is not a JSON object'],
      ['null\n', 'line 2 of the streamed reply is not a JSON object'],
      ['{"message":{"content":"cut', 'line 2 of the streamed reply is not valid JSON'],
      [new Uint8Array([0xff, 0x0a]), 'line 2 of the streamed reply is not valid UTF-8'],
    ];
    for (const [bad, message] of cases) {
      const { events, error } = await read(body(line('a'), bad).stream);
      expect(texts(events)).toBe('a');
      expect(error).toBeInstanceOf(ServerError);
      expect(error?.message).toBe(`ollama: ${message}`);
      expect(error?.provider_message).toBe('malformed stream line');
    }
  });

  it('an {"error": ...} line fails the stream with its text, classified and redacted', async () => {
    const { events, error } = await read(
      body(line('a'), `{"error":"model crashed (key ${API_KEY})"}\n`).stream,
    );
    expect(texts(events)).toBe('a');
    expect(stopReason(events)).toBe('error');
    expect(error).toBeInstanceOf(ServerError);
    expect(error?.provider_message).toBe('model crashed (key [REDACTED])');
    expect(error?.message).toBe('ollama: the stream failed: model crashed (key [REDACTED])');
    expect(JSON.stringify(error?.cause)).not.toContain(API_KEY);

    const overflow = await read(
      body(line('a'), '{"error":{"message":"too many tokens"}}\n').stream,
    );
    expect(overflow.error?.error_class).toBe('context_overflow');
  });

  it('a body that ends without a done line is a network failure counting the lines', async () => {
    const { events, error, request } = await read(body(line('a'), '\n', line('b')).stream);
    expect(texts(events)).toBe('ab');
    expect(stopReason(events)).toBe('error');
    expect(error).toBeInstanceOf(NetworkError);
    expect(error?.message).toBe(
      'ollama: the stream ended after 2 lines, before Ollama said it was done',
    );
    expect(error?.provider_message).toBe('stream ended before done');
    expect(error?.request_id).toBe(request.request_id);
  });

  it('an empty body fails before any event (network: retried like a refused connection)', async () => {
    const { events, error } = await read(body().stream);
    expect(events).toEqual([]);
    expect(error).toBeInstanceOf(NetworkError);
    expect(error?.message).toBe(
      'ollama: the stream ended after 0 lines, before Ollama said it was done',
    );
  });
});

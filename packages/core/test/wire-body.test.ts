import { describe, expect, it } from 'vitest';
import {
  type AdapterCallSetup,
  CancelledError,
  checkStreamInvariants,
  collectStream,
  InflightCalls,
  MalformedStreamError,
  NetworkError,
  parseNdjsonLine,
  parseSseData,
  readSseEvents,
  runStreamCall,
  ServerError,
  STREAM_DONE,
  type StreamBuilder,
  type StreamEvent,
  type WireBody,
} from './exports.js';
import { msg } from './helpers.js';

type Chunk = { text?: string; done?: boolean; end?: true };

const setup = (extra: Partial<AdapterCallSetup> = {}): AdapterCallSetup => ({
  provider: 'fake',
  inflight: new InflightCalls(),
  maxRetries: 0,
  retry: { baseDelayMs: 1, maxDelayMs: 1 },
  toAdapterError: (error) =>
    error instanceof ServerError || error instanceof NetworkError
      ? error
      : new NetworkError(String(error)),
  ...extra,
});

const request = () => ({
  request_id: `req_${Math.random().toString(36).slice(2)}`,
  model: 'fake:model',
  max_output_tokens: 10,
  messages: [msg('user', [{ type: 'text', text: 'hi' }])],
});

/** A body delivering `parts` one read each; `stall` keeps it open after them until cancelled. */
function body(parts: Array<string | Uint8Array>, options: { stall?: boolean } = {}) {
  const state = { cancelled: false, reads: 0 };
  const encoder = new TextEncoder();
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      const part = parts[state.reads++];
      if (part === undefined) {
        if (!options.stall) controller.close();
        return options.stall ? new Promise(() => {}) : undefined;
      }
      controller.enqueue(typeof part === 'string' ? encoder.encode(part) : part);
    },
    cancel() {
      state.cancelled = true;
    },
  });
  return { stream, state };
}

const sseParse = (data: string, event: string, line: number): Chunk | typeof STREAM_DONE => {
  if (data === '[DONE]') return STREAM_DONE;
  return parseSseData(data, event, line) as Chunk;
};

const onChunk = (chunk: Chunk, builder: StreamBuilder): StreamEvent[] => {
  if (chunk.end) return builder.finished ? [] : builder.complete('end_turn');
  return chunk.done ? builder.complete('end_turn') : builder.text(0, chunk.text ?? '');
};

function stream(
  wire: WireBody<Chunk>,
  extra: Partial<AdapterCallSetup> = {},
  signal?: AbortSignal,
) {
  return runStreamCall(setup(extra), request(), signal ? { signal } : {}, {
    open: async () => wire,
    onChunk,
  });
}

const texts = (events: StreamEvent[]) =>
  events.flatMap((e) => (e.type === 'text.delta' ? [e.text] : []));

describe('a WireBody read by core', () => {
  const sse = 'data: {"text":"héllo "}\n\ndata: {"text":"wörld"}\n\ndata: {"done":true}\n\n';

  it('gives the same events however the bytes are split across reads (mid-line, mid-character)', async () => {
    const bytes = new TextEncoder().encode(sse);
    const whole = await collectStream(
      stream({ body: body([bytes]).stream, framing: 'sse', parse: sseParse }),
    );
    expect(texts(whole.events)).toEqual(['héllo ', 'wörld']);
    for (const size of [1, 2, 3, 7]) {
      const parts: Uint8Array[] = [];
      for (let i = 0; i < bytes.length; i += size) parts.push(bytes.slice(i, i + size));
      const split = await collectStream(
        stream({ body: body(parts).stream, framing: 'sse', parse: sseParse }),
      );
      expect(split.error).toBeUndefined();
      expect(split.events.map((e) => e.type)).toEqual(whole.events.map((e) => e.type));
      expect(texts(split.events)).toEqual(['héllo ', 'wörld']);
      expect(checkStreamInvariants(split.events)).toEqual([]);
    }
  });

  it('reads \\r\\n and \\r line ends, comments and named events like the public SSE reader', async () => {
    const text =
      ': keep-alive\r\nevent: delta\r\ndata: {"text":"a"}\r\n\r\nevent: delta\rdata: {"text":"b"}\r\r';
    const seen: Array<[string, string]> = [];
    const wire: WireBody<Chunk> = {
      body: body([text.slice(0, 20), text.slice(20)]).stream,
      framing: 'sse',
      parse: (data, event) => {
        seen.push([event, data]);
        return parseSseData(data, event, 0) as Chunk;
      },
      end: () => ({ end: true }),
    };
    const { events, error } = await collectStream(stream(wire));
    expect(error).toBeUndefined();
    expect(texts(events)).toEqual(['a', 'b']);
    const reader = [];
    for await (const event of readSseEvents(body([text]).stream))
      reader.push([event.event, event.data]);
    expect(seen).toEqual(reader);
  });

  it('stops at STREAM_DONE: the end marker follows, the rest is not read and the body is released', async () => {
    const { stream: bodyStream, state } = body(
      ['data: {"text":"a"}\n\ndata: [DONE]\n\ndata: {"text":"after"}\n\n'],
      { stall: true },
    );
    const { events, error } = await collectStream(
      stream({ body: bodyStream, framing: 'sse', parse: sseParse, end: () => ({ end: true }) }),
    );
    expect(error).toBeUndefined();
    expect(texts(events)).toEqual(['a']);
    expect(events.at(-1)).toMatchObject({ type: 'message.complete', stop_reason: 'end_turn' });
    expect(state.cancelled).toBe(true);
  });

  it('a record that does not parse: the events before it, then message.complete error, then the typed error naming the line', async () => {
    const wire: WireBody<Chunk> = {
      body: body(['data: {"text":"a"}\n\ndata: {"text":"b"}\n\ndata: {"text": nope\n\n']).stream,
      framing: 'sse',
      parse: sseParse,
    };
    const { events, error } = await collectStream(stream(wire));
    expect(texts(events)).toEqual(['a', 'b']);
    expect(events.at(-1)).toMatchObject({ type: 'message.complete', stop_reason: 'error' });
    expect(error).toBeInstanceOf(MalformedStreamError);
    expect((error as Error).message).toMatch(
      /line 6 ends a "message" event whose data is not valid JSON/,
    );
  });

  it('bytes that are not UTF-8 are a MalformedStreamError', async () => {
    const wire: WireBody<Chunk> = {
      body: body(['data: {"text":"a"}\n\n', new Uint8Array([0x64, 0x61, 0xff, 0x0a])]).stream,
      framing: 'sse',
      parse: sseParse,
    };
    const { events, error } = await collectStream(stream(wire));
    expect(texts(events)).toEqual(['a']);
    expect(error).toBeInstanceOf(MalformedStreamError);
    expect((error as Error).message).toMatch(/not valid UTF-8/);
  });

  it('NDJSON: lines parsed with their line number, a last line without a newline read too', async () => {
    const wire: WireBody<Chunk> = {
      body: body(['{"text":"a"}\n\n{"te', 'xt":"b"}\r\n{"done":true}']).stream,
      framing: 'ndjson',
      parse: (data, _event, line) => parseNdjsonLine(data, line) as Chunk,
    };
    const { events, error } = await collectStream(stream(wire));
    expect(error).toBeUndefined();
    expect(texts(events)).toEqual(['a', 'b']);
    expect(events.at(-1)).toMatchObject({ type: 'message.complete', stop_reason: 'end_turn' });
    const bad: WireBody<Chunk> = {
      body: body(['{"text":"a"}\n{oops}\n']).stream,
      framing: 'ndjson',
      parse: (data, _event, line) => parseNdjsonLine(data, line) as Chunk,
    };
    const failed = await collectStream(stream(bad));
    expect(failed.error).toBeInstanceOf(MalformedStreamError);
    expect((failed.error as Error).message).toMatch(/line 2 is not valid JSON/);
  });

  it('cancellation while the body is silent ends the stream as cancelled and releases the body', async () => {
    const { stream: bodyStream, state } = body(['data: {"text":"a"}\n\n'], { stall: true });
    const controller = new AbortController();
    const events: StreamEvent[] = [];
    for await (const event of stream(
      { body: bodyStream, framing: 'sse', parse: sseParse },
      {},
      controller.signal,
    )) {
      events.push(event);
      if (event.type === 'text.delta') controller.abort();
    }
    expect(events.at(-1)).toMatchObject({ type: 'message.complete', stop_reason: 'cancelled' });
    expect(checkStreamInvariants(events)).toEqual([]);
    expect(state.cancelled).toBe(true);
  });

  it('the idle deadline holds between reads', async () => {
    const { stream: bodyStream, state } = body(['data: {"text":"a"}\n\n'], { stall: true });
    const { events, error } = await collectStream(
      stream({ body: bodyStream, framing: 'sse', parse: sseParse }, { idleTimeoutMs: 50 }),
    );
    expect(texts(events)).toEqual(['a']);
    expect(events.at(-1)).toMatchObject({ type: 'message.complete', stop_reason: 'error' });
    expect(error).toBeInstanceOf(NetworkError);
    expect((error as Error).message).toMatch(/idle_timeout_seconds/);
    expect(state.cancelled).toBe(true);
  });

  it('a consumer that stops early releases the body', async () => {
    const { stream: bodyStream, state } = body(['data: {"text":"a"}\n\ndata: {"text":"b"}\n\n'], {
      stall: true,
    });
    for await (const event of stream({ body: bodyStream, framing: 'sse', parse: sseParse })) {
      if (event.type === 'text.delta') break;
    }
    expect(state.cancelled).toBe(true);
  });

  it('a body that ends before a record is a network error before the first event, retried', async () => {
    let opens = 0;
    const events: StreamEvent[] = [];
    const run = runStreamCall(
      setup({ maxRetries: 1 }),
      request(),
      {},
      {
        open: async () => {
          opens++;
          return opens === 1
            ? { body: body([': nothing\n\n']).stream, framing: 'sse' as const, parse: sseParse }
            : { body: body([sse]).stream, framing: 'sse' as const, parse: sseParse };
        },
        onChunk,
      },
    );
    for await (const event of run) events.push(event);
    expect(opens).toBe(2);
    expect(texts(events)).toEqual(['héllo ', 'wörld']);
  });

  it('an already-aborted signal sends nothing', async () => {
    let opened = false;
    const controller = new AbortController();
    controller.abort();
    const run = runStreamCall(
      setup(),
      request(),
      { signal: controller.signal },
      {
        open: async () => {
          opened = true;
          return { body: body([sse]).stream, framing: 'sse' as const, parse: sseParse };
        },
        onChunk,
      },
    );
    await expect(collectStream(run).then((r) => r.error)).resolves.toBeInstanceOf(CancelledError);
    expect(opened).toBe(false);
  });
});

import { describe, expect, it } from 'vitest';
import {
  type AdapterCallSetup,
  CancelledError,
  checkStreamInvariants,
  collectStream,
  InflightCalls,
  InvalidRequestError,
  NetworkError,
  runCompleteCall,
  runStreamCall,
  ServerError,
  type StreamBuilder,
  type StreamEvent,
} from './exports.js';
import { msg } from './helpers.js';

type Chunk = { text?: string; done?: boolean; fail?: boolean };

const setup = (inflight = new InflightCalls()): AdapterCallSetup => ({
  provider: 'fake',
  inflight,
  maxRetries: 1,
  retry: { baseDelayMs: 1, maxDelayMs: 1 },
  toAdapterError: (error) =>
    error instanceof ServerError ? error : new NetworkError(String(error)),
});

const request = () => ({
  request_id: `req_${Math.random().toString(36).slice(2)}`,
  model: 'fake:model',
  max_output_tokens: 10,
  messages: [msg('user', [{ type: 'text', text: 'hi' }])],
});

/** A provider stream that yields chunks, optionally waiting for a signal before each. */
function chunks(list: Chunk[], gate?: Promise<void>, signal?: AbortSignal): AsyncIterable<Chunk> {
  return {
    async *[Symbol.asyncIterator]() {
      for (const [i, chunk] of list.entries()) {
        if (i > 0 && gate) {
          await Promise.race([
            gate,
            new Promise((_, reject) =>
              signal?.addEventListener('abort', () => reject(new Error('aborted')), { once: true }),
            ),
          ]);
        }
        if (chunk.fail) throw new Error('socket hang up');
        yield chunk;
      }
    },
  };
}

const onChunk = (chunk: Chunk, builder: StreamBuilder): StreamEvent[] =>
  chunk.done ? builder.complete('end_turn') : builder.text(0, chunk.text ?? '');

describe('runStreamCall', () => {
  it('produces message.start on the first chunk and completes', async () => {
    const { events, error } = await collectStream(
      runStreamCall(
        setup(),
        request(),
        {},
        { open: async () => chunks([{ text: 'a' }, { text: 'b' }, { done: true }]), onChunk },
      ),
    );
    expect(error).toBeUndefined();
    expect(events.map((e) => e.type)).toEqual([
      'message.start',
      'text.delta',
      'text.delta',
      'message.complete',
    ]);
    expect(checkStreamInvariants(events)).toEqual([]);
  });

  it('retries opening, not the events', async () => {
    let opens = 0;
    const { events } = await collectStream(
      runStreamCall(
        setup(),
        request(),
        {},
        {
          open: async () => {
            opens++;
            if (opens === 1) throw new ServerError('busy');
            return chunks([{ text: 'a' }, { done: true }]);
          },
          onChunk,
        },
      ),
    );
    expect(opens).toBe(2);
    expect(events.at(-1)).toMatchObject({ type: 'message.complete', stop_reason: 'end_turn' });
  });

  it('throws before any event when opening fails for good', async () => {
    const { events, error } = await collectStream(
      runStreamCall(
        setup(),
        request(),
        {},
        { open: async () => Promise.reject(new ServerError('down')), onChunk },
      ),
    );
    expect(events).toEqual([]);
    expect(error).toBeInstanceOf(ServerError);
  });

  it('yields message.complete with stop_reason error and the partial text, then throws', async () => {
    const { events, error } = await collectStream(
      runStreamCall(
        setup(),
        request(),
        {},
        { open: async () => chunks([{ text: 'par' }, { fail: true }]), onChunk },
      ),
    );
    expect(events.at(-1)).toMatchObject({
      type: 'message.complete',
      stop_reason: 'error',
      final_content: [{ type: 'text', text: 'par' }],
    });
    expect(error).toBeInstanceOf(NetworkError);
    expect(checkStreamInvariants(events)).toEqual([]);
  });

  it('treats a stream that ends without completion as an error', async () => {
    const { events, error } = await collectStream(
      runStreamCall(setup(), request(), {}, { open: async () => chunks([{ text: 'x' }]), onChunk }),
    );
    expect(events.at(-1)).toMatchObject({ stop_reason: 'error' });
    expect((error as Error).message).toContain('ended before the message was complete');
  });

  it('ends with stop_reason cancelled when cancel(request_id) is called mid-stream', async () => {
    const inflight = new InflightCalls();
    const req = request();
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const seen: StreamEvent[] = [];
    const stream = runStreamCall(
      setup(inflight),
      req,
      {},
      {
        open: async ({ signal }) =>
          chunks([{ text: 'a' }, { text: 'never' }, { done: true }], gate, signal),
        onChunk,
      },
    );
    for await (const event of stream) {
      seen.push(event);
      if (event.type === 'text.delta') expect(inflight.cancel(req.request_id)).toBe(true);
    }
    release();
    expect(seen.at(-1)).toMatchObject({
      type: 'message.complete',
      stop_reason: 'cancelled',
      final_content: [{ type: 'text', text: 'a' }],
    });
    expect(inflight.size).toBe(0);
  });

  it('refuses an already-aborted signal without opening', async () => {
    let opened = false;
    const { events, error } = await collectStream(
      runStreamCall(
        setup(),
        request(),
        { signal: AbortSignal.abort() },
        {
          open: async () => {
            opened = true;
            return chunks([]);
          },
          onChunk,
        },
      ),
    );
    expect(events).toEqual([]);
    expect(error).toBeInstanceOf(CancelledError);
    expect(opened).toBe(false);
  });

  it('refuses a malformed request before opening', async () => {
    const { error } = await collectStream(
      runStreamCall(
        setup(),
        { ...request(), max_output_tokens: -1 },
        {},
        { open: async () => chunks([]), onChunk },
      ),
    );
    expect(error).toBeInstanceOf(InvalidRequestError);
  });
});

describe('runCompleteCall', () => {
  it('retries transient failures and reports attempts', async () => {
    let calls = 0;
    const attempts: string[] = [];
    const res = await runCompleteCall(
      setup(),
      request(),
      { onAttempt: (e) => attempts.push(e.type) },
      async ({ request: r }) => {
        calls++;
        if (calls === 1) throw new ServerError('busy');
        return {
          request_id: r.request_id,
          model: r.model,
          provider: 'fake',
          content: [],
          stop_reason: 'end_turn',
          usage: {
            input_tokens: 1,
            output_tokens: 1,
            cached_input_tokens: 0,
            cache_creation_input_tokens: 0,
          },
          latency_ms: 1,
        };
      },
    );
    expect(res.stop_reason).toBe('end_turn');
    expect(attempts).toEqual([
      'attempt.start',
      'attempt.failed',
      'attempt.start',
      'attempt.succeeded',
    ]);
  });

  it('turns a cancellation into CancelledError', async () => {
    const inflight = new InflightCalls();
    const req = request();
    const pending = runCompleteCall(
      setup(inflight),
      req,
      {},
      ({ signal }) =>
        new Promise((_, reject) =>
          signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true }),
        ),
    );
    inflight.cancel(req.request_id);
    await expect(pending).rejects.toBeInstanceOf(CancelledError);
  });
});

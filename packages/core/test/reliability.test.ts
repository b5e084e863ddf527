import { type AddressInfo, createServer } from 'node:net';
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import {
  type AdapterCallSetup,
  AttemptDeadline,
  CancelledError,
  type CanonicalResponse,
  checkStreamInvariants,
  classifyTransportFailure,
  createMemoryLogger,
  InflightCalls,
  InvalidRequestError,
  NetworkError,
  networkErrorCode,
  normalizeRequest,
  prepareHistory,
  REDACTED,
  redactError,
  redactHeaders,
  runCompleteCall,
  runStreamCall,
  ServerError,
  type StreamBuilder,
  type StreamEvent,
} from './exports.js';
import { msg } from './helpers.js';

const setup = (limits: { timeoutMs?: number; idleTimeoutMs?: number } = {}): AdapterCallSetup => ({
  provider: 'fake',
  inflight: new InflightCalls(),
  maxRetries: 1,
  retry: { baseDelayMs: 1, maxDelayMs: 1 },
  toAdapterError: (error) =>
    error instanceof NetworkError || error instanceof ServerError
      ? error
      : new ServerError(String(error)),
  ...limits,
});

const request = () => ({
  request_id: `req_${Math.random().toString(36).slice(2)}`,
  model: 'fake:model',
  max_output_tokens: 10,
  messages: [msg('user', [{ type: 'text', text: 'hi' }])],
});

const response = (request_id: string): CanonicalResponse => ({
  request_id,
  model: 'fake:model',
  provider: 'fake',
  content: [{ type: 'text', text: 'ok' }],
  stop_reason: 'end_turn',
  usage: {
    input_tokens: 1,
    output_tokens: 1,
    cached_input_tokens: 0,
    cache_creation_input_tokens: 0,
  },
  latency_ms: 1,
});

/** A transport that never answers and ignores its abort signal (the worst case). */
const never = <T>(): Promise<T> => new Promise<T>(() => {});

type Chunk = { text?: string; done?: boolean };
const onChunk = (chunk: Chunk, builder: StreamBuilder): StreamEvent[] =>
  chunk.done ? builder.complete('end_turn') : builder.text(0, chunk.text ?? '');

/** A provider stream yielding `first`, then hanging forever (ignoring aborts). */
function stallingAfter(first: Chunk[]): AsyncIterable<Chunk> {
  return {
    async *[Symbol.asyncIterator]() {
      for (const chunk of first) yield chunk;
      await never();
    },
  };
}

async function drain(stream: AsyncIterable<StreamEvent>) {
  const events: StreamEvent[] = [];
  try {
    for await (const event of stream) events.push(event);
  } catch (error) {
    return { events, error };
  }
  return { events, error: undefined };
}

describe('call deadlines', () => {
  it('ends a complete() whose transport never answers once timeout passes, as network, retried', async () => {
    let attempts = 0;
    const signals: AbortSignal[] = [];
    const error = await runCompleteCall(setup({ timeoutMs: 30 }), request(), {}, ({ signal }) => {
      attempts++;
      signals.push(signal);
      return never();
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NetworkError);
    expect((error as NetworkError).message).toMatch(/timeout_seconds/);
    expect((error as NetworkError).attempts).toBe(2);
    expect(attempts).toBe(2);
    expect(
      signals.every((s) => s.aborted),
      'each attempt signal aborts its transport',
    ).toBe(true);
  });

  it('lets a call that answers in time succeed, and clears its timers', async () => {
    const req = request();
    const res = await runCompleteCall(setup({ timeoutMs: 5_000 }), req, {}, async () =>
      response(req.request_id),
    );
    expect(res.stop_reason).toBe('end_turn');
  });

  it('fails a stream that never sends its first chunk as network, with no events, retried', async () => {
    let opened = 0;
    const { events, error } = await drain(
      runStreamCall(
        setup({ timeoutMs: 30, idleTimeoutMs: 10_000 }),
        request(),
        {},
        {
          open: async () => {
            opened++;
            return stallingAfter([]);
          },
          onChunk,
        },
      ),
    );
    expect(events).toEqual([]);
    expect(error).toBeInstanceOf(NetworkError);
    expect(opened).toBe(2);
  });

  it('ends a stream that goes silent after its first chunk with stop_reason error, then throws network', async () => {
    let opened = 0;
    const { events, error } = await drain(
      runStreamCall(
        setup({ timeoutMs: 10_000, idleTimeoutMs: 30 }),
        request(),
        {},
        {
          open: async () => {
            opened++;
            return stallingAfter([{ text: 'Hel' }]);
          },
          onChunk,
        },
      ),
    );
    expect(checkStreamInvariants(events)).toEqual([]);
    const last = events.at(-1);
    expect(last?.type).toBe('message.complete');
    expect(last?.type === 'message.complete' && last.stop_reason).toBe('error');
    expect(error).toBeInstanceOf(NetworkError);
    expect((error as NetworkError).message).toMatch(/idle_timeout_seconds/);
    expect(opened, 'events were yielded: no retry').toBe(1);
  });

  it('does not end a stream whose chunks keep coming, however long it runs past the idle limit', async () => {
    const { events, error } = await drain(
      runStreamCall(
        // chunks 25 ms apart for 400 ms against a 250 ms idle limit: the margin absorbs a
        // loaded machine's late timers, the total still runs well past the limit
        setup({ timeoutMs: 10_000, idleTimeoutMs: 250 }),
        request(),
        {},
        {
          open: async () => ({
            async *[Symbol.asyncIterator]() {
              for (let i = 0; i < 16; i++) {
                await new Promise((r) => setTimeout(r, 25));
                yield { text: `${i}` };
              }
              yield { done: true };
            },
          }),
          onChunk,
        },
      ),
    );
    expect(error).toBeUndefined();
    const last = events.at(-1);
    expect(last?.type === 'message.complete' && last.stop_reason).toBe('end_turn');
  });

  it('reports a cancellation during the wait as cancelled, not as a timeout', async () => {
    const controller = new AbortController();
    const stream = runStreamCall(
      setup({ timeoutMs: 10_000, idleTimeoutMs: 10_000 }),
      request(),
      { signal: controller.signal },
      { open: async () => stallingAfter([{ text: 'a' }]), onChunk },
    );
    setTimeout(() => controller.abort(), 20);
    const { events, error } = await drain(stream);
    expect(error).toBeUndefined();
    const last = events.at(-1);
    expect(last?.type === 'message.complete' && last.stop_reason).toBe('cancelled');
  });

  it('AttemptDeadline re-arms the idle timer for the remainder instead of one timer per chunk', async () => {
    let now = 0;
    const deadline = new AttemptDeadline(
      new AbortController().signal,
      { idleTimeoutMs: 50 },
      () => now,
    );
    deadline.armIdle();
    now = 40;
    deadline.touch();
    await new Promise((r) => setTimeout(r, 70));
    expect(
      deadline.expired,
      'the timer fired at 50 ms but the last chunk was 10 ms before',
    ).toBeNull();
    now = 200;
    await new Promise((r) => setTimeout(r, 70));
    expect(deadline.expired).toBe('idle');
    expect(deadline.signal.aborted).toBe(true);
    deadline.clear();
  });
});

describe('causes the runtime keeps', () => {
  it('never hold a secret the transport error quoted, after a timeout or a cancellation', async () => {
    const secret = 'tenant-secret-value-0042';
    const leaky = (signal: AbortSignal) =>
      new Promise<never>((_, reject) =>
        signal.addEventListener('abort', () => reject(new Error(`aborted call for ${secret}`)), {
          once: true,
        }),
      );
    const timedOut = await runCompleteCall(
      { ...setup({ timeoutMs: 20 }), maxRetries: 0, secrets: [secret] },
      request(),
      {},
      ({ signal }) => leaky(signal),
    ).catch((e: unknown) => e);
    expect(timedOut).toBeInstanceOf(NetworkError);
    const controller = new AbortController();
    const pending = runCompleteCall(
      { ...setup(), secrets: [secret] },
      request(),
      { signal: controller.signal },
      ({ signal }) => leaky(signal),
    ).catch((e: unknown) => e);
    setTimeout(() => controller.abort(), 10);
    const cancelled = await pending;
    expect(inspect(timedOut, { depth: 10 })).not.toContain(secret);
    expect(cancelled).toBeInstanceOf(CancelledError);
    expect(inspect(cancelled, { depth: 10 }), 'without the secret').not.toContain(secret);
  });
});

describe('classifyTransportFailure', () => {
  it('reads error codes on the cause chain, as Node fetch reports a reset mid-body', () => {
    const reset = new TypeError('terminated', {
      cause: Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' }),
    });
    expect(classifyTransportFailure(reset)).toMatchObject({
      error_class: 'network',
      code: 'UND_ERR_SOCKET',
    });
    const refused = new TypeError('fetch failed', {
      cause: new AggregateError([Object.assign(new Error('x'), { code: 'ECONNREFUSED' })]),
    });
    expect(networkErrorCode(refused)).toBe('ECONNREFUSED');
  });

  it('takes a Connection: close reply cut short (HPE_INVALID_EOF_STATE from a real socket) for network', async () => {
    // a real server and Node's fetch: the chunked body stops before its last chunk, then FIN
    const server = createServer((socket) => {
      socket.once('data', () => {
        socket.write(
          'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n' +
            'Transfer-Encoding: chunked\r\n\r\n5\r\n{"a":\r\n',
        );
        setTimeout(() => socket.end(), 20);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    try {
      const failure = await fetch(`http://127.0.0.1:${port}/`)
        .then((res) => res.text())
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      expect(networkErrorCode(failure)).toBe('HPE_INVALID_EOF_STATE');
      expect(classifyTransportFailure(failure)).toMatchObject({
        error_class: 'network',
        description: 'the connection closed before the reply was complete',
      });
    } finally {
      server.close();
    }
  });

  it('does not take a parser saying "Unterminated string" for a broken connection', () => {
    let parseError: unknown;
    try {
      JSON.parse('{"text": "unfinis');
    } catch (error) {
      parseError = error;
    }
    expect(String(parseError)).toMatch(/Unterminated string/);
    expect(classifyTransportFailure(parseError)).toMatchObject({ error_class: 'server_error' });
    expect(classifyTransportFailure(new Error('the socket terminated'))).toBeUndefined();
  });
});

describe('redactError', () => {
  const key = 'sk-ant-api03-SECRETSECRETSECRET0123456789';

  it('removes an echoed key from the message, body, headers and cause chain, keeping instanceof', () => {
    class SdkError extends Error {
      status = 401;
      error = { type: 'error', error: { message: `invalid x-api-key: ${key}` } };
      headers = { 'x-api-key': key, 'request-id': 'req_1' };
    }
    const original = new SdkError(`401 invalid x-api-key: ${key}`, {
      cause: new Error(`upstream said ${key}`),
    });
    const copy = redactError(original, [key]);
    expect(copy).toBeInstanceOf(SdkError);
    expect(copy.status).toBe(401);
    for (const shown of [inspect(copy, { depth: 10 }), JSON.stringify(copy), String(copy.stack)]) {
      expect(shown).not.toContain('SECRETSECRET');
    }
    expect(copy.headers).toEqual({ 'request-id': 'req_1' });
    expect(original.message, 'the original is untouched').toContain(key);
  });

  it('keeps cycles and replaces opaque objects by their kind', () => {
    const error = new Error('boom') as Error & { self?: unknown; socket?: unknown };
    error.self = error;
    error.socket = new (class Socket {})();
    const copy = redactError(error) as typeof error;
    expect(copy.self).toBe(copy);
    expect(copy.socket).toBe('[Socket]');
  });
});

describe('redactHeaders', () => {
  it('redacts custom credential headers by name, by known secret and by shape', () => {
    const out = redactHeaders(
      {
        'x-goog-api-key': 'AIzaSyA-abcdefghijklmnopqrstuvwxyz012345',
        'x-custom-auth': 'plain-secret-value',
        'x-tenant': 'tenant-passphrase-42',
        'x-trace': 'Zq8mN2pL4vR7tY1wX9cB3dF6',
        'content-type': 'application/json',
        'x-request-id': '0123456789abcdef0123456789abcdef',
      },
      ['tenant-passphrase-42'],
    );
    expect(out).toEqual({
      'x-goog-api-key': REDACTED,
      'x-custom-auth': REDACTED,
      'x-tenant': REDACTED,
      'x-trace': REDACTED,
      'content-type': 'application/json',
      'x-request-id': '0123456789abcdef0123456789abcdef',
    });
  });
});

describe('request checks before sending', () => {
  it('refuses a model id that is not provider:name as invalid_request', () => {
    const error = (() => {
      try {
        normalizeRequest({ ...request(), model: 'claude-sonnet' });
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(InvalidRequestError);
    expect((error as InvalidRequestError).error_class).toBe('invalid_request');
    expect((error as Error).message).toMatch(/model/);
  });

  it('refuses a url image that is not http(s) and base64 data that is not base64, naming the path', () => {
    const bad = (source: { kind: 'url' | 'base64'; data: string }) => ({
      ...request(),
      messages: [
        msg('user', [
          { type: 'text', text: 'look' },
          { type: 'image', media_type: 'image/png', source },
        ]),
      ],
    });
    expect(() => normalizeRequest(bad({ kind: 'url', data: 'javascript:alert(1)' }))).toThrow(
      /messages\[0\]\.content\[1\].*not an http\(s\) URL/,
    );
    expect(() => normalizeRequest(bad({ kind: 'base64', data: 'not base64!!' }))).toThrow(
      /messages\[0\]\.content\[1\].*not valid base64/,
    );
    expect(() =>
      normalizeRequest(bad({ kind: 'base64', data: 'data:image/png;base64,AAAA' })),
    ).toThrow(/without a "data:/);
  });

  const target = {
    adapter: 'fake',
    model: 'fake:model',
    capabilities: {
      supports_images: false,
      supports_thinking: false,
      supports_tools: true,
      supports_system_prompt: true,
      supports_structured_output: false,
      supports_streaming: true,
      supports_streaming_tool_calls: true,
      supports_parallel_tool_calls: true,
      supports_prompt_caching: false,
      max_context_tokens: 1000,
      max_output_tokens: 100,
      accepted_image_media_types: [],
    },
  };

  it('refuses a history that is empty after projection instead of sending messages: []', () => {
    const onlySystem = [msg('system', [{ type: 'text', text: 'be brief' }])];
    expect(() => prepareHistory(onlySystem, target)).toThrow(InvalidRequestError);
    const imageOnly = [
      msg('user', [
        {
          type: 'image',
          media_type: 'image/png',
          source: { kind: 'base64', data: 'iVBORw0KGgo=' },
        },
      ]),
    ];
    expect(() => prepareHistory(imageOnly, target)).toThrow(
      /nothing to send to fake:model.*dropped: image/,
    );
  });

  it('names session, message, block type, adapter and reason on every repair WARN', () => {
    const logger = createMemoryLogger();
    const orphan = msg('tool', [
      {
        type: 'tool_result',
        tool_use_id: 'tu_missing',
        content: [{ type: 'text', text: 'x' }],
        is_error: false,
      },
    ]);
    prepareHistory([msg('user', [{ type: 'text', text: 'q' }]), orphan], target, { logger });
    const warn = logger.warnings().find((w) => w.obj.event === 'history_repaired');
    expect(warn?.obj).toMatchObject({
      adapter: 'fake',
      session_id: orphan.session_id,
      message_id: orphan.id,
      block_type: 'tool_result',
      reason: expect.stringContaining('tu_missing'),
    });
  });
});

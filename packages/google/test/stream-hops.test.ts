/**
 * The parts of the Gemini stream reader that end-to-end streams rarely reach: where one hop's
 * body ends (unfinished events, half a UTF-8 character), continuation turned off, and the
 * fetch the SDK is handed.
 */

import { type LoopbackServer, startLoopbackServer } from '@yourtool/conformance';
import { createMessage, newRequestId, newSessionId } from '@yourtool/core';
import { SseFramer } from '@yourtool/core/adapter';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { GeminiResponseLike } from '../src/codec/response.js';
import { GoogleAdapter } from '../src/index.js';
import { GeminiContinuation } from '../src/stream/continuation.js';
import { HopTail } from '../src/stream/hop-tail.js';

const MARK = '\u0000mark';
const bytes = (text: string) => new TextEncoder().encode(text);

/** Feeds `reads` then the tail's injection then `next` through a fatal decoder and core's framer. */
function framed(reads: Uint8Array[], next: string): string[] {
  const tail = new HopTail();
  const decoder = new TextDecoder('utf-8', { fatal: true });
  const framer = new SseFramer();
  const events: string[] = [];
  const feed = (chunk: Uint8Array) =>
    framer.feed(decoder.decode(chunk, { stream: true }), (data) => events.push(data));
  for (const read of reads) {
    tail.note(read);
    feed(read);
  }
  feed(tail.injection(MARK));
  feed(bytes(next));
  return events;
}

describe('HopTail', () => {
  const incomplete = (...reads: string[]) => {
    const tail = new HopTail();
    for (const read of reads) tail.note(bytes(read));
    return tail.incomplete;
  };

  it('finds an unfinished last event as the SDK did (\\n\\n, \\r\\r, \\r\\n\\r\\n end one)', () => {
    expect(incomplete('data: {}\n\n')).toBe(false);
    expect(incomplete('data: {}\r\n', '\r\n')).toBe(false);
    expect(incomplete('data: {}\r', '\r  ')).toBe(false);
    expect(incomplete('', ' \n')).toBe(false);
    expect(incomplete('data: {}\n')).toBe(true);
    expect(incomplete('data: {}\n\r\n')).toBe(true);
    expect(incomplete('data: {}\n\n', 'data: {')).toBe(true);
    expect(incomplete('data: {}\n \n')).toBe(true);
  });

  const next = 'data: {"next":1}\n\n';
  it('after a clean end, the injected event is the only one before the next body', () => {
    expect(framed([bytes('data: {"a":1}\r\n\r\n')], next)).toEqual(['{"a":1}', MARK, '{"next":1}']);
    expect(framed([bytes('data: {"a":1}\r\r')], next)).toEqual(['{"a":1}', MARK, '{"next":1}']);
    expect(framed([], next)).toEqual([MARK, '{"next":1}']);
  });

  it('whatever the last body left half-read ends inside the injected event', () => {
    expect(framed([bytes('data: {"a":1}\n\ndata: {"b"')], next)).toEqual([
      '{"a":1}',
      `{"b"\n${MARK}`,
      '{"next":1}',
    ]);
    expect(framed([bytes('data: {"a":1}\ndata: 2\n')], next)).toEqual([
      `{"a":1}\n2\n${MARK}`,
      '{"next":1}',
    ]);
    expect(framed([bytes('event: x\ndat')], next)).toEqual([MARK, '{"next":1}']);
    expect(framed([bytes('data: {"a":1}\r')], next)).toEqual([`{"a":1}\n${MARK}`, '{"next":1}']);
  });

  it('completes half a UTF-8 character so a fatal decoder reads on', () => {
    for (const character of ['é', '€', 'ࠀ', '𐀀', '😀']) {
      const whole = bytes(`data: "${character}`);
      for (let cut = 1; cut < bytes(character).length; cut++) {
        const read = whole.subarray(0, whole.length - bytes(character).length + cut);
        const events = framed([read], next);
        expect(events.at(-1)).toBe('{"next":1}');
        expect(events.at(-2)?.endsWith(MARK)).toBe(true);
      }
    }
  });
});

describe('GeminiContinuation', () => {
  const checkpoint = (): GeminiResponseLike => ({
    candidates: [
      {
        content: { parts: [{ text: 'a' }] },
        finishReason: 'CONTINUATION' as never,
        continuationToken: 'tok-1',
      },
    ],
  });

  it('resumes at a CONTINUATION finish, clearing it so the message does not end there', () => {
    const state = new GeminiContinuation(true, new AbortController().signal);
    state.startHop();
    const chunk = checkpoint();
    state.observe(chunk);
    expect(chunk.candidates?.[0]?.finishReason).toBeUndefined();
    expect(state.endHop()).toBe(true);
    expect(state.startHop()).toBe('tok-1');
  });

  it('with automaticContinuation off, a CONTINUATION finish is the end', () => {
    const state = new GeminiContinuation(false, new AbortController().signal);
    state.startHop();
    const chunk = checkpoint();
    state.observe(chunk);
    expect(chunk.candidates?.[0]?.finishReason).toBe('CONTINUATION');
    expect(state.endHop()).toBe(false);
  });

  it('an abort fails the hop at once, even with a checkpoint to resume from', () => {
    const controller = new AbortController();
    const state = new GeminiContinuation(true, controller.signal);
    state.startHop();
    state.observe(checkpoint());
    controller.abort();
    const error = new Error('aborted');
    expect(() => state.endHop({ error })).toThrow(error);
  });
});

describe('the fetch the SDK is handed', () => {
  let server: LoopbackServer;
  beforeAll(async () => {
    server = await startLoopbackServer();
  });
  afterAll(() => server.close());
  afterEach(() => vi.unstubAllGlobals());

  const reply = {
    type: 'stream' as const,
    contentType: 'text/event-stream' as const,
    chunks: [
      `data: ${JSON.stringify({ candidates: [{ content: { parts: [{ text: 'hi' }] }, finishReason: 'STOP' }], usageMetadata: { promptTokenCount: 1, candidatesTokenCount: 1 } })}\n\n`,
    ],
  };
  const streamOnce = async (adapter: GoogleAdapter) => {
    server.reset();
    server.enqueue(reply);
    const messages = [
      createMessage({
        session_id: newSessionId(),
        role: 'user',
        content: [{ type: 'text', text: 'hi' }],
      }),
    ];
    const request = {
      request_id: newRequestId(),
      model: 'google:gemini-2.5-flash',
      max_output_tokens: 64,
      messages,
    };
    const types: string[] = [];
    for await (const event of adapter.stream(request)) types.push(event.type);
    return types;
  };

  it('without a runtime fetch: the global fetch without undici timeouts, as the SDK sent it', async () => {
    const real = globalThis.fetch;
    const seen: RequestInit[] = [];
    vi.stubGlobal('fetch', (...[input, init]: Parameters<typeof fetch>) => {
      seen.push(init ?? {});
      return real(input, init);
    });
    const types = await streamOnce(new GoogleAdapter({ api_key: 'k', base_url: server.url }));
    expect(types.at(-1)).toBe('message.complete');
    const dispatcher = (seen[0] as { dispatcher?: { dispatch?: unknown } }).dispatcher;
    expect(typeof dispatcher?.dispatch).toBe('function');
  });

  it('with a runtime fetch: that fetch, given no dispatcher (the SDK adds none to it)', async () => {
    const seen: RequestInit[] = [];
    const fetch: typeof globalThis.fetch = (input, init) => {
      seen.push(init ?? {});
      return globalThis.fetch(input, init);
    };
    const adapter = new GoogleAdapter({ api_key: 'k', base_url: server.url }, { fetch });
    expect((await streamOnce(adapter)).at(-1)).toBe('message.complete');
    expect(seen).toHaveLength(1);
    expect('dispatcher' in (seen[0] as object)).toBe(false);
  });
});

import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import {
  MalformedStreamError,
  parseSseJson,
  readNdjson,
  readSseEvents,
  type SseEvent,
} from './exports.js';

const encoder = new TextEncoder();

/** A body that delivers the given pieces (strings or raw bytes) one read at a time. */
function body(...pieces: Array<string | Uint8Array>): ReadableStream<Uint8Array> {
  let i = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      const piece = pieces[i++];
      if (piece === undefined) controller.close();
      else controller.enqueue(typeof piece === 'string' ? encoder.encode(piece) : piece);
    },
  });
}

async function collect<T>(source: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of source) out.push(item);
  return out;
}

describe('readSseEvents', () => {
  it('assembles events across chunk boundaries, with every line ending', async () => {
    const events = await collect(
      readSseEvents(
        body(
          '\uFEFF: keep-alive\nevent: message_start\nda',
          'ta: {"a":1}\r\n\r\nid: 7\r',
          '\ndata: first\ndata:second\n\n',
          'event: ping\nretry: 1500\ndata\n\n',
          'data: no blank line at the end',
        ),
      ),
    );
    expect(events).toEqual<SseEvent[]>([
      { event: 'message_start', data: '{"a":1}' },
      { event: 'message', data: 'first\nsecond', id: '7' },
      { event: 'ping', data: '', id: '7', retry: 1500 },
    ]);
    expect(parseSseJson(events[0] as SseEvent)).toEqual({ a: 1 });
  });

  it('gives the same events however a body with \\n, \\r\\n and \\r line ends is split', async () => {
    const text =
      'event: a\r\ndata: 1\r\n\r\nevent: b\ndata: 2\n\nevent: c\rdata: 3\r\rdata: x\r\ndata: y\r\n\r\n: c\r\n\r\n';
    const whole = await collect(readSseEvents(body(text)));
    expect(whole.map((e) => [e.event, e.data])).toEqual([
      ['a', '1'],
      ['b', '2'],
      ['c', '3'],
      ['message', 'x\ny'],
    ]);
    for (let size = 1; size <= 6; size++) {
      const pieces: string[] = [];
      for (let i = 0; i < text.length; i += size) pieces.push(text.slice(i, i + size));
      expect(await collect(readSseEvents(body(...pieces)))).toEqual(whole);
    }
  });

  it('skips events without data and ignores unknown fields', async () => {
    const events = await collect(readSseEvents(body('event: x\n\nfoo: bar\ndata: y\n\n')));
    expect(events).toEqual([{ event: 'message', data: 'y' }]);
  });

  it('refuses an event longer than its bound, naming the line', async () => {
    const error = await collect(
      readSseEvents(body('data: ok\n\n', 'data: ', 'x'.repeat(50), 'x'.repeat(50), '\n\n'), {
        maxEventChars: 64,
      }),
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MalformedStreamError);
    expect((error as MalformedStreamError).error_class).toBe('server_error');
    expect((error as MalformedStreamError).line).toBe(3);
    expect((error as Error).message).toMatch(/line 3 makes an event longer than 64/);
  });

  it('refuses bytes that are not UTF-8', async () => {
    const error = await collect(
      readSseEvents(body('data: a\n', new Uint8Array([0xff, 0xfe]))),
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MalformedStreamError);
    expect((error as Error).message).toContain('not valid UTF-8');
  });

  it('parseSseJson names the event whose data is not JSON', () => {
    expect(() => parseSseJson({ event: 'content_block_delta', data: '{"cut' })).toThrow(
      /"content_block_delta" event is not valid JSON/,
    );
  });

  it('an aborted signal cancels the body and throws its reason', async () => {
    let cancelled = false;
    const stalled = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(encoder.encode('data: one\n\n'));
      },
      cancel() {
        cancelled = true;
      },
    });
    const controller = new AbortController();
    const seen: string[] = [];
    const run = (async () => {
      for await (const event of readSseEvents(stalled, { signal: controller.signal })) {
        seen.push(event.data);
        controller.abort(new Error('stop here'));
      }
    })();
    await expect(run).rejects.toThrow('stop here');
    expect(seen).toEqual(['one']);
    expect(cancelled).toBe(true);
  });

  it('an already-aborted signal reads nothing', async () => {
    await expect(
      collect(readSseEvents(body('data: x\n\n'), { signal: AbortSignal.abort() })),
    ).rejects.toMatchObject({ name: 'AbortError' });
  });

  it('reads a real fetch body, and breaking early closes the connection', async () => {
    let closed = false;
    const server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: {"n":1}\n\n');
      res.on('close', () => {
        closed = true;
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const response = await fetch(`http://127.0.0.1:${port}/`);
      for await (const event of readSseEvents(response.body as ReadableStream<Uint8Array>)) {
        expect(parseSseJson(event)).toEqual({ n: 1 });
        break;
      }
      await expect.poll(() => closed, { timeout: 2000 }).toBe(true);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('readNdjson', () => {
  it('parses one value per line across chunk boundaries, blank lines skipped', async () => {
    const values = await collect(
      readNdjson(body('{"a":1}\n\n{"b"', ':[1,2]}\r\n', '  \n', '3\n"last"')),
    );
    expect(values).toEqual([{ a: 1 }, { b: [1, 2] }, 3, 'last']);
  });

  it('a line that is not JSON throws after the lines before it, naming it', async () => {
    const seen: unknown[] = [];
    const error = await (async () => {
      for await (const value of readNdjson(body('{"ok":true}\n', '{"cut":\n{"x":2}\n'))) {
        seen.push(value);
      }
    })().catch((e: unknown) => e);
    expect(seen).toEqual([{ ok: true }]);
    expect(error).toBeInstanceOf(MalformedStreamError);
    expect(error).toMatchObject({ format: 'ndjson', line: 2, error_class: 'server_error' });
  });

  it('refuses a line longer than its bound, also before its newline arrives', async () => {
    const error = await collect(
      readNdjson(body('{"a":1}\n', `"${'y'.repeat(40)}`, 'y'.repeat(40)), { maxLineChars: 64 }),
    ).catch((e: unknown) => e);
    expect(error).toMatchObject({ line: 2, reason: 'is longer than 64 characters' });
  });

  it('honours the signal', async () => {
    const controller = new AbortController();
    const never = new ReadableStream<Uint8Array>({ start() {} });
    const pending = collect(readNdjson(never, { signal: controller.signal }));
    controller.abort();
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
  });
});

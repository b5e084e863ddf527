import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  FixtureError,
  type LoopbackServer,
  loadFixtureDirectory,
  loadResponseFile,
  ndjsonChunks,
  sseChunks,
  startLoopbackServer,
  UNSCRIPTED_STATUS,
} from '../src/index.js';

let server: LoopbackServer;
beforeEach(async () => {
  server = await startLoopbackServer();
});
afterEach(() => server.close());

const post = (body: unknown, headers: Record<string, string> = {}, signal?: AbortSignal) =>
  fetch(`${server.url}/v1/messages?beta=true`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-api-key': 'sk-ant-secret-123456',
      ...headers,
    },
    body: JSON.stringify(body),
    ...(signal ? { signal } : {}),
  });

describe('loopback server', () => {
  it('listens on 127.0.0.1 and answers scripted JSON in order, recording requests with secrets redacted', async () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    server.enqueue(
      { type: 'json', body: { n: 1 } },
      { type: 'json', status: 429, headers: { 'retry-after': '3' }, body: { n: 2 } },
    );
    const first = await post({ q: 1 }, { authorization: 'Bearer sk-abcdefghijklmnopqrstu' });
    expect(await first.json()).toEqual({ n: 1 });
    const second = await post({ q: 2 });
    expect(second.status).toBe(429);
    expect(second.headers.get('retry-after')).toBe('3');
    expect(server.requests.map((r) => [r.method, r.path, r.body])).toEqual([
      ['POST', '/v1/messages?beta=true', { q: 1 }],
      ['POST', '/v1/messages?beta=true', { q: 2 }],
    ]);
    expect(server.requests[0]?.headers['x-api-key']).toBe('[REDACTED]');
    expect(server.requests[0]?.headers.authorization).toBe('[REDACTED]');
    expect(JSON.stringify(server.requests)).not.toContain('secret');
    expect(server.pending()).toBe(0);
  });

  it('answers an unscripted request with a clear error and flags it', async () => {
    const res = await post({});
    expect(res.status).toBe(UNSCRIPTED_STATUS);
    expect(await res.text()).toContain('no scripted response left');
    expect(server.requests[0]?.unscripted).toBe(true);
  });

  it('streams chunks one by one and ends', async () => {
    server.enqueue({
      type: 'stream',
      contentType: 'text/event-stream',
      chunks: ['event: a\ndata: 1\n\n', 'event: b\ndata: 2\n\n'],
    });
    const res = await post({});
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    expect(await res.text()).toBe('event: a\ndata: 1\n\nevent: b\ndata: 2\n\n');
  });

  it('breaks a stream mid-way when asked to', async () => {
    server.enqueue({
      type: 'stream',
      contentType: 'application/x-ndjson',
      chunks: ['{"a":1}\n'],
      ending: 'destroy',
    });
    const res = await post({});
    await expect(res.text()).rejects.toThrow();
  });

  it('stalls a stream until the client goes away, and records the abort', async () => {
    server.enqueue({
      type: 'stream',
      contentType: 'text/event-stream',
      chunks: ['data: 1\n\n'],
      ending: 'stall',
    });
    const controller = new AbortController();
    const res = await post({}, {}, controller.signal);
    const reader = res.body!.getReader();
    const { value } = await reader.read();
    expect(new TextDecoder().decode(value)).toBe('data: 1\n\n');
    controller.abort();
    await expect.poll(() => server.requests[0]?.aborted).toBe(true);
  });

  it('hangs up without answering', async () => {
    server.enqueue({ type: 'hangup' });
    await expect(post({})).rejects.toThrow();
    expect(server.requests).toHaveLength(1);
  });

  it('waits for requests', async () => {
    server.enqueue({ type: 'json', body: {} });
    const waiting = server.waitForRequests(1, 1000);
    await post({});
    await expect(waiting).resolves.toBeUndefined();
    await expect(server.waitForRequests(2, 50)).rejects.toThrow(/expected 2 requests, got 1/);
  });
});

describe('fixture loaders', () => {
  it('split SSE into events and NDJSON into lines', () => {
    expect(sseChunks('event: a\ndata: {}\n\n\nevent: b\r\ndata: {}\r\n\r\n')).toEqual([
      'event: a\ndata: {}\n\n',
      'event: b\ndata: {}\n\n',
    ]);
    expect(ndjsonChunks('{"a":1}\n\n{"b":2}')).toEqual(['{"a":1}\n', '{"b":2}\n']);
  });

  it('load a fixture directory with sidecar metadata, in file order', () => {
    const dir = mkdtempSync(join(tmpdir(), 'fixtures-'));
    const scenario = join(dir, 'cancel');
    mkdirSync(scenario);
    writeFileSync(join(scenario, '2-stream.sse'), 'event: x\ndata: {}\n\n');
    writeFileSync(
      join(scenario, '2-stream.meta.json'),
      JSON.stringify({ ending: 'stall', status: 200 }),
    );
    writeFileSync(
      join(scenario, '1-error.json'),
      JSON.stringify({ status: 500, body: { error: 'x' } }),
    );
    writeFileSync(join(scenario, '3-hangup.json'), JSON.stringify({ hangup: true }));
    const fixtures = loadFixtureDirectory(dir);
    expect(fixtures.cancel?.map((r) => r.type)).toEqual(['json', 'stream', 'hangup']);
    expect(fixtures.cancel?.[1]).toMatchObject({
      ending: 'stall',
      contentType: 'text/event-stream',
    });
  });

  it('name the file when a fixture is malformed', () => {
    const dir = mkdtempSync(join(tmpdir(), 'fixtures-'));
    writeFileSync(join(dir, 'bad.json'), '{nope');
    writeFileSync(join(dir, 'empty.json'), '{"status": 200}');
    writeFileSync(join(dir, 'x.txt'), '');
    expect(() => loadResponseFile(join(dir, 'bad.json'))).toThrowError(FixtureError);
    expect(() => loadResponseFile(join(dir, 'bad.json'))).toThrow(/bad\.json: not valid JSON/);
    expect(() => loadResponseFile(join(dir, 'empty.json'))).toThrow(/needs "body"/);
    expect(() => loadResponseFile(join(dir, 'x.txt'))).toThrow(/unknown fixture type/);
  });
});

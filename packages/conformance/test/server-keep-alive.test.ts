import { connect } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { type LoopbackServer, startLoopbackServer } from '../src/index.js';

// A server that closes an idle kept-alive connection races a client reusing it at that moment:
// the client sees ECONNRESET or `fetch failed` (nodejs/undici#3141). The loopback server leaves
// idle connections to the client, and to close().

let server: LoopbackServer;
beforeEach(async () => {
  server = await startLoopbackServer();
});
afterEach(() => server.close());

const GET = 'GET /v1/ping HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: keep-alive\r\n\r\n';

it('keeps an idle kept-alive connection open past Node’s default 5 s and answers on it', {
  timeout: 30_000,
}, async () => {
  server.enqueue({ type: 'json', body: { n: 1 } }, { type: 'json', body: { n: 2 } });
  const socket = connect(Number(new URL(server.url).port), '127.0.0.1');
  let received = '';
  let closed = false;
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => {
    received += chunk;
  });
  socket.on('error', () => {});
  socket.on('close', () => {
    closed = true;
  });
  const answers = () => received.match(/HTTP\/1\.1 200/g)?.length ?? 0;
  socket.write(GET);
  await expect.poll(answers).toBe(1);
  expect(received.toLowerCase()).not.toContain('keep-alive: timeout=');

  await sleep(6_000);
  expect(closed).toBe(false);
  socket.write(GET);
  await expect.poll(answers).toBe(2);
  expect(received).toContain('{"n":2}');
  socket.destroy();
});

import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { playWireResponse, WIRE_FORMATS, WIRE_RENDERERS, type WireResponse } from '../src/index.js';

const held: ServerResponse[] = [];
const servers: Array<{ close: () => void }> = [];
afterEach(() => {
  for (const res of held.splice(0)) res.destroy();
  for (const server of servers.splice(0)) server.close();
});

/** A server playing `response` to every request; resolves to its URL. */
async function serve(response: WireResponse): Promise<string> {
  const server = createServer((req, res) => {
    void playWireResponse(response, { req, res, hold: (r) => held.push(r) });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.push(server);
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('WIRE_RENDERERS', () => {
  it('has a renderer for every wire format', () => {
    expect(Object.keys(WIRE_RENDERERS).sort()).toEqual([...WIRE_FORMATS].sort());
  });
});

describe('playWireResponse', () => {
  it('pauses after each chunk as delaysMs says, and ends', async () => {
    const url = await serve({
      type: 'stream',
      contentType: 'text/event-stream',
      chunks: ['data: 1\n\n', 'data: 2\n\n'],
      delaysMs: [60, 0],
    });
    const started = Date.now();
    const res = await fetch(url);
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    expect(await res.text()).toBe('data: 1\n\ndata: 2\n\n');
    expect(Date.now() - started).toBeGreaterThanOrEqual(50);
  });

  it('sends a raw body and then breaks the connection (ending: destroy)', async () => {
    const url = await serve({
      type: 'text',
      headers: { 'content-type': 'application/json' },
      body: '{"half":',
      ending: 'destroy',
    });
    const res = await fetch(url);
    expect(res.status).toBe(200);
    await expect(res.text()).rejects.toThrow();
  });

  it('holds a stalled raw body open after its headers (ending: stall)', async () => {
    const url = await serve({ type: 'text', body: '', ending: 'stall' });
    const res = await fetch(url);
    expect(res.status).toBe(200);
    await expect.poll(() => held.length).toBe(1);
  });
});

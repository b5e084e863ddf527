/**
 * The loopback Messages API server of `turn/stream`: every request gets the one text reply of
 * stream-script.ts, rendered by `@yourtool/wire-formats`, four events per write with the loop
 * turning between writes (so the client reads many small chunks, as from a network).
 * Runs in its own process (its CPU is not the client's); prints nothing, sends its port.
 */
import { createServer } from 'node:http';
import { STREAM_CHUNKS } from './stream-script.js';

const EVENTS_PER_WRITE = 4;

const server = createServer(async (request, response) => {
  for await (const _ of request) void _;
  response.writeHead(200, { 'content-type': 'text/event-stream' });
  for (let i = 0; i < STREAM_CHUNKS.length; i += EVENTS_PER_WRITE) {
    response.write(STREAM_CHUNKS.slice(i, i + EVENTS_PER_WRITE).join(''));
    await new Promise((resolve) => setImmediate(resolve));
  }
  response.end();
});
server.listen(0, '127.0.0.1', () => {
  process.send?.((server.address() as { port: number }).port);
});
process.on('disconnect', () => server.close(() => process.exit(0)));

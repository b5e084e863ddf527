/**
 * The loopback server of the Gemini streaming benchmark, in a process of its own (as
 * server.ts is for the other providers) so the measured CPU time is the client's alone.
 * `{ enqueue: 'google' }` queues the long Gemini response for the next request.
 */
import { startLoopbackServer } from '@yourtool/conformance';
import { buildGeminiWireStream } from './google-wire.js';

type Command = { enqueue: 'google' } | { close: true };

const server = await startLoopbackServer();
const stream = buildGeminiWireStream();
const chunks: string[] = [];
for (let i = 0; i < stream.events.length; i += 64) {
  chunks.push(stream.events.slice(i, i + 64).join(''));
}

process.on('message', (command: Command) => {
  if ('close' in command) {
    void server.close().then(() => process.exit(0));
    return;
  }
  server.reset();
  server.enqueue({ type: 'stream', contentType: stream.contentType, chunks });
  process.send?.({ enqueued: 'google' });
});
process.on('disconnect', () => process.exit(0));
process.send?.({ ready: server.url });

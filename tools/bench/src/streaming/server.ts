/**
 * The loopback provider server, in a process of its own so the CPU time the benchmark measures
 * is the client's alone (SDK, and adapter on top). Driven over IPC: `{ enqueue: provider }`
 * queues the provider's long response for the next request, and is answered once queued.
 */
import { startLoopbackServer } from '@yourtool/conformance';
import { buildWireStream, type StreamProvider, type WireStream, writesOf } from './wire.js';

/** Messages the parent sends. */
export type ServerCommand = { enqueue: StreamProvider } | { close: true };
/** Messages the server sends. */
export type ServerReply = { ready: string } | { enqueued: StreamProvider };

const send = (reply: ServerReply) => process.send?.(reply);

const server = await startLoopbackServer();
/** Each provider's body, built the first time it is asked for (untimed: before the reply). */
const bodies = new Map<
  StreamProvider,
  { contentType: WireStream['contentType']; chunks: string[] }
>();
const bodyOf = (provider: StreamProvider) => {
  let body = bodies.get(provider);
  if (!body) {
    const stream = buildWireStream(provider);
    body = { contentType: stream.contentType, chunks: writesOf(stream) };
    bodies.set(provider, body);
  }
  return body;
};

process.on('message', (command: ServerCommand) => {
  if ('close' in command) {
    void server.close().then(() => process.exit(0));
    return;
  }
  const body = bodyOf(command.enqueue);
  server.reset();
  server.enqueue({ type: 'stream', contentType: body.contentType, chunks: body.chunks });
  send({ enqueued: command.enqueue });
});
process.on('disconnect', () => process.exit(0));
send({ ready: server.url });

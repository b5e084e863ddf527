/**
 * The loopback provider server of the cold-start scenarios, in a process of its own so the CPU
 * the benchmark measures is the cold client's alone. `{ enqueue: provider }` over IPC queues the
 * provider's ~1,000-event reply for the next request, and is answered once queued.
 */
import { startLoopbackServer } from '@yourtool/conformance';
import { buildWireStream, type StreamProvider, writesOf } from '../streaming/wire.js';
import { COLD_STREAM_SIZE } from './size.js';

/** Messages the parent sends. */
export type ColdServerCommand = { enqueue: StreamProvider } | { close: true };
/** Messages the server sends. */
export type ColdServerReply = { ready: string } | { enqueued: StreamProvider };

const send = (reply: ColdServerReply) => process.send?.(reply);
const server = await startLoopbackServer();

process.on('message', (command: ColdServerCommand) => {
  if ('close' in command) {
    void server.close().then(() => process.exit(0));
    return;
  }
  const stream = buildWireStream(command.enqueue, COLD_STREAM_SIZE);
  server.reset();
  server.enqueue({ type: 'stream', contentType: stream.contentType, chunks: writesOf(stream) });
  send({ enqueued: command.enqueue });
});
process.on('disconnect', () => process.exit(0));
send({ ready: server.url });

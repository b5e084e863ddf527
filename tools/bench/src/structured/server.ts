/**
 * The loopback Anthropic server of `streaming/partial-object`, in a process of its own so the
 * CPU time measured is the client's alone. Every request is answered with the same stream: the
 * records object's JSON text in many text deltas. `{ enqueue: n }` over IPC queues n of them
 * (after forgetting the requests recorded so far).
 */
import { startLoopbackServer } from '@yourtool/conformance';
import { objectStream } from './document.js';

/** Messages the parent sends. */
export type ObjectServerCommand = { enqueue: number } | { close: true };
/** Messages the server sends. */
export type ObjectServerReply = { ready: string } | { enqueued: true };

const chunks = objectStream();
const send = (reply: ObjectServerReply) => process.send?.(reply);
const server = await startLoopbackServer();

process.on('message', (command: ObjectServerCommand) => {
  if ('close' in command) {
    void server.close().then(() => process.exit(0));
    return;
  }
  server.reset();
  for (let i = 0; i < command.enqueue; i++) {
    server.enqueue({ type: 'stream', contentType: 'text/event-stream', chunks });
  }
  send({ enqueued: true });
});
process.on('disconnect', () => process.exit(0));
send({ ready: server.url });

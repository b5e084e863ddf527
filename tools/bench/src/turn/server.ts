/**
 * The loopback Anthropic server of the `turn/<N>` scenarios, in a process of its own so the CPU
 * time measured is the client's alone. Every request is answered with a one-word Messages API
 * stream. Driven over IPC: `{ enqueue: true }` queues one answer; `{ lastBody: true }` replies
 * with the JSON body of the last request (what the raw SDK baseline then sends itself).
 */
import { startLoopbackServer } from '@yourtool/conformance';
import { anthropicFormat } from '@yourtool/wire-formats';

/** Messages the parent sends. */
export type TurnServerCommand = { enqueue: true } | { lastBody: true } | { close: true };
/** Messages the server sends. */
export type TurnServerReply =
  | { ready: string }
  | { enqueued: true }
  | { body: string | null; requests: number };

/** A one-word reply, as the Messages API streams it (rendered by `@yourtool/wire-formats`). */
export const ONE_WORD_STREAM: string[] = [
  ...anthropicFormat({
    messageId: 'msg_01TurnBench00000000000001',
    withoutNewerFields: true,
  }).stream({
    reply: {
      kind: 'message',
      blocks: [{ kind: 'text', text: 'Done.', chunks: 1 }],
      usage: { input_tokens: 120_000, output_tokens: 2 },
      stopReason: 'end_turn',
      chunkDelayMs: 0,
    },
    model: 'claude-sonnet-4-6',
    seq: 0,
    body: {},
  }).chunks,
];

const send = (reply: TurnServerReply) => process.send?.(reply);
const server = await startLoopbackServer();
let requests = 0;

process.on('message', (command: TurnServerCommand) => {
  if ('close' in command) {
    void server.close().then(() => process.exit(0));
    return;
  }
  if ('lastBody' in command) {
    const last = server.requests.at(-1);
    requests += server.requests.length;
    send({ body: last ? JSON.stringify(last.body) : null, requests });
    server.reset();
    return;
  }
  server.enqueue({ type: 'stream', contentType: 'text/event-stream', chunks: ONE_WORD_STREAM });
  send({ enqueued: true });
});
process.on('disconnect', () => process.exit(0));
send({ ready: server.url });

/**
 * The loopback Anthropic server of the `turn/<N>` scenarios, in a process of its own so the CPU
 * time measured is the client's alone. Every request is answered with a one-word Messages API
 * stream. Driven over IPC: `{ enqueue: true }` queues one answer; `{ lastBody: true }` replies
 * with the JSON body of the last request (what the raw SDK baseline then sends itself).
 */
import { startLoopbackServer } from '@yourtool/conformance';

/** Messages the parent sends. */
export type TurnServerCommand = { enqueue: true } | { lastBody: true } | { close: true };
/** Messages the server sends. */
export type TurnServerReply =
  | { ready: string }
  | { enqueued: true }
  | { body: string | null; requests: number };

const sse = (event: string, data: unknown) =>
  `event: ${event}\ndata: ${JSON.stringify({ type: event, ...(data as object) })}\n\n`;

/** A one-word reply, as the Messages API streams it. */
export const ONE_WORD_STREAM: string[] = [
  sse('message_start', {
    message: {
      id: 'msg_01TurnBench00000000000001',
      type: 'message',
      role: 'assistant',
      model: 'claude-sonnet-4-6',
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: {
        input_tokens: 120_000,
        output_tokens: 1,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 0,
      },
    },
  }),
  sse('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }),
  sse('content_block_delta', { index: 0, delta: { type: 'text_delta', text: 'Done.' } }),
  sse('content_block_stop', { index: 0 }),
  sse('message_delta', {
    delta: { stop_reason: 'end_turn', stop_sequence: null },
    usage: { output_tokens: 2 },
  }),
  sse('message_stop', {}),
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

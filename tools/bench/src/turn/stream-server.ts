/**
 * The loopback Messages API server of `turn/stream`: every request gets one text reply of
 * {@link STREAM_DELTAS} deltas, streamed as Anthropic streams it, four events per write with
 * the loop turning between writes (so the client reads many small chunks, as from a network).
 * Runs in its own process (its CPU is not the client's); prints nothing, sends its port.
 */
import { createServer } from 'node:http';
import { STREAM_DELTAS, streamWord } from './stream-script.js';

const sse = (event: string, data: unknown) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
const OPENING = [
  sse('message_start', {
    type: 'message_start',
    message: {
      id: 'msg_bench',
      type: 'message',
      role: 'assistant',
      model: 'claude-sonnet-4-6',
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: 10, output_tokens: 1 },
    },
  }),
  sse('content_block_start', {
    type: 'content_block_start',
    index: 0,
    content_block: { type: 'text', text: '' },
  }),
].join('');
const DELTAS = Array.from({ length: STREAM_DELTAS }, (_, i) =>
  sse('content_block_delta', {
    type: 'content_block_delta',
    index: 0,
    delta: { type: 'text_delta', text: streamWord(i) },
  }),
);
const CLOSING = [
  sse('content_block_stop', { type: 'content_block_stop', index: 0 }),
  sse('message_delta', {
    type: 'message_delta',
    delta: { stop_reason: 'end_turn', stop_sequence: null },
    usage: { output_tokens: STREAM_DELTAS },
  }),
  sse('message_stop', { type: 'message_stop' }),
].join('');
const EVENTS_PER_WRITE = 4;

const server = createServer(async (request, response) => {
  for await (const _ of request) void _;
  response.writeHead(200, { 'content-type': 'text/event-stream' });
  response.write(OPENING);
  for (let i = 0; i < DELTAS.length; i += EVENTS_PER_WRITE) {
    response.write(DELTAS.slice(i, i + EVENTS_PER_WRITE).join(''));
    await new Promise((resolve) => setImmediate(resolve));
  }
  response.end(CLOSING);
});
server.listen(0, '127.0.0.1', () => {
  process.send?.((server.address() as { port: number }).port);
});
process.on('disconnect', () => server.close(() => process.exit(0)));

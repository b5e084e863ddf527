/**
 * The loopback server of the `send/<provider>/<N>` scenarios, in a process of its own so the
 * CPU time measured is the client's alone. Every POST is answered with a one-word reply of the
 * API its path names (non-streaming JSON); the last request's body is kept as text and sent to
 * the parent when asked over IPC (`{ lastBody: true }`), so the raw SDK baseline can send the
 * very bytes our adapter sent.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Messages the parent sends. */
export type SendServerCommand = { lastBody: true } | { close: true };
/** Messages the server sends. */
export type SendServerReply = { ready: string } | { body: string | null; requests: number };

/** A one-word Chat Completions reply. */
const CHAT_REPLY = JSON.stringify({
  id: 'chatcmpl-send-bench',
  object: 'chat.completion',
  created: 0,
  model: 'gpt-5',
  choices: [{ index: 0, message: { role: 'assistant', content: 'Done.' }, finish_reason: 'stop' }],
  usage: { prompt_tokens: 120_000, completion_tokens: 2, total_tokens: 120_002 },
});

/** The reply for a request path. */
function replyFor(path: string): string {
  if (path.endsWith('/chat/completions')) return CHAT_REPLY;
  throw new Error(`the send bench server has no reply for ${path}`);
}

let lastBody: string | null = null;
let requests = 0;
const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    lastBody = Buffer.concat(chunks).toString('utf8');
    requests++;
    res.writeHead(200, { 'content-type': 'application/json' }).end(replyFor(req.url ?? ''));
  });
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));

const send = (reply: SendServerReply) => process.send?.(reply);
process.on('message', (command: SendServerCommand) => {
  if ('close' in command) {
    server.close(() => process.exit(0));
    return;
  }
  send({ body: lastBody, requests });
});
process.on('disconnect', () => process.exit(0));
send({ ready: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });

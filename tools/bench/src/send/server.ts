/**
 * The loopback server of the `send/<provider>/<N>` scenarios, in a process of its own so the
 * CPU time measured is the client's alone. Every POST is answered with the canned reply whose
 * path part its URL contains (the replies come from the parent, in `SEND_BENCH_REPLIES`); the
 * last request's body is kept as text and sent to the parent when asked over IPC
 * (`{ lastBody: true }`), so the raw SDK baseline can send the very bytes our adapter sent.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { SendReply } from './contender.js';

/** Messages the parent sends. */
export type SendServerCommand = { lastBody: true } | { close: true };
/** Messages the server sends. */
export type SendServerReply = { ready: string } | { body: string | null; requests: number };

const replies = JSON.parse(process.env.SEND_BENCH_REPLIES ?? '[]') as SendReply[];

/** The reply for a request path. */
function replyFor(path: string): string {
  const reply = replies.find((r) => path.includes(r.path));
  if (reply === undefined) throw new Error(`the send bench server has no reply for ${path}`);
  return reply.body;
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

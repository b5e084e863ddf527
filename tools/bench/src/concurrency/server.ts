/**
 * The paced loopback Anthropic Messages server of the `concurrency/*` scenarios, in a process
 * of its own so its CPU is not the client's. Every request gets the reply its key scripts
 * (script.ts): the opening events at once, then each text delta {@link DELTA_PACE_MS} ms after
 * the one before, the closing events with the last. It notes, per request, when the request had
 * arrived and when its first delta left (its own pacing and lag, which the client subtracts
 * from its time to first token). IPC: `{ stats: true }` answers with those figures and the
 * number of streams still open, then forgets them; `{ close: true }` ends the process.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { chunksOf, DELTA_PACE_MS, keyOfBody, keyString } from './script.js';

/** Messages the parent sends. */
export type PacedServerCommand = { stats: true } | { close: true };
/** Messages the server sends. */
export type PacedServerReply =
  | { ready: string }
  | {
      /** Per request key: ms from the request's arrival to its first text delta leaving. */
      firstDeltaMs: Record<string, number>;
      /** Per request key: when the request arrived, in ms since the epoch (for the detail split). */
      arrivedAt: Record<string, number>;
      /** Streams whose response has neither finished nor been closed by the client. */
      open: number;
      /** Requests answered since the last stats, and those the client closed before the end. */
      requests: number;
      aborted: number;
      /** Requests whose body carried no key (answered 400). */
      unknown: number;
    };

const send = (reply: PacedServerReply) => process.send?.(reply);

let firstDeltaMs: Record<string, number> = {};
let arrivedAt: Record<string, number> = {};
let open = 0;
let requests = 0;
let aborted = 0;
let unknown = 0;
let seq = 0;

/** Streams `chunks`: the opening ones now, then one text delta per pace, the closing ones last. */
function stream(
  res: ServerResponse,
  chunks: readonly string[],
  key: string,
  arrived: number,
): void {
  const isDelta = (chunk: string) => chunk.includes('"text_delta"');
  let at = 0;
  let head = '';
  while (at < chunks.length && !isDelta(chunks[at] as string)) head += chunks[at++];
  res.write(head);
  let first = true;
  let timer: NodeJS.Timeout | undefined;
  let done = false;
  const finish = () => {
    if (done) return;
    done = true;
    open--;
  };
  res.on('close', () => {
    if (!res.writableFinished) aborted++;
    if (timer) clearTimeout(timer);
    finish();
  });
  const next = () => {
    timer = undefined;
    let out = chunks[at++] as string;
    // everything up to the next text delta (tool input, block stops, the closing events)
    while (at < chunks.length && !isDelta(chunks[at] as string)) out += chunks[at++];
    if (first) {
      firstDeltaMs[key] = performance.now() - arrived;
      first = false;
    }
    if (at < chunks.length) {
      res.write(out);
      timer = setTimeout(next, DELTA_PACE_MS);
    } else res.end(out);
  };
  timer = setTimeout(next, DELTA_PACE_MS);
}

function answer(req: IncomingMessage, res: ServerResponse): void {
  const arrived = performance.now();
  const parts: Buffer[] = [];
  req.on('data', (part: Buffer) => parts.push(part));
  req.on('end', () => {
    let body: { messages?: unknown; model?: unknown } = {};
    try {
      body = JSON.parse(Buffer.concat(parts).toString('utf8'));
    } catch {
      // answered as unknown below
    }
    const key = keyOfBody(body);
    if (!key) {
      unknown++;
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end('{"type":"error","error":{"type":"invalid_request_error","message":"no bench key"}}');
      return;
    }
    requests++;
    open++;
    const model = typeof body.model === 'string' ? body.model : 'claude-sonnet-4-6';
    res.writeHead(200, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache',
      'request-id': `req_bench_${seq}`,
    });
    arrivedAt[keyString(key)] = performance.timeOrigin + arrived;
    stream(res, chunksOf(key, seq++, model), keyString(key), arrived);
  });
}

const server = createServer(answer);
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo;
  send({ ready: `http://127.0.0.1:${port}` });
});

process.on('message', (command: PacedServerCommand) => {
  if ('close' in command) {
    server.closeAllConnections();
    server.close(() => process.exit(0));
    return;
  }
  send({ firstDeltaMs, arrivedAt, open, requests, aborted, unknown });
  firstDeltaMs = {};
  arrivedAt = {};
  requests = 0;
  aborted = 0;
  unknown = 0;
});
process.on('disconnect', () => process.exit(0));

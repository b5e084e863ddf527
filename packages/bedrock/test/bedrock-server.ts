import { createServer as createHttpServer, type IncomingHttpHeaders } from 'node:http';
import { createServer as createH2Server, type Http2Session } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { EventStreamCodec } from '@smithy/core/event-streams';

/**
 * A loopback server speaking Bedrock Runtime's wire format, for tests that drive the real
 * `@aws-sdk/client-bedrock-runtime` over real HTTP: JSON replies and errors as Bedrock sends
 * them (`x-amzn-errortype`), and ConverseStream bodies as binary event-stream frames
 * (`application/vnd.amazon.eventstream`). Serves plain-text HTTP/2 (h2c, what the SDK's default
 * handler speaks to an `http://` endpoint) and HTTP/1.1 on two ports.
 */

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const codec = new EventStreamCodec(
  (bytes: Uint8Array) => decoder.decode(bytes),
  (text: string) => encoder.encode(text),
);

/** One event-stream frame: an event (`messageStart`, ...) or an exception, with its JSON payload. */
export type Frame =
  | { event: string; payload: unknown }
  | { exception: string; payload: unknown }
  | { raw: Uint8Array };

/** The bytes of one frame, as Bedrock frames it. */
export function encodeFrame(frame: Frame): Uint8Array {
  if ('raw' in frame) return frame.raw;
  const body = encoder.encode(JSON.stringify(frame.payload));
  const kind =
    'event' in frame
      ? { ':message-type': 'event', ':event-type': frame.event }
      : { ':message-type': 'exception', ':exception-type': frame.exception };
  const headers = Object.fromEntries(
    Object.entries({ ...kind, ':content-type': 'application/json' }).map(([name, value]) => [
      name,
      { type: 'string' as const, value },
    ]),
  );
  return codec.encode({ headers, body });
}

/** What the server answers one request with. */
export type Reply =
  /** A JSON body (a Converse reply, or an error body with `errorType`). */
  | { status?: number; json: unknown; errorType?: string; headers?: Record<string, string> }
  /** A body that is not Bedrock's (a proxy's page, a redirect). */
  | { status: number; text: string; contentType: string }
  /** An event stream: the frames, then (unless `hold`) the end of the body. */
  | { frames: Frame[]; hold?: boolean }
  /** Closes the connection without answering. */
  | { drop: true }
  /** Never answers (not even headers) until reset or closed. */
  | { stall: true };

/** A request as the server saw it. */
export interface SeenRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** `'2.0'` or `'1.1'`. */
  httpVersion: string;
}

/** The running server. */
export interface BedrockServer {
  /** The h2c endpoint (`http://127.0.0.1:<port>`). */
  h2Url: string;
  /** The HTTP/1.1 endpoint. */
  http1Url: string;
  /** Requests seen, in order. */
  requests: SeenRequest[];
  /** Requests still open (streams held, replies not ended). */
  open(): number;
  /** The most requests open at once. */
  peakOpen(): number;
  /** Requests whose connection or stream the client closed before the reply ended. */
  closedByClient(): number;
  /** Answers the next requests with these replies (one each); a request with none gets a 500. */
  enqueue(...replies: Reply[]): void;
  /** Answers every further request with this reply (after the queue is empty). */
  always(reply: Reply | undefined): void;
  /** Ends held streams and forgets requests and replies. */
  reset(): void;
  close(): Promise<void>;
}

interface Answer {
  setHeader(name: string, value: string): void;
  writeHead(status: number): void;
  write(bytes: Uint8Array): boolean;
  end(body?: string): void;
  destroyed?: boolean;
  readonly writableEnded: boolean;
}

/** Starts a Bedrock Runtime server on loopback (both protocols). */
export async function startBedrockServer(): Promise<BedrockServer> {
  const queue: Reply[] = [];
  let fallback: Reply | undefined;
  const requests: SeenRequest[] = [];
  const held = new Set<Answer>();
  let openNow = 0;
  let peak = 0;
  let closedEarly = 0;

  const handle = (
    req: {
      method?: string;
      url?: string;
      headers: IncomingHttpHeaders;
      httpVersion: string;
      on(event: string, listener: (...args: never[]) => void): unknown;
      socket?: { destroy(): void } | null;
    },
    res: Answer & { on(event: string, listener: () => void): unknown },
  ) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      requests.push({
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        httpVersion: req.httpVersion,
      });
      openNow++;
      peak = Math.max(peak, openNow);
      res.on('close', () => {
        openNow--;
        held.delete(res);
        // not `finish`: HTTP/2's compatibility response emits it on a reset stream too
        if (!res.writableEnded) closedEarly++;
      });
      answer(queue.shift() ?? fallback, req, res);
    });
  };

  const answer = (reply: Reply | undefined, req: Parameters<typeof handle>[0], res: Answer) => {
    if (reply === undefined) {
      res.setHeader('content-type', 'application/json');
      res.writeHead(500);
      res.end(JSON.stringify({ message: 'no reply queued' }));
      return;
    }
    if ('drop' in reply) {
      req.socket?.destroy();
      return;
    }
    if ('stall' in reply) {
      held.add(res);
      return;
    }
    res.setHeader('x-amzn-requestid', `req-${requests.length}`);
    if ('text' in reply) {
      res.setHeader('content-type', reply.contentType);
      res.writeHead(reply.status);
      res.end(reply.text);
      return;
    }
    if ('json' in reply) {
      res.setHeader('content-type', 'application/json');
      for (const [name, value] of Object.entries(reply.headers ?? {})) res.setHeader(name, value);
      if (reply.errorType) {
        res.setHeader(
          'x-amzn-errortype',
          `${reply.errorType}:http://internal.amazon.com/coral/com.amazon.bedrock/`,
        );
      }
      res.writeHead(reply.status ?? 200);
      res.end(JSON.stringify(reply.json));
      return;
    }
    res.setHeader('content-type', 'application/vnd.amazon.eventstream');
    res.writeHead(200);
    for (const frame of reply.frames) res.write(encodeFrame(frame));
    if (reply.hold) held.add(res);
    else res.end();
  };

  const http1 = createHttpServer({ keepAliveTimeout: 0 }, handle as never);
  const h2 = createH2Server({}, handle as never);
  // the client keeps no session open after a call, but close() must not wait on one that lingers
  const sessions = new Set<Http2Session>();
  h2.on('session', (session: Http2Session) => {
    sessions.add(session);
    session.on('close', () => sessions.delete(session));
  });
  await Promise.all([
    new Promise<void>((resolve) => http1.listen(0, '127.0.0.1', resolve)),
    new Promise<void>((resolve) => h2.listen(0, '127.0.0.1', resolve)),
  ]);
  const url = (server: { address(): AddressInfo | string | null }) =>
    `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const endHeld = () => {
    for (const res of held) res.end();
    held.clear();
  };
  return {
    h2Url: url(h2),
    http1Url: url(http1),
    requests,
    open: () => openNow,
    peakOpen: () => peak,
    closedByClient: () => closedEarly,
    enqueue: (...replies) => queue.push(...replies),
    always: (reply) => {
      fallback = reply;
    },
    reset: () => {
      endHeld();
      queue.length = 0;
      fallback = undefined;
      requests.length = 0;
      peak = openNow;
      closedEarly = 0;
    },
    close: async () => {
      endHeld();
      http1.closeAllConnections();
      for (const session of sessions) session.destroy();
      await Promise.all([
        new Promise<void>((resolve) => http1.close(() => resolve())),
        new Promise<void>((resolve) => h2.close(() => resolve())),
      ]);
    },
  };
}

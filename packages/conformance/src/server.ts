import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { redactHeaders } from '@yourtool/core/adapter';
import { playWireResponse, type StreamEnding, type WireResponse } from '@yourtool/wire-formats';

/**
 * What the server does once a streamed response's chunks are written: `@yourtool/wire-formats`'s
 * {@link StreamEnding}, which plays every wire response of both loopback servers.
 */
export type { StreamEnding };

/**
 * One scripted answer of the loopback server (each request consumes the next one): a wire
 * response as `@yourtool/wire-formats` plays it (JSON, raw text, an SSE or NDJSON stream that may
 * end, break or stall, or a hang-up).
 */
export type ScriptedResponse = WireResponse;

/** A request the server received, as the provider would have seen it. */
export interface RecordedRequest {
  method: string;
  /** Path with query string, e.g. `/v1/messages`. */
  path: string;
  /**
   * Lower-cased header names. Credential headers are recorded as `[REDACTED]`: by name
   * (`authorization`, `x-api-key`, names ending in `-key`, `-token`, `-secret`, `-auth`, ...),
   * by a value that looks like a credential, or by a value containing one of the server's
   * secrets ({@link LoopbackServerOptions.secrets}, {@link LoopbackServer.addSecret}).
   */
  headers: Record<string, string>;
  /** Parsed JSON body, or the raw text when it is not JSON. */
  body: unknown;
  /** True if the client went away before the response ended (cancellation). */
  aborted: boolean;
  /** True if no scripted response was left for it (the server answered 599). */
  unscripted: boolean;
}

/** A real HTTP server on 127.0.0.1 that plays scripted provider responses to real SDKs. */
export interface LoopbackServer {
  /** Base URL, e.g. `http://127.0.0.1:38211`. */
  readonly url: string;
  /** Every request received since the last {@link reset}, in order. */
  readonly requests: readonly RecordedRequest[];
  /**
   * Adds a value to redact from recorded request headers (e.g. a custom credential an adapter
   * sends from `extra_headers` under a header name that does not look like one). Every header
   * whose value contains it is recorded as `[REDACTED]`, in requests already recorded too.
   * Values shorter than 6 characters are ignored: they would redact ordinary header values.
   */
  addSecret(secret: string): void;
  /** Queues responses; each incoming request takes the next. */
  enqueue(...responses: ScriptedResponse[]): void;
  /** Responses still queued. */
  pending(): number;
  /** Forgets recorded requests and queued responses, and ends stalled responses. */
  reset(): void;
  /** Resolves once `count` requests have arrived (or rejects after `timeoutMs`). */
  waitForRequests(count: number, timeoutMs?: number): Promise<void>;
  /** Stops the server and closes every connection. */
  close(): Promise<void>;
}

/** Options of {@link startLoopbackServer}. */
export interface LoopbackServerOptions {
  /**
   * Values to redact from recorded request headers, besides what core's `redactHeaders` finds
   * by itself (credential header names, credential-looking values): typically the API key and
   * the `extra_headers` values a test configures its adapter with. A header whose value
   * contains one is recorded as `[REDACTED]`. Values shorter than 6 characters are ignored.
   * More can be added later with {@link LoopbackServer.addSecret}.
   */
  secrets?: readonly string[];
}

/** Status the server answers with when a request arrives that no response was scripted for. */
export const UNSCRIPTED_STATUS = 599;

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    req.on('data', (chunk: Buffer) => parts.push(chunk));
    req.on('end', () => resolve(Buffer.concat(parts).toString('utf8')));
    req.on('error', reject);
  });
}

/** The request's headers, lower-cased, with every credential redacted (core's `redactHeaders`). */
function flatHeaders(req: IncomingMessage, secrets: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined)
      out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return redactHeaders(out, secrets);
}

/** The request body: parsed JSON, the raw text when it is not JSON, undefined when empty. */
function parseBody(text: string): unknown {
  try {
    return text === '' ? undefined : JSON.parse(text);
  } catch {
    return text;
  }
}

/** What the server keeps between requests. */
interface ServerState {
  secrets: string[];
  queue: ScriptedResponse[];
  requests: RecordedRequest[];
  sockets: Set<Socket>;
  stalled: Set<ServerResponse>;
  waiters: Array<{ count: number; resolve: () => void }>;
}

/** Resolves the waiters whose request count has been reached. */
function notify(state: ServerState): void {
  for (const waiter of [...state.waiters]) {
    if (state.requests.length >= waiter.count) {
      state.waiters.splice(state.waiters.indexOf(waiter), 1);
      waiter.resolve();
    }
  }
}

/** Answers a request no response was scripted for with {@link UNSCRIPTED_STATUS}. */
function answerUnscripted(res: ServerResponse, record: RecordedRequest): void {
  res.writeHead(UNSCRIPTED_STATUS, { 'content-type': 'application/json' });
  res.end(
    JSON.stringify({
      error: {
        type: 'conformance_unscripted_request',
        message: `the loopback server had no scripted response left for ${record.method} ${record.path}`,
      },
    }),
  );
}

/** Records a request, then answers it with the next scripted response. */
async function handle(state: ServerState, req: IncomingMessage, res: ServerResponse) {
  const body = parseBody(await readBody(req));
  const scripted = state.queue.shift();
  const record: RecordedRequest = {
    method: req.method ?? 'GET',
    path: req.url ?? '/',
    headers: flatHeaders(req, state.secrets),
    body,
    aborted: false,
    unscripted: scripted === undefined,
  };
  state.requests.push(record);
  notify(state);
  res.on('close', () => {
    if (!res.writableFinished) record.aborted = true;
    state.stalled.delete(res);
  });
  if (!scripted) answerUnscripted(res, record);
  else await playWireResponse(scripted, { req, res, hold: (held) => state.stalled.add(held) });
}

/** Resolves once `count` requests have arrived, or rejects after `timeoutMs`. */
function waitForRequests(state: ServerState, count: number, timeoutMs: number): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (state.requests.length >= count) {
      resolve();
      return;
    }
    const timer = setTimeout(
      () =>
        reject(
          new Error(
            `expected ${count} requests, got ${state.requests.length} within ${timeoutMs} ms`,
          ),
        ),
      timeoutMs,
    );
    state.waiters.push({
      count,
      resolve: () => {
        clearTimeout(timer);
        resolve();
      },
    });
  });
}

/**
 * Starts a loopback provider server on 127.0.0.1 and a random free port. It answers each
 * request with the next scripted response (JSON, raw text, an SSE or NDJSON stream that may
 * end, break or stall, or a hang-up), and records every request with credential headers
 * redacted so tests can check what went on the wire: headers named like credentials, values
 * that look like credentials, and values containing one of `options.secrets` (or a secret
 * added later with `addSecret`) are recorded as `[REDACTED]`.
 *
 * ```ts
 * const server = await startLoopbackServer({ secrets: ['s3cr3t-value-123'] });
 * // an adapter configured with extra_headers: { 'x-tenant': 's3cr3t-value-123' } ...
 * server.requests[0]?.headers['x-tenant']; // '[REDACTED]'
 * ```
 */
export async function startLoopbackServer(
  options: LoopbackServerOptions = {},
): Promise<LoopbackServer> {
  const state: ServerState = {
    secrets: [...(options.secrets ?? [])],
    queue: [],
    requests: [],
    sockets: new Set(),
    stalled: new Set(),
    waiters: [],
  };
  const { queue, requests, sockets, stalled } = state;
  const server = createServer((req, res) => handle(state, req, res));
  // idle connections stay open until the client or close() ends them: a server closing one after
  // Node's default 5 s can race a client reusing it, seen as ECONNRESET (nodejs/undici#3141)
  server.keepAliveTimeout = 0;
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    addSecret: (secret) => {
      state.secrets.push(secret);
      for (const record of requests) record.headers = redactHeaders(record.headers, [secret]);
    },
    enqueue: (...responses) => {
      queue.push(...responses);
    },
    pending: () => queue.length,
    reset: () => {
      queue.length = 0;
      requests.length = 0;
      for (const res of stalled) res.destroy();
      stalled.clear();
    },
    waitForRequests: (count, timeoutMs = 5000) => waitForRequests(state, count, timeoutMs),
    close: async () => {
      for (const res of stalled) res.destroy();
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

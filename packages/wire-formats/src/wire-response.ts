import type { IncomingMessage, ServerResponse } from 'node:http';

/** What the server does once a response's body (a stream's chunks, a raw text) is written. */
export type StreamEnding =
  /** End the response normally. */
  | 'end'
  /** Destroy the socket: the client sees the stream break mid-way. */
  | 'destroy'
  /**
   * Close the connection cleanly (FIN) before the body's last chunk, as a `Connection: close`
   * reply cut short does: Node's fetch reports `terminated` caused by `HPE_INVALID_EOF_STATE`.
   */
  | 'close'
  /** Keep the response open until the client goes away (for cancellation tests). */
  | 'stall';

/**
 * One HTTP answer in a provider's wire form, as a loopback server plays it: the scripted
 * provider renders each reply into one, and the conformance suite's loopback server plays its
 * recorded fixtures as they are.
 */
export type WireResponse =
  | {
      type: 'json';
      status?: number;
      headers?: Record<string, string>;
      body: unknown;
    }
  | {
      /** A body sent exactly as given (e.g. malformed JSON). */
      type: 'text';
      status?: number;
      headers?: Record<string, string>;
      body: string;
      /** What happens after the body is written. Default `end`. */
      ending?: StreamEnding;
    }
  | {
      /** A streamed body: SSE events or NDJSON lines, each chunk written and flushed separately. */
      type: 'stream';
      status?: number;
      headers?: Record<string, string>;
      /** `application/json` serves a JSON body in pieces (a reply that stalls mid-body). */
      contentType: 'text/event-stream' | 'application/x-ndjson' | 'application/json';
      chunks: string[];
      /** Pause after each chunk (the last one too), in ms. Default 0. */
      delayMs?: number;
      /** Pause after each chunk by position, in ms; takes the place of `delayMs` when given. */
      delaysMs?: readonly number[];
      /** What happens after the last chunk. Default `end`. */
      ending?: StreamEnding;
    }
  | {
      /**
       * A streamed binary body: each chunk (an event-stream frame, for Bedrock's
       * `application/vnd.amazon.eventstream`) written as-is and flushed separately.
       */
      type: 'binary-stream';
      status?: number;
      headers?: Record<string, string>;
      contentType: 'application/vnd.amazon.eventstream';
      chunks: Uint8Array[];
      /** Pause after each chunk (the last one too), in ms. Default 0. */
      delayMs?: number;
      /** Pause after each chunk by position, in ms; takes the place of `delayMs` when given. */
      delaysMs?: readonly number[];
      /** What happens after the last chunk. Default `end`. */
      ending?: StreamEnding;
    }
  | {
      /** Accept the request, then close the connection without answering (a network failure). */
      type: 'hangup';
    };

/** Where a {@link WireResponse} is played. */
export interface WireTarget {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  /** Keeps a stalled response open; the server ends it when the test is over. */
  readonly hold: (res: ServerResponse) => void;
}

/** How long written chunks get to reach the client before a connection is broken on purpose. */
const FLUSH_BEFORE_BREAK_MS = 20;

const wait = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Ends, breaks, closes or holds a response whose body has been written. */
async function finish(target: WireTarget, ending: StreamEnding): Promise<void> {
  if (ending === 'end') target.res.end();
  else if (ending === 'destroy' || ending === 'close') {
    // let the written chunks reach the client before the connection breaks
    await wait(FLUSH_BEFORE_BREAK_MS);
    if (ending === 'destroy') target.req.socket.destroy();
    else target.req.socket.end();
  } else target.hold(target.res);
}

/** Writes a streamed response chunk by chunk (text or bytes as given), then ends, breaks or stalls it. */
async function playStream(
  response: Extract<WireResponse, { type: 'stream' | 'binary-stream' }>,
  target: WireTarget,
): Promise<void> {
  const { res } = target;
  res.writeHead(response.status ?? 200, {
    'content-type': response.contentType,
    'cache-control': 'no-cache',
    ...response.headers,
  });
  res.flushHeaders();
  for (const [i, chunk] of response.chunks.entries()) {
    if (res.destroyed) return;
    res.write(chunk);
    const pause = response.delaysMs ? (response.delaysMs[i] ?? 0) : (response.delayMs ?? 0);
    if (pause > 0) await wait(pause);
  }
  await finish(target, response.ending ?? 'end');
}

/** Writes a raw body, then ends, breaks or stalls the response. */
async function playText(
  response: Extract<WireResponse, { type: 'text' }>,
  target: WireTarget,
): Promise<void> {
  const { res } = target;
  res.writeHead(response.status ?? 200, { 'content-type': 'text/plain', ...response.headers });
  const ending = response.ending ?? 'end';
  if (ending === 'end') {
    res.end(response.body);
    return;
  }
  if (response.body === '') res.flushHeaders();
  else res.write(response.body);
  if (!res.destroyed) await finish(target, ending);
}

/**
 * Plays one {@link WireResponse} to a request: the one place where a loopback provider turns a
 * wire response into HTTP, for the scripted provider and the conformance server alike.
 */
export async function playWireResponse(response: WireResponse, target: WireTarget): Promise<void> {
  switch (response.type) {
    case 'json':
      target.res.writeHead(response.status ?? 200, {
        'content-type': 'application/json',
        ...response.headers,
      });
      target.res.end(JSON.stringify(response.body));
      return;
    case 'text':
      await playText(response, target);
      return;
    case 'hangup':
      target.req.socket.destroy();
      return;
    case 'stream':
    case 'binary-stream':
      await playStream(response, target);
      return;
  }
}

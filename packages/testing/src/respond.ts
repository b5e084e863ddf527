import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RenderContext, RenderedError, WireRenderer } from './formats/renderer.js';
import type { FixedReply, MessageReply } from './script.js';

/** How long written chunks get to reach the client before a connection is broken on purpose. */
const FLUSH_BEFORE_BREAK_MS = 20;

const wait = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Responses held open by a stall, each released after a limit so nothing waits forever. */
export class StallRegistry {
  readonly #held = new Map<ServerResponse, NodeJS.Timeout>();
  readonly #limitMs: number;

  constructor(limitMs: number) {
    this.#limitMs = limitMs;
  }

  /** Holds `res` open until the client leaves, {@link releaseAll}, or the limit passes. */
  hold(res: ServerResponse): void {
    const timer = setTimeout(() => this.#release(res), this.#limitMs);
    timer.unref();
    this.#held.set(res, timer);
    res.once('close', () => {
      clearTimeout(timer);
      this.#held.delete(res);
    });
  }

  /** Destroys every held response. */
  releaseAll(): void {
    for (const res of [...this.#held.keys()]) this.#release(res);
  }

  #release(res: ServerResponse): void {
    clearTimeout(this.#held.get(res));
    this.#held.delete(res);
    res.destroy();
  }
}

/** Where a reply goes. */
export interface ReplyTarget {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly renderer: WireRenderer;
  readonly stream: boolean;
  readonly stalls: StallRegistry;
  /** Everything of the render context but the reply. */
  readonly context: Omit<RenderContext, 'reply'>;
}

/** Writes an error response. */
export function writeError(res: ServerResponse, rendered: RenderedError): void {
  res.writeHead(rendered.status, { 'content-type': 'application/json', ...rendered.headers });
  res.end(JSON.stringify(rendered.body));
}

function startStream(target: ReplyTarget): void {
  target.res.writeHead(200, {
    'content-type': target.renderer.streamContentType,
    'cache-control': 'no-cache',
    ...target.renderer.headers(target.context.seq),
  });
  target.res.flushHeaders();
}

/** Writes a streamed reply's chunks; `unfinished` leaves out the ones that close the message. */
async function writeChunks(
  target: ReplyTarget,
  reply: MessageReply,
  unfinished: boolean,
): Promise<void> {
  const rendered = target.renderer.stream({ ...target.context, reply });
  const chunks = unfinished
    ? rendered.chunks.slice(0, rendered.chunks.length - rendered.closing)
    : rendered.chunks;
  for (const [i, chunk] of chunks.entries()) {
    if (target.res.destroyed) return;
    if (i > 0 && reply.chunkDelayMs > 0) await wait(reply.chunkDelayMs);
    if (target.res.destroyed) return;
    target.res.write(chunk);
  }
}

function wholeBody(target: ReplyTarget, reply: MessageReply): string {
  return JSON.stringify(target.renderer.reply({ ...target.context, reply }));
}

function startJson(target: ReplyTarget): void {
  target.res.writeHead(200, {
    'content-type': 'application/json',
    ...target.renderer.headers(target.context.seq),
  });
}

async function breakConnection(target: ReplyTarget): Promise<void> {
  await wait(FLUSH_BEFORE_BREAK_MS);
  target.req.socket.destroy();
}

/** Answers a request with a reply whose outcome is fixed, in the target's wire format. */
export async function writeReply(target: ReplyTarget, reply: FixedReply): Promise<void> {
  const { res } = target;
  switch (reply.kind) {
    case 'message':
      if (target.stream) {
        startStream(target);
        await writeChunks(target, reply, false);
        res.end();
      } else {
        startJson(target);
        res.end(wholeBody(target, reply));
      }
      return;
    case 'error':
      writeError(res, target.renderer.error(reply, target.context.seq));
      return;
    case 'stall':
      if (target.stream) {
        startStream(target);
        if (reply.partial) await writeChunks(target, reply.partial, true);
      } else {
        startJson(target);
        res.flushHeaders();
      }
      if (!res.destroyed) target.stalls.hold(res);
      return;
    case 'reset':
      if (!reply.partial) {
        target.req.socket.destroy();
        return;
      }
      if (target.stream) {
        startStream(target);
        await writeChunks(target, reply.partial, true);
      } else {
        const body = wholeBody(target, reply.partial);
        startJson(target);
        res.write(body.slice(0, Math.floor(body.length / 2)));
      }
      await breakConnection(target);
      return;
  }
}

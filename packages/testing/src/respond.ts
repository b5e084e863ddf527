import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  type AnyWireRenderer,
  type FixedReply,
  type MessageReply,
  playWireResponse,
  type RenderContext,
  type RenderedError,
  type WireResponse,
} from '@yourtool/wire-formats';

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
  readonly renderer: AnyWireRenderer;
  readonly stream: boolean;
  readonly stalls: StallRegistry;
  /** Everything of the render context but the reply. */
  readonly context: Omit<RenderContext, 'reply'>;
}

/** An error response as a wire response. */
export function errorResponse(rendered: RenderedError): WireResponse {
  return {
    type: 'json',
    status: rendered.status,
    headers: { ...rendered.headers },
    body: rendered.body,
  };
}

/** Writes an error response. */
export function writeError(res: ServerResponse, rendered: RenderedError): void {
  res.writeHead(rendered.status, { 'content-type': 'application/json', ...rendered.headers });
  res.end(JSON.stringify(rendered.body));
}

/** A streamed reply's chunks; `unfinished` leaves out the ones that close the message. */
function streamed(
  target: ReplyTarget,
  reply: MessageReply | null,
  ending: 'end' | 'destroy' | 'stall',
): WireResponse {
  const { renderer } = target;
  const rendered = reply ? renderer.stream({ ...target.context, reply }) : null;
  const all = rendered?.chunks ?? [];
  const kept = ending === 'end' ? all.length : all.length - (rendered?.closing ?? 0);
  const pause = reply?.chunkDelayMs ?? 0;
  const common = {
    status: 200,
    headers: renderer.headers(target.context.seq),
    // the pause goes between chunks, not after the last
    delaysMs: Array.from({ length: kept }, (_, i) => (i < kept - 1 ? pause : 0)),
    ending,
  };
  if (renderer.streamContentType === 'application/vnd.amazon.eventstream') {
    const chunks = all.slice(0, kept).filter((c): c is Uint8Array => typeof c !== 'string');
    return { type: 'binary-stream', contentType: renderer.streamContentType, chunks, ...common };
  }
  const chunks = all.slice(0, kept).filter((c): c is string => typeof c === 'string');
  return { type: 'stream', contentType: renderer.streamContentType, chunks, ...common };
}

/** A whole reply's JSON body as text. */
function wholeBody(target: ReplyTarget, reply: MessageReply): string {
  return JSON.stringify(target.renderer.reply({ ...target.context, reply }));
}

/** A non-streamed body sent raw: whole, cut in half, or nothing after the headers. */
function rawJson(
  target: ReplyTarget,
  body: string,
  ending: 'end' | 'destroy' | 'stall',
): WireResponse {
  return {
    type: 'text',
    status: 200,
    headers: { 'content-type': 'application/json', ...target.renderer.headers(target.context.seq) },
    body,
    ending,
  };
}

/**
 * Renders a reply whose outcome is fixed in the target's wire format: what the request gets,
 * as a {@link WireResponse}.
 */
export function wireResponseOf(target: ReplyTarget, reply: FixedReply): WireResponse {
  switch (reply.kind) {
    case 'message':
      if (target.stream) return streamed(target, reply, 'end');
      return {
        type: 'json',
        status: 200,
        headers: target.renderer.headers(target.context.seq),
        body: target.renderer.reply({ ...target.context, reply }),
      };
    case 'error':
      return errorResponse(target.renderer.error(reply, target.context.seq));
    case 'stall':
      return target.stream
        ? streamed(target, reply.partial, 'stall')
        : rawJson(target, '', 'stall');
    case 'reset': {
      if (!reply.partial) return { type: 'hangup' };
      if (target.stream) return streamed(target, reply.partial, 'destroy');
      const body = wholeBody(target, reply.partial);
      return rawJson(target, body.slice(0, Math.floor(body.length / 2)), 'destroy');
    }
  }
}

/** Answers a request with a reply whose outcome is fixed, in the target's wire format. */
export async function writeReply(target: ReplyTarget, reply: FixedReply): Promise<void> {
  await playWireResponse(wireResponseOf(target, reply), {
    req: target.req,
    res: target.res,
    hold: (res) => {
      if (!res.destroyed) target.stalls.hold(res);
    },
  });
}

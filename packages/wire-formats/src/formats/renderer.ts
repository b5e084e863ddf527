import type { ErrorReply, MessageReply, ScriptedUsage } from '../reply.js';

/** What a renderer knows about the request a reply answers. */
export interface RenderContext {
  readonly reply: MessageReply;
  /** The model the request named (echoed back as the provider does). */
  readonly model: string;
  /** A counter of the provider's replies, for wire ids unique within its lifetime. */
  readonly seq: number;
  /** The request body, for options a format answers differently (`stream_options`). */
  readonly body: Readonly<Record<string, unknown>>;
}

/**
 * A streamed reply: its chunks, the last `closing` of which finish the message. Text formats'
 * chunks are strings (SSE events, NDJSON lines); Bedrock's are bytes (event-stream frames).
 */
export interface RenderedStream<Chunk extends string | Uint8Array = string> {
  readonly chunks: readonly Chunk[];
  /** How many trailing chunks close the message (left out when it stalls or breaks). */
  readonly closing: number;
}

/** An error response. */
export interface RenderedError {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: unknown;
}

/** The content type of a streamed reply whose chunks are `Chunk`. */
export type StreamContentType<Chunk extends string | Uint8Array> = Chunk extends string
  ? 'text/event-stream' | 'application/x-ndjson'
  : 'application/vnd.amazon.eventstream';

/**
 * Puts scripted replies into one wire format. `Chunk` is what a streamed reply is made of:
 * text (the default) or bytes (Bedrock's binary event stream).
 */
export interface WireRenderer<Chunk extends string | Uint8Array = string> {
  /** Content type of a streamed reply. */
  readonly streamContentType: StreamContentType<Chunk>;
  /** Headers on every successful reply (request ids). */
  headers(seq: number): Record<string, string>;
  /** The JSON body of a whole reply. */
  reply(context: RenderContext): unknown;
  /** A streamed reply's chunks, each a complete SSE event, NDJSON line or binary frame. */
  stream(context: RenderContext): RenderedStream<Chunk>;
  /** An error response. */
  error(failure: ErrorReply, seq: number): RenderedError;
}

/** A renderer of any wire format, text or binary. */
export type AnyWireRenderer = WireRenderer<string> | WireRenderer<Uint8Array>;

/** Canonical usage with every count present. */
export interface FullUsage {
  input: number;
  output: number;
  cached: number;
  cacheWrite: number;
  reasoning: number | null;
}

/** Fills in the optional counts of a scripted usage. */
export function fullUsage(usage: ScriptedUsage): FullUsage {
  return {
    input: usage.input_tokens,
    output: usage.output_tokens,
    cached: usage.cached_input_tokens ?? 0,
    cacheWrite: usage.cache_creation_input_tokens ?? 0,
    reasoning: usage.reasoning_tokens ?? null,
  };
}

/**
 * Where a format splits a streamed text (or a tool call's JSON input) into `chunks` deltas.
 * {@link splitInto} by default; a test matching recorded bytes passes the split they show.
 */
export type Splitter = (text: string, chunks: number) => readonly string[];

/** Splits `value` into at most `n` non-empty pieces of near-equal length (one piece if empty). */
export function splitInto(value: string, n: number): string[] {
  const chars = [...value];
  if (n <= 1 || chars.length <= 1) return [value];
  const count = Math.min(n, chars.length);
  const size = Math.ceil(chars.length / count);
  const out: string[] = [];
  for (let at = 0; at < chars.length; at += size) out.push(chars.slice(at, at + size).join(''));
  return out;
}

/** A server-sent event; `event` names it (Anthropic, Responses) or not (Chat Completions, Gemini). */
export function sse(data: unknown, event?: string): string {
  const line = `data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`;
  return event ? `event: ${event}\n${line}` : line;
}

/** A zero-padded counter for ids. */
export const pad = (n: number, width = 6): string => String(n).padStart(width, '0');

/** The retry hint headers: `retry-after` (seconds, as given) and `retry-after-ms`. */
export function retryHeaders(seconds: number | null): Record<string, string> {
  if (seconds === null) return {};
  return {
    'retry-after': String(seconds),
    'retry-after-ms': String(Math.round(seconds * 1000)),
  };
}

/** The HTTP status of an error reply whose status the format picks (`overloaded`, overflow). */
export function errorStatus(failure: ErrorReply, overloadedStatus: number): number {
  if (failure.status !== null) return failure.status;
  return failure.shape === 'overloaded' ? overloadedStatus : 400;
}

/** A generic phrase for an HTTP status, for formats whose error bodies are plain messages. */
export function statusPhrase(status: number): string {
  const phrases: Record<number, string> = {
    400: 'invalid request',
    401: 'invalid API key',
    403: 'permission denied',
    404: 'not found',
    408: 'request timed out',
    413: 'request too large',
    429: 'rate limit exceeded',
    500: 'internal server error',
    502: 'bad gateway',
    503: 'service unavailable',
    504: 'gateway timeout',
    529: 'overloaded',
  };
  return phrases[status] ?? (status >= 500 ? 'server error' : 'request failed');
}

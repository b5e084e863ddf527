import type {
  BlockPart,
  ErrorReply,
  ErrorShape,
  FixedReply,
  MessageReply,
  RedactedThinkingPart,
  ResetReply,
  ScriptedStopReason,
  ScriptedUsage,
  StallReply,
  TextPart,
  ThinkingPart,
  ToolCallPart,
} from '@yourtool/wire-formats';
import type { RecordedRequest } from './recorded-request.js';

/** Usage a reply reports when the script gives none. */
export const DEFAULT_SCRIPTED_USAGE: Readonly<Required<Omit<ScriptedUsage, 'reasoning_tokens'>>> =
  Object.freeze({
    input_tokens: 10,
    output_tokens: 5,
    cached_input_tokens: 0,
    cache_creation_input_tokens: 0,
  });

/** The token counts a reply reports. */
export interface UsagePart {
  readonly kind: 'usage';
  readonly usage: ScriptedUsage;
}

/** The stop reason a reply reports (default: `tool_use` when it calls a tool, else `end_turn`). */
export interface StopReasonPart {
  readonly kind: 'stop_reason';
  readonly reason: ScriptedStopReason;
}

/** A pause between the chunks of a streamed reply. */
export interface ChunkDelayPart {
  readonly kind: 'chunk_delay';
  readonly ms: number;
}

/** What one reply is made of: content blocks, in order, and how it reports and paces itself. */
export type ReplyPart = BlockPart | UsagePart | StopReasonPart | ChunkDelayPart;

/** What a reply function may return: a whole reply, one part, or the parts of a message. */
export type ReplyResult = FixedReply | ReplyPart | readonly ReplyPart[];

/** Decides the reply from the request it answers (interactive tests). */
export type ReplyFunction = (request: RecordedRequest) => ReplyResult | Promise<ReplyResult>;

/** One entry of the script: each model request consumes the next. */
export type ScriptedReply = FixedReply | ReplyFunction;

/** Options of the content builders that stream. */
export interface ChunkOptions {
  /** Deltas (or tool input fragments) to split it into, where the wire format streams them. Default 1. */
  chunks?: number;
}

function chunkCount(options: ChunkOptions | undefined, what: string): number {
  const chunks = options?.chunks ?? 1;
  if (!Number.isInteger(chunks) || chunks < 1) {
    throw new RangeError(`${what}: chunks must be a positive integer, got ${String(chunks)}`);
  }
  return chunks;
}

/**
 * Reply text. `text('Hello there', { chunks: 3 })` streams as three deltas.
 */
export function text(value: string, options?: ChunkOptions): TextPart {
  return { kind: 'text', text: value, chunks: chunkCount(options, 'text()') };
}

/** Options of {@link thinking}. */
export interface ThinkingOptions extends ChunkOptions {
  /** The provider's signature over the reasoning. Dropped by formats that carry none. */
  signature?: string;
}

/**
 * Visible reasoning. Anthropic, Gemini and the Responses API carry a signature; Ollama and
 * Chat-Completions-compatible servers (`reasoning_content`) do not; OpenAI's own Chat
 * Completions has no reasoning at all (the `openai` adapter ignores it).
 */
export function thinking(value: string, options?: ThinkingOptions): ThinkingPart {
  return {
    kind: 'thinking',
    text: value,
    signature: options?.signature ?? null,
    chunks: chunkCount(options, 'thinking()'),
  };
}

/** Encrypted reasoning; only Anthropic and the Responses API carry it (others drop it). */
export function redactedThinking(data: string): RedactedThinkingPart {
  if (data === '') throw new RangeError('redactedThinking(): data must not be empty');
  return { kind: 'redacted_thinking', data };
}

/** Options of {@link toolCall}. */
export interface ToolCallOptions extends ChunkOptions {
  /** The provider's call id (`toolu_…`, `call_…`); default: one made in the format's shape. */
  id?: string;
}

/**
 * A tool call. Anthropic, Chat Completions and the Responses API stream its input as
 * `chunks` fragments; Gemini and Ollama send calls whole.
 */
export function toolCall(
  name: string,
  input: Record<string, unknown> = {},
  options?: ToolCallOptions,
): ToolCallPart {
  if (name === '') throw new RangeError('toolCall(): name must not be empty');
  if (input === null || typeof input !== 'object' || Array.isArray(input)) {
    throw new TypeError(`toolCall(${name}): input must be a JSON object`);
  }
  return {
    kind: 'tool_call',
    name,
    input: structuredClone(input),
    id: options?.id ?? null,
    chunks: chunkCount(options, `toolCall(${name})`),
  };
}

/** The token counts the reply reports (default {@link DEFAULT_SCRIPTED_USAGE}). */
export function usage(counts: ScriptedUsage): UsagePart {
  for (const [field, value] of Object.entries(counts)) {
    if (value !== undefined && (!Number.isInteger(value) || value < 0)) {
      throw new RangeError(`usage(): ${field} must be a non-negative integer, got ${value}`);
    }
  }
  return { kind: 'usage', usage: { ...counts } };
}

/** The reply's stop reason, e.g. `stopReason('max_tokens')` for a reply cut at the limit. */
export function stopReason(reason: ScriptedStopReason): StopReasonPart {
  return { kind: 'stop_reason', reason };
}

/** Pauses `ms` between the chunks of a streamed reply (to cancel mid-stream, say). */
export function chunkDelay(ms: number): ChunkDelayPart {
  if (!Number.isFinite(ms) || ms < 0) throw new RangeError(`chunkDelay(): bad delay ${ms}`);
  return { kind: 'chunk_delay', ms };
}

const PART_KINDS: ReadonlySet<string> = new Set([
  'text',
  'thinking',
  'redacted_thinking',
  'tool_call',
  'usage',
  'stop_reason',
  'chunk_delay',
]);

/** Whether `value` is a {@link ReplyPart}. */
export function isReplyPart(value: unknown): value is ReplyPart {
  return (
    value !== null &&
    typeof value === 'object' &&
    PART_KINDS.has(String((value as { kind?: unknown }).kind))
  );
}

/**
 * A whole model reply from its parts, in order (for {@link ScriptedProvider.enqueue} or a
 * reply function). `provider.reply(...parts)` is the short form.
 */
export function message(...parts: readonly ReplyPart[]): MessageReply {
  const blocks: BlockPart[] = [];
  let counts: ScriptedUsage | undefined;
  let reason: ScriptedStopReason | undefined;
  let chunkDelayMs = 0;
  for (const part of parts) {
    if (!isReplyPart(part)) {
      throw new TypeError(
        'message(): every argument must be a reply part (text(), thinking(), toolCall(), usage(), ...); errors, stalls and resets are whole replies of their own',
      );
    }
    if (part.kind === 'usage') counts = part.usage;
    else if (part.kind === 'stop_reason') reason = part.reason;
    else if (part.kind === 'chunk_delay') chunkDelayMs = part.ms;
    else blocks.push(part);
  }
  return {
    kind: 'message',
    blocks,
    usage: { ...DEFAULT_SCRIPTED_USAGE, ...counts },
    stopReason: reason ?? (blocks.some((b) => b.kind === 'tool_call') ? 'tool_use' : 'end_turn'),
    chunkDelayMs,
  };
}

/** Options of the error builders. */
export interface ErrorOptions {
  /** The provider's message (default: its usual wording for the condition). */
  message?: string;
  /** A retry hint, sent as `retry-after` and `retry-after-ms` (Gemini: also `RetryInfo`). */
  retryAfterSeconds?: number;
}

function errorReply(status: number | null, shape: ErrorShape, options?: ErrorOptions): ErrorReply {
  const retry = options?.retryAfterSeconds;
  if (retry !== undefined && (!Number.isFinite(retry) || retry < 0)) {
    throw new RangeError(`retryAfterSeconds must be a non-negative number, got ${retry}`);
  }
  return {
    kind: 'error',
    status,
    shape,
    message: options?.message ?? null,
    retryAfterSeconds: retry ?? null,
  };
}

/**
 * An HTTP error with the provider's error body for that status: `httpError(429, {
 * retryAfterSeconds: 1 })`, `httpError(401)`, `httpError(500)`, `httpError(529)` (Anthropic's
 * overload status, sent as is to every format).
 */
export function httpError(status: number, options?: ErrorOptions): ErrorReply {
  if (!Number.isInteger(status) || status < 400 || status > 599) {
    throw new RangeError(`httpError(): status must be 400-599, got ${status}`);
  }
  return errorReply(status, 'status', options);
}

/**
 * The provider's own overload signal: Anthropic 529 `overloaded_error`, OpenAI 503, Gemini 503
 * `UNAVAILABLE`, Ollama 503 "server busy". Adapters retry it; the session may fall back.
 */
export function overloaded(options?: ErrorOptions): ErrorReply {
  return errorReply(null, 'overloaded', options);
}

/**
 * The provider's 400 for a prompt over the model's window, worded as each provider words it, so
 * the adapter maps it to `context_overflow` (which a session may answer by compacting).
 */
export function contextOverflow(options?: Omit<ErrorOptions, 'retryAfterSeconds'>): ErrorReply {
  return errorReply(null, 'context_overflow', options);
}

function partial(parts: readonly ReplyPart[], what: string): MessageReply | null {
  if (parts.length === 0) return null;
  if (!parts.every(isReplyPart)) throw new TypeError(`${what}: arguments must be reply parts`);
  return message(...parts);
}

/**
 * A response that goes silent. `stall()`: the headers, then nothing (the adapter's idle or
 * total timeout must end the call). `stall(text('Hel'))`: a streamed reply sends these parts,
 * unfinished, then nothing. Held until the client goes away, `provider.clear()`,
 * `provider.close()` or the provider's `stallLimitMs`.
 */
export function stall(...parts: readonly ReplyPart[]): StallReply {
  return { kind: 'stall', partial: partial(parts, 'stall()') };
}

/**
 * A connection destroyed. `reset()`: before any answer (a network failure before the first
 * event). `reset(text('Hel'))`: a streamed reply sends these parts, unfinished, then the socket
 * is destroyed (a non-streamed one breaks mid-body).
 */
export function reset(...parts: readonly ReplyPart[]): ResetReply {
  return { kind: 'reset', partial: partial(parts, 'reset()') };
}

/** Whether `value` is a whole reply (message, error, stall, reset) rather than a part. */
export function isFixedReply(value: unknown): value is FixedReply {
  const kind = (value as { kind?: unknown } | null)?.kind;
  return kind === 'message' || kind === 'error' || kind === 'stall' || kind === 'reset';
}

/** A reply function's result as a whole reply. */
export function toFixedReply(result: ReplyResult): FixedReply {
  if (Array.isArray(result)) return message(...(result as readonly ReplyPart[]));
  if (isFixedReply(result)) return result;
  if (isReplyPart(result)) return message(result);
  throw new TypeError(
    'a reply function must return a reply (message(), httpError(), stall(), reset()), a reply part, or an array of parts',
  );
}

/**
 * The canonical reply a wire format renders: content blocks, usage, a stop reason, or an HTTP
 * error, a stall or a reset. `@yourtool/testing` builds them from its script builders.
 */

/**
 * Token counts a scripted reply reports, in canonical terms (core's `TokenUsage`):
 * `input_tokens` excludes cache reads, which are `cached_input_tokens`. Each wire format gets
 * them in its own shape (OpenAI and Gemini count cached tokens inside the prompt total), so the
 * adapter reading them back arrives at these numbers.
 */
export interface ScriptedUsage {
  input_tokens: number;
  output_tokens: number;
  /** Input tokens read from the provider's prompt cache. Default 0. */
  cached_input_tokens?: number;
  /** Input tokens written to the cache (Anthropic only reports them). Default 0. */
  cache_creation_input_tokens?: number;
  /** Of `output_tokens`, how many were spent reasoning, where the wire reports it. */
  reasoning_tokens?: number;
}

/** Why a scripted reply ends: each wire format spells it its own way. */
export type ScriptedStopReason = 'end_turn' | 'tool_use' | 'max_tokens' | 'stop_sequence';

/** Reply text, streamed as `chunks` deltas. */
export interface TextPart {
  readonly kind: 'text';
  readonly text: string;
  readonly chunks: number;
}

/** Visible reasoning, with the provider's signature where the wire format carries one. */
export interface ThinkingPart {
  readonly kind: 'thinking';
  readonly text: string;
  /** Anthropic `signature`, Gemini `thoughtSignature`, Responses `encrypted_content`. */
  readonly signature: string | null;
  readonly chunks: number;
}

/** Encrypted reasoning (Anthropic `redacted_thinking`, a Responses reasoning item with no summary). */
export interface RedactedThinkingPart {
  readonly kind: 'redacted_thinking';
  readonly data: string;
}

/** A tool call; its JSON input is streamed as `chunks` fragments where the wire streams them. */
export interface ToolCallPart {
  readonly kind: 'tool_call';
  readonly name: string;
  readonly input: Readonly<Record<string, unknown>>;
  /** The provider's call id; `null` lets the server make one in the wire format's shape. */
  readonly id: string | null;
  readonly chunks: number;
}

/** A block of a reply's content. */
export type BlockPart = TextPart | ThinkingPart | RedactedThinkingPart | ToolCallPart;

/** A model reply: rendered in the wire format of the request that consumes it. */
export interface MessageReply {
  readonly kind: 'message';
  readonly blocks: readonly BlockPart[];
  readonly usage: ScriptedUsage;
  readonly stopReason: ScriptedStopReason;
  /** Pause between streamed chunks, in ms. */
  readonly chunkDelayMs: number;
}

/**
 * How an error reply is shaped: `status` renders the provider's error for the HTTP status;
 * `overloaded` and `context_overflow` render the provider's own signal for those conditions.
 */
export type ErrorShape = 'status' | 'overloaded' | 'context_overflow';

/** An HTTP error in the wire format of the request that consumes it. */
export interface ErrorReply {
  readonly kind: 'error';
  /** The HTTP status; for `overloaded` and `context_overflow`, the provider's own. */
  readonly status: number | null;
  readonly shape: ErrorShape;
  /** The provider message; `null` uses the provider's usual wording. */
  readonly message: string | null;
  /** Sent as `retry-after` / `retry-after-ms` (Gemini: also `RetryInfo`). */
  readonly retryAfterSeconds: number | null;
}

/** A response that goes silent: headers (and `partial`, when streaming) and then nothing. */
export interface StallReply {
  readonly kind: 'stall';
  /** What a streamed reply sends before falling silent; `null`: nothing after the headers. */
  readonly partial: MessageReply | null;
}

/** A connection destroyed: before any answer, or mid-stream after `partial`. */
export interface ResetReply {
  readonly kind: 'reset';
  /** What is sent before the connection breaks; `null`: it breaks before any answer. */
  readonly partial: MessageReply | null;
}

/** A reply with its outcome fixed. */
export type FixedReply = MessageReply | ErrorReply | StallReply | ResetReply;

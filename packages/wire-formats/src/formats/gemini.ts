import type { BlockPart, ErrorReply } from '../reply.js';
import {
  errorStatus,
  fullUsage,
  pad,
  type RenderContext,
  type RenderedError,
  type RenderedStream,
  retryHeaders,
  type Splitter,
  splitInto,
  sse,
  statusPhrase,
  type WireRenderer,
} from './renderer.js';

/**
 * The Gemini API (`POST …/models/{model}:generateContent`, `:streamGenerateContent?alt=sse`, as
 * `@google/genai` calls it): a `GenerateContentResponse`, or one per server-sent event. Thinking
 * is a `thought: true` part (its signature a `thoughtSignature`, on the last piece when
 * streamed); function calls are sent whole; the last chunk carries `finishReason` and the full
 * `usageMetadata` (thoughts counted apart from candidates). Redacted thinking has no place here.
 */

type Json = Record<string, unknown>;

/**
 * How a Gemini reply departs from the defaults: the details a fixture recorded from the live
 * API shows, for a test that must reproduce its bytes. Every option is off by default.
 */
export interface GeminiWireOptions {
  /** The `responseId` of the reply and of each streamed chunk. Default `resp_testing<seq>`. */
  readonly responseId?: string;
  /**
   * A `thoughtSignature` on the reply's first function call (parallel calls: only the first),
   * as Gemini 3 signs them. Default none.
   */
  readonly callSignature?: string;
  /** Per-modality counts (`promptTokensDetails`, `cacheTokensDetails`) in `usageMetadata`. */
  readonly modalityDetails?: boolean;
  /** A running `totalTokenCount` (the prompt's) on every streamed chunk before the last. */
  readonly runningTotal?: boolean;
  /** End each server-sent event in CRLF (`\r\n\r\n`), as the live API does. Default LF. */
  readonly crlf?: boolean;
  /**
   * When a stream closes in a chunk of its own (an empty text part): `always` (the default), or
   * only `after-function-call`, the last part's chunk carrying `finishReason` otherwise.
   */
  readonly closingChunk?: 'always' | 'after-function-call';
  /** Where streamed text and thinking are split. Default {@link splitInto}. */
  readonly split?: Splitter;
  /** `details` an error carries before its `RetryInfo` (`QuotaFailure`, `ErrorInfo`). */
  readonly errorDetails?: readonly Readonly<Json>[];
  /** Whether the retry hint is sent as `retry-after` headers too, not only as `RetryInfo`. Default true. */
  readonly retryHeaders?: boolean;
}

function part(block: BlockPart): Json | null {
  switch (block.kind) {
    case 'text':
      return { text: block.text };
    case 'thinking':
      return {
        text: block.text,
        thought: true,
        ...(block.signature ? { thoughtSignature: block.signature } : {}),
      };
    case 'redacted_thinking':
      return null;
    case 'tool_call':
      return {
        functionCall: {
          ...(block.id ? { id: block.id } : {}),
          name: block.name,
          args: block.input,
        },
      };
  }
}

/** Each block with its wire part (none for redacted thinking), the first call signed if asked. */
function parts(context: RenderContext, options: GeminiWireOptions): Array<[BlockPart, Json]> {
  let signature = options.callSignature;
  return context.reply.blocks.flatMap((block): Array<[BlockPart, Json]> => {
    const wire = part(block);
    if (!wire) return [];
    if (block.kind === 'tool_call' && signature !== undefined) {
      wire.thoughtSignature = signature;
      signature = undefined;
    }
    return [[block, wire]];
  });
}

function usageMetadata(context: RenderContext, options: GeminiWireOptions): Json {
  const usage = fullUsage(context.reply.usage);
  const prompt = usage.input + usage.cached;
  const thoughts = Math.min(usage.reasoning ?? 0, usage.output);
  const modality = (tokenCount: number) => [{ modality: 'TEXT', tokenCount }];
  return {
    promptTokenCount: prompt,
    candidatesTokenCount: usage.output - thoughts,
    ...(usage.cached > 0 ? { cachedContentTokenCount: usage.cached } : {}),
    ...(thoughts > 0 ? { thoughtsTokenCount: thoughts } : {}),
    totalTokenCount: prompt + usage.output,
    ...(options.modalityDetails ? { promptTokensDetails: modality(prompt) } : {}),
    ...(options.modalityDetails && usage.cached > 0
      ? { cacheTokensDetails: modality(usage.cached) }
      : {}),
  };
}

/** The usage a chunk before the last reports: the prompt only. */
function runningUsage(context: RenderContext, options: GeminiWireOptions): Json {
  const { promptTokenCount, promptTokensDetails } = usageMetadata(context, options);
  return {
    promptTokenCount,
    ...(options.runningTotal ? { totalTokenCount: promptTokenCount } : {}),
    ...(options.modalityDetails ? { promptTokensDetails } : {}),
  };
}

const finishReason = (context: RenderContext) =>
  context.reply.stopReason === 'max_tokens' ? 'MAX_TOKENS' : 'STOP';

function response(
  context: RenderContext,
  options: GeminiWireOptions,
  parts: Json[],
  last: boolean,
): Json {
  return {
    candidates: [
      {
        content: { role: 'model', parts },
        ...(last ? { finishReason: finishReason(context) } : {}),
        index: 0,
      },
    ],
    usageMetadata: last ? usageMetadata(context, options) : runningUsage(context, options),
    modelVersion: context.model,
    responseId: options.responseId ?? `resp_testing${pad(context.seq)}`,
  };
}

/** The parts of one block as streamed: text split in pieces, the signature on the last. */
function streamedParts(block: BlockPart, whole: Json, split: Splitter): Json[] {
  if (block.kind !== 'text' && block.kind !== 'thinking') return [whole];
  const pieces = split(block.text, block.chunks);
  return pieces.map((text, i) => {
    const piece: Json = { ...whole, text };
    if (i < pieces.length - 1) delete piece.thoughtSignature;
    return piece;
  });
}

function stream(context: RenderContext, options: GeminiWireOptions): RenderedStream {
  const split = options.split ?? splitInto;
  const pieces = parts(context, options).flatMap(([block, whole]) =>
    streamedParts(block, whole, split),
  );
  // Gemini closes a reply in a chunk of its own after a function call
  const afterCall = pieces.at(-1)?.functionCall !== undefined;
  if (options.closingChunk !== 'after-function-call' || afterCall) pieces.push({ text: '' });
  const chunks = pieces.map((piece, i) => {
    const event = sse(response(context, options, [piece], i === pieces.length - 1));
    return options.crlf ? `${event.slice(0, -2)}\r\n\r\n` : event;
  });
  return { chunks, closing: 1 };
}

const STATUSES: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  429: 'RESOURCE_EXHAUSTED',
  500: 'INTERNAL',
  503: 'UNAVAILABLE',
  504: 'DEADLINE_EXCEEDED',
};

function error(failure: ErrorReply, options: GeminiWireOptions): RenderedError {
  const code = errorStatus(failure, 503);
  const status = STATUSES[code] ?? (code >= 500 ? 'UNKNOWN' : 'FAILED_PRECONDITION');
  const message =
    failure.message ??
    (failure.shape === 'context_overflow'
      ? 'The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).'
      : failure.shape === 'overloaded'
        ? 'The model is overloaded. Please try again later.'
        : `scripted ${code}: ${statusPhrase(code)}`);
  const details: Json[] = [...(options.errorDetails ?? [])];
  if (failure.retryAfterSeconds !== null) {
    details.push({
      '@type': 'type.googleapis.com/google.rpc.RetryInfo',
      retryDelay: `${failure.retryAfterSeconds}s`,
    });
  }
  return {
    status: code,
    headers: {
      'content-type': 'application/json; charset=UTF-8',
      ...(options.retryHeaders === false ? {} : retryHeaders(failure.retryAfterSeconds)),
    },
    body: { error: { code, message, status, ...(details.length > 0 ? { details } : {}) } },
  };
}

/** A Gemini renderer with `options` (see {@link GeminiWireOptions}). */
export function geminiFormat(options: GeminiWireOptions = {}): WireRenderer {
  return {
    streamContentType: 'text/event-stream',
    headers: () => ({}),
    reply: (context) =>
      response(
        context,
        options,
        parts(context, options).map(([, wire]) => wire),
        true,
      ),
    stream: (context) => stream(context, options),
    error: (failure) => error(failure, options),
  };
}

/** The Gemini renderer, with the default shape. */
export const geminiRenderer: WireRenderer = geminiFormat();

import type { BlockPart, ErrorReply } from '../reply.js';
import {
  errorStatus,
  fullUsage,
  pad,
  type RenderContext,
  type RenderedError,
  type RenderedStream,
  retryHeaders,
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

function usageMetadata(context: RenderContext): Json {
  const usage = fullUsage(context.reply.usage);
  const prompt = usage.input + usage.cached;
  const thoughts = Math.min(usage.reasoning ?? 0, usage.output);
  return {
    promptTokenCount: prompt,
    candidatesTokenCount: usage.output - thoughts,
    ...(usage.cached > 0 ? { cachedContentTokenCount: usage.cached } : {}),
    ...(thoughts > 0 ? { thoughtsTokenCount: thoughts } : {}),
    totalTokenCount: prompt + usage.output,
  };
}

const finishReason = (context: RenderContext) =>
  context.reply.stopReason === 'max_tokens' ? 'MAX_TOKENS' : 'STOP';

function response(context: RenderContext, parts: Json[], last: boolean): Json {
  return {
    candidates: [
      {
        content: { role: 'model', parts },
        ...(last ? { finishReason: finishReason(context) } : {}),
        index: 0,
      },
    ],
    usageMetadata: last
      ? usageMetadata(context)
      : { promptTokenCount: usageMetadata(context).promptTokenCount },
    modelVersion: context.model,
    responseId: `resp_testing${pad(context.seq)}`,
  };
}

/** The parts of one block as streamed: text split in pieces, the signature on the last. */
function streamedParts(block: BlockPart): Json[] {
  const whole = part(block);
  if (!whole) return [];
  if (block.kind !== 'text' && block.kind !== 'thinking') return [whole];
  const pieces = splitInto(block.text, block.chunks);
  return pieces.map((text, i) => {
    const piece: Json = { ...whole, text };
    if (i < pieces.length - 1) delete piece.thoughtSignature;
    return piece;
  });
}

function stream(context: RenderContext): RenderedStream {
  const chunks = context.reply.blocks
    .flatMap(streamedParts)
    .map((piece) => sse(response(context, [piece], false)));
  // Gemini closes a reply in a chunk of its own after a function call; here always
  chunks.push(sse(response(context, [{ text: '' }], true)));
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

function error(failure: ErrorReply, _seq: number): RenderedError {
  const code = errorStatus(failure, 503);
  const status = STATUSES[code] ?? (code >= 500 ? 'UNKNOWN' : 'FAILED_PRECONDITION');
  const message =
    failure.message ??
    (failure.shape === 'context_overflow'
      ? 'The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).'
      : failure.shape === 'overloaded'
        ? 'The model is overloaded. Please try again later.'
        : `scripted ${code}: ${statusPhrase(code)}`);
  const details =
    failure.retryAfterSeconds === null
      ? []
      : [
          {
            '@type': 'type.googleapis.com/google.rpc.RetryInfo',
            retryDelay: `${failure.retryAfterSeconds}s`,
          },
        ];
  return {
    status: code,
    headers: {
      'content-type': 'application/json; charset=UTF-8',
      ...retryHeaders(failure.retryAfterSeconds),
    },
    body: { error: { code, message, status, ...(details.length > 0 ? { details } : {}) } },
  };
}

/** The Gemini renderer. */
export const geminiRenderer: WireRenderer = {
  streamContentType: 'text/event-stream',
  headers: () => ({}),
  reply: (context) =>
    response(
      context,
      context.reply.blocks.flatMap((block): Json[] => {
        const wire = part(block);
        return wire ? [wire] : [];
      }),
      true,
    ),
  stream,
  error,
};

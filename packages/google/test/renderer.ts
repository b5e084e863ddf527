import type {
  ExpectedBlock,
  ExpectedFailure,
  ExpectedReply,
  FixtureRenderer,
  RenderedError,
} from '@yourtool/conformance';
import {
  type BlockPart,
  type ErrorReply,
  geminiFormat,
  type RenderContext,
  type WireRenderer,
} from '@yourtool/wire-formats';

/**
 * Puts the conformance suite's expected replies into the Gemini API's wire format through
 * `@yourtool/wire-formats` (the one implementation of it), with the details of the recordings
 * of gemini-3-pro-preview: the first function call of a reply carrying a `thoughtSignature`,
 * per-modality token counts, text and thinking split in two, a closing chunk of its own only
 * after a function call, the live API's error bodies.
 */

export const MODEL_VERSION = 'gemini-3-pro-preview';
/** The signature the recorded first function call of a reply carries. */
export const CALL_SIGNATURE = 'CiQBjz1rXxConformanceFunctionCallSignature0A==';

/** A stable `responseId` per scenario. */
function responseId(reply: ExpectedReply, n = 0): string {
  let hash = 7;
  for (const ch of `${reply.scenario}:${n}`) hash = (hash * 31 + ch.charCodeAt(0)) >>> 0;
  return `resp_${hash.toString(36)}`;
}

/** The recordings split streamed text in two halves, the first the shorter. */
function splitInTwo(text: string): string[] {
  if (text.length < 2) return [text];
  const at = Math.max(1, Math.floor(text.length / 2));
  return [text.slice(0, at), text.slice(at)];
}

function block(expected: ExpectedBlock): BlockPart {
  switch (expected.type) {
    case 'text':
      return { kind: 'text', text: expected.text, chunks: 2 };
    case 'thinking':
      return {
        kind: 'thinking',
        text: expected.text,
        signature: expected.signature ?? null,
        chunks: 2,
      };
    case 'redacted_thinking':
      throw new Error('Gemini has no redacted thinking');
    case 'tool_use':
      return { kind: 'tool_call', name: expected.name, input: expected.input, id: null, chunks: 1 };
  }
}

/** The reply as the shared format takes it: thoughts are two thirds of the output tokens. */
function context(reply: ExpectedReply): RenderContext {
  const { input_tokens, output_tokens, cached_input_tokens } = reply.usage;
  const thinks = reply.content.some((b) => b.type === 'thinking');
  return {
    reply: {
      kind: 'message',
      blocks: reply.content.map(block),
      usage: {
        input_tokens,
        output_tokens,
        cached_input_tokens,
        reasoning_tokens: thinks ? Math.floor((output_tokens * 2) / 3) : 0,
      },
      stopReason: reply.stop_reason,
      chunkDelayMs: 0,
    },
    model: MODEL_VERSION,
    seq: 0,
    body: {},
  };
}

function format(reply: ExpectedReply): WireRenderer {
  return geminiFormat({
    responseId: responseId(reply),
    callSignature: CALL_SIGNATURE,
    modalityDetails: true,
    runningTotal: true,
    closingChunk: 'after-function-call',
    split: splitInTwo,
  });
}

/** The part a streamed chunk carries. */
function chunkPart(chunk: string): Record<string, unknown> {
  const body = JSON.parse(chunk.slice('data: '.length)) as {
    candidates: Array<{ content: { parts: Array<Record<string, unknown>> } }>;
  };
  return body.candidates[0]?.content.parts[0] ?? {};
}

/** Up to and including the chunk `cut` names; function calls are sent whole. */
function cutShort(chunks: readonly string[], cut: NonNullable<ExpectedReply['cut']>): string[] {
  const index = chunks.findIndex((chunk) => {
    const part = chunkPart(chunk);
    return cut.after === 'first-text-delta'
      ? typeof part.text === 'string' && part.thought !== true
      : part.functionCall !== undefined;
  });
  return chunks.slice(0, index + 1);
}

/** The recorded error of each failure: its status, message and `details`. */
const ERRORS: Record<
  ExpectedFailure['failure'],
  { code: number; message: string; details?: Array<Record<string, unknown>> }
> = {
  rate_limit: {
    code: 429,
    message:
      'You exceeded your current quota, please check your plan and billing details. For more information on this error, head to: https://ai.google.dev/gemini-api/docs/rate-limits.',
    details: [
      {
        '@type': 'type.googleapis.com/google.rpc.QuotaFailure',
        violations: [
          {
            quotaMetric: 'generativelanguage.googleapis.com/generate_content_free_tier_requests',
            quotaId: 'GenerateRequestsPerMinutePerProjectPerModel-FreeTier',
          },
        ],
      },
    ],
  },
  auth: {
    code: 400,
    message: 'API key not valid. Please pass a valid API key.',
    details: [
      {
        '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
        reason: 'API_KEY_INVALID',
        domain: 'googleapis.com',
        metadata: { service: 'generativelanguage.googleapis.com' },
      },
    ],
  },
  server_error: {
    code: 500,
    message:
      'An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting',
  },
  context_overflow: {
    code: 400,
    message:
      'The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).',
  },
  invalid_request: {
    code: 400,
    message: '* GenerateContentRequest.contents[0].parts: contents.parts must not be empty.\n',
  },
  overloaded: { code: 503, message: 'The model is overloaded. Please try again later.' },
};

/** The Gemini API renderer for `renderFixtures`. */
export const geminiRenderer: FixtureRenderer = {
  streamFormat: 'sse',
  headers: { 'x-gemini-service-tier': 'standard' },
  reply: (reply) => format(reply).reply(context(reply)),
  stream: (reply) => {
    const { chunks } = format(reply).stream(context(reply));
    return reply.cut ? cutShort(chunks, reply.cut) : [...chunks];
  },
  error: (failure): RenderedError => {
    const recorded = ERRORS[failure.failure];
    const error: ErrorReply = {
      kind: 'error',
      status: recorded.code,
      shape: 'status',
      message: recorded.message,
      retryAfterSeconds: failure.retryAfterSeconds ?? null,
    };
    const rendered = geminiFormat({
      errorDetails: recorded.details ?? [],
      retryHeaders: false,
    }).error(error, 0);
    return { status: rendered.status, headers: { ...rendered.headers }, body: rendered.body };
  },
};

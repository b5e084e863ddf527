import type {
  ExpectedBlock,
  ExpectedFailure,
  ExpectedReply,
  FixtureRenderer,
  RenderedError,
} from '@yourtool/conformance';

/**
 * Puts the conformance suite's expected replies into the Gemini API's documented wire format
 * (`GenerateContentResponse` JSON; `streamGenerateContent?alt=sse` events), the way
 * gemini-3-pro-preview answers: function calls whole, the first function call of a reply
 * carrying a `thoughtSignature` (parallel calls: only the first), thought summaries as
 * `thought: true` parts, usage with thoughts counted apart from candidates.
 */

export const MODEL_VERSION = 'gemini-3-pro-preview';
/** The signature the recorded first function call of a reply carries. */
export const CALL_SIGNATURE = 'CiQBjz1rXxConformanceFunctionCallSignature0A==';

type Part = Record<string, unknown>;

function parts(blocks: readonly ExpectedBlock[]): Part[] {
  let signed = false;
  return blocks.map((block): Part => {
    switch (block.type) {
      case 'text':
        return { text: block.text };
      case 'thinking':
        return {
          text: block.text,
          thought: true,
          ...(block.signature ? { thoughtSignature: block.signature } : {}),
        };
      case 'redacted_thinking':
        throw new Error('Gemini has no redacted thinking');
      case 'tool_use': {
        const part: Part = { functionCall: { name: block.name, args: block.input } };
        if (!signed) {
          part.thoughtSignature = CALL_SIGNATURE;
          signed = true;
        }
        return part;
      }
    }
    throw new Error('unreachable');
  });
}

function usageMetadata(reply: ExpectedReply): Record<string, unknown> {
  const { input_tokens, output_tokens, cached_input_tokens } = reply.usage;
  const thinks = reply.content.some((b) => b.type === 'thinking');
  const thoughts = thinks ? Math.floor((output_tokens * 2) / 3) : 0;
  const candidates = output_tokens - thoughts;
  const prompt = input_tokens + cached_input_tokens;
  return {
    promptTokenCount: prompt,
    candidatesTokenCount: candidates,
    ...(cached_input_tokens > 0 ? { cachedContentTokenCount: cached_input_tokens } : {}),
    ...(thoughts > 0 ? { thoughtsTokenCount: thoughts } : {}),
    totalTokenCount: prompt + candidates + thoughts,
    promptTokensDetails: [{ modality: 'TEXT', tokenCount: prompt }],
    ...(cached_input_tokens > 0
      ? { cacheTokensDetails: [{ modality: 'TEXT', tokenCount: cached_input_tokens }] }
      : {}),
  };
}

/** Gemini ends text, tool-call and stop-sequence replies alike with `STOP`. */
const finishReason = (_reply: ExpectedReply) => 'STOP' as const;

function responseId(reply: ExpectedReply, n = 0): string {
  let hash = 7;
  for (const ch of `${reply.scenario}:${n}`) hash = (hash * 31 + ch.charCodeAt(0)) >>> 0;
  return `resp_${hash.toString(36)}`;
}

function splitInTwo(text: string): string[] {
  if (text.length < 2) return [text];
  const at = Math.max(1, Math.floor(text.length / 2));
  return [text.slice(0, at), text.slice(at)];
}

const sse = (body: unknown) => `data: ${JSON.stringify(body)}\n\n`;

const ERRORS: Record<
  ExpectedFailure['failure'],
  { code: number; status: string; message: string; details?: Array<Record<string, unknown>> }
> = {
  rate_limit: {
    code: 429,
    status: 'RESOURCE_EXHAUSTED',
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
    status: 'INVALID_ARGUMENT',
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
    status: 'INTERNAL',
    message:
      'An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting',
  },
  context_overflow: {
    code: 400,
    status: 'INVALID_ARGUMENT',
    message:
      'The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).',
  },
  invalid_request: {
    code: 400,
    status: 'INVALID_ARGUMENT',
    message: '* GenerateContentRequest.contents[0].parts: contents.parts must not be empty.\n',
  },
  overloaded: {
    code: 503,
    status: 'UNAVAILABLE',
    message: 'The model is overloaded. Please try again later.',
  },
};

/** The Gemini API renderer for `renderFixtures`. */
export const geminiRenderer: FixtureRenderer = {
  streamFormat: 'sse',
  headers: { 'x-gemini-service-tier': 'standard' },
  reply: (reply) => ({
    candidates: [
      {
        content: { role: 'model', parts: parts(reply.content) },
        finishReason: finishReason(reply),
        index: 0,
      },
    ],
    usageMetadata: usageMetadata(reply),
    modelVersion: MODEL_VERSION,
    responseId: responseId(reply),
  }),
  stream: (reply) => {
    // one part per chunk; text and thinking split in two; function calls whole
    const pieces: Part[] = [];
    const whole = parts(reply.content);
    whole.forEach((part) => {
      if (typeof part.text === 'string') {
        const texts = splitInTwo(part.text);
        texts.forEach((text, i) => {
          const last = i === texts.length - 1;
          const piece: Part = { ...part, text };
          if (!last) delete piece.thoughtSignature;
          pieces.push(piece);
        });
      } else {
        pieces.push(part);
      }
    });
    const usage = usageMetadata(reply);
    const chunks: string[] = [];
    // after a function call Gemini closes the reply in a chunk of its own (an empty text part)
    const closing = pieces.at(-1)?.functionCall !== undefined;
    if (closing) pieces.push({ text: '' });
    pieces.forEach((part, i) => {
      const last = i === pieces.length - 1;
      const chunk: Record<string, unknown> = {
        candidates: [
          {
            content: { role: 'model', parts: [part] },
            ...(last ? { finishReason: finishReason(reply) } : {}),
            index: 0,
          },
        ],
        usageMetadata: last
          ? usage
          : {
              promptTokenCount: usage.promptTokenCount,
              totalTokenCount: usage.promptTokenCount,
              promptTokensDetails: usage.promptTokensDetails,
            },
        modelVersion: MODEL_VERSION,
        responseId: responseId(reply),
      };
      chunks.push(sse(chunk));
    });
    if (!reply.cut) return chunks;
    const index = pieces.findIndex((p) =>
      reply.cut?.after === 'first-text-delta'
        ? typeof p.text === 'string' && p.thought !== true
        : p.functionCall !== undefined,
    );
    return chunks.slice(0, index + 1);
  },
  error: (failure): RenderedError => {
    const shape = ERRORS[failure.failure];
    const details = [...(shape.details ?? [])];
    if (failure.retryAfterSeconds !== undefined) {
      details.push({
        '@type': 'type.googleapis.com/google.rpc.RetryInfo',
        retryDelay: `${failure.retryAfterSeconds}s`,
      });
    }
    return {
      status: shape.code,
      headers: { 'content-type': 'application/json; charset=UTF-8' },
      body: {
        error: {
          code: shape.code,
          message: shape.message,
          status: shape.status,
          ...(details.length > 0 ? { details } : {}),
        },
      },
    };
  },
};

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
  openAIResponsesFormat,
  type RenderContext,
  type WireRenderer,
} from '@yourtool/wire-formats';

/**
 * Puts the conformance suite's expected replies into the Responses API's wire format through
 * `@yourtool/wire-formats` (the one implementation of it), with the details of the recordings
 * of gpt-5 answering with `store: false` and
 * `include: ["reasoning.encrypted_content"]`: reasoning as `reasoning` items (summary parts and
 * `encrypted_content`), text as `message` items with `output_text` parts, tool calls as
 * `function_call` items with a `call_id`, usage with `input_tokens_details.cached_tokens` and
 * `output_tokens_details.reasoning_tokens`.
 */

export const MODEL = 'gpt-5-2025-08-07';

function hash(text: string): string {
  let h = 7;
  for (const ch of text) h = (h * 31 + ch.charCodeAt(0)) >>> 0;
  return h.toString(16).padStart(8, '0');
}

/** A stable id of the shape OpenAI uses (`resp_`, `rs_`, `msg_`, `fc_` + 48 hex digits). */
function wireId(prefix: string, seed: string): string {
  let out = '';
  for (let round = 0; out.length < 48; round++) out += hash(`${seed}|${round}`);
  return `${prefix}_${out.slice(0, 48)}`;
}

/** A `call_id` as OpenAI issues them (`call_` + 24 letters and digits). */
function callId(seed: string): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  let out = '';
  for (let round = 0; out.length < 24; round++) {
    const h = Number.parseInt(hash(`${seed}|call|${round}`), 16);
    out += alphabet[h % alphabet.length];
  }
  return `call_${out}`;
}

/** The recordings split streamed text and arguments in three (shorter ones stay whole). */
function split(text: string, n = 3): string[] {
  if (text.length < n) return [text];
  const size = Math.ceil(text.length / n);
  const out: string[] = [];
  for (let at = 0; at < text.length; at += size) out.push(text.slice(at, at + size));
  return out;
}

function block(expected: ExpectedBlock, i: number, seed: string): BlockPart {
  switch (expected.type) {
    case 'thinking':
      return {
        kind: 'thinking',
        text: expected.text,
        signature: expected.signature ?? null,
        chunks: 3,
      };
    case 'redacted_thinking':
      return { kind: 'redacted_thinking', data: expected.data };
    case 'text':
      return { kind: 'text', text: expected.text, chunks: 3 };
    case 'tool_use':
      return {
        kind: 'tool_call',
        name: expected.name,
        input: expected.input,
        id: callId(`${seed}:${i}`),
        chunks: 3,
      };
  }
}

/** The reply as the shared format takes it: reasoning is two thirds of the output tokens. */
function context(reply: ExpectedReply): RenderContext {
  const { input_tokens, output_tokens, cached_input_tokens } = reply.usage;
  const thinks = reply.content.some((b) => b.type === 'thinking' || b.type === 'redacted_thinking');
  return {
    reply: {
      kind: 'message',
      blocks: reply.content.map((b, i) => block(b, i, reply.scenario)),
      usage: {
        input_tokens,
        output_tokens,
        cached_input_tokens,
        cache_creation_input_tokens: 0,
        reasoning_tokens: thinks ? Math.floor((output_tokens * 2) / 3) : 0,
      },
      stopReason: reply.stop_reason,
      chunkDelayMs: 0,
    },
    model: MODEL,
    seq: 0,
    body: {},
  };
}

const HEADERS = {
  'x-request-id': 'req_conformance_responses',
  'openai-organization': 'user-conformance',
  'openai-processing-ms': '412',
  'openai-version': '2020-10-01',
};

/** The `obfuscation` of the recorded deltas, by kind. */
const OBFUSCATION = { text: 'a1b2c3', reasoning: 'x1y2z3', arguments: 'q9w8e7' } as const;

/** The schema the structured-output request asked for, echoed in `text.format`. */
const STRUCTURED_FORMAT = {
  type: 'json_schema',
  name: 'response',
  description: null,
  schema: {
    type: 'object',
    properties: { city: { type: 'string' }, population: { type: 'integer' } },
    required: ['city', 'population'],
    additionalProperties: false,
  },
  strict: true,
};

function format(scenario: string): WireRenderer {
  return openAIResponsesFormat({
    responseId: wireId('resp', scenario),
    itemId: (prefix, i) => wireId(prefix, `${scenario}:${i}`),
    live: {
      maxOutputTokens: 1024,
      reasoning: { effort: 'medium', summary: null },
      serviceTier: 'default',
      temperature: 1,
      topP: 1,
      topLogprobs: 0,
      truncation: 'disabled',
      ...(scenario === 'structured-output' ? { textFormat: STRUCTURED_FORMAT } : {}),
      verbosity: 'medium',
      secondsToComplete: 2,
    },
    cacheWriteTokens: true,
    obfuscation: (kind) => OBFUSCATION[kind],
    split: (text) => split(text),
    headers: HEADERS,
  });
}

/** Up to and including the event `cut` names. */
function cutShort(chunks: readonly string[], cut: NonNullable<ExpectedReply['cut']>): string[] {
  const event =
    cut.after === 'first-text-delta'
      ? 'response.output_text.delta'
      : 'response.function_call_arguments.delta';
  const index = chunks.findIndex((chunk) => chunk.startsWith(`event: ${event}\n`));
  return chunks.slice(0, index + 1);
}

/** The recorded error of each failure. */
const ERRORS: Record<
  ExpectedFailure['failure'],
  { status: number; message: string; type: string; param: string | null; code: string | null }
> = {
  rate_limit: {
    status: 429,
    message:
      'Rate limit reached for gpt-5 in organization org-conformance on tokens per min (TPM): Limit 30000, Used 29500, Requested 1200. Please try again in 1.4s.',
    type: 'tokens',
    param: null,
    code: 'rate_limit_exceeded',
  },
  auth: {
    status: 401,
    message:
      'Incorrect API key provided: sk-confo**********cret. You can find your API key at https://platform.openai.com/account/api-keys.',
    type: 'invalid_request_error',
    param: null,
    code: 'invalid_api_key',
  },
  server_error: {
    status: 500,
    message: 'The server had an error while processing your request. Sorry about that!',
    type: 'server_error',
    param: null,
    code: null,
  },
  context_overflow: {
    status: 400,
    message:
      'Your input exceeds the context window of this model. Please adjust your input and try again.',
    type: 'invalid_request_error',
    param: 'input',
    code: 'context_length_exceeded',
  },
  invalid_request: {
    status: 400,
    message:
      "Invalid 'input[2].call_id': string too long. Expected a string with maximum length 64, but got a string with length 70 instead.",
    type: 'invalid_request_error',
    param: 'input[2].call_id',
    code: 'string_above_max_length',
  },
  overloaded: {
    status: 503,
    message: 'The engine is currently overloaded, please try again later.',
    type: 'server_error',
    param: null,
    code: null,
  },
};

/** The Responses API renderer for `renderFixtures`. */
export const responsesRenderer: FixtureRenderer = {
  streamFormat: 'sse',
  headers: HEADERS,
  reply: (reply) => format(reply.scenario).reply(context(reply)),
  stream: (reply) => {
    const { chunks } = format(reply.scenario).stream(context(reply));
    return reply.cut ? cutShort(chunks, reply.cut) : [...chunks];
  },
  error: (failure): RenderedError => {
    const recorded = ERRORS[failure.failure];
    const error: ErrorReply = {
      kind: 'error',
      status: recorded.status,
      shape: 'status',
      message: recorded.message,
      retryAfterSeconds: failure.retryAfterSeconds ?? null,
    };
    const { type, param, code } = recorded;
    const rendered = openAIResponsesFormat({
      headers: HEADERS,
      error: { fields: { type, param, code }, wholeSecondRetryAfter: true },
    }).error(error, 0);
    return { status: rendered.status, headers: { ...rendered.headers }, body: rendered.body };
  },
};

import type {
  ExpectedBlock,
  ExpectedFailure,
  ExpectedReply,
  FixtureRenderer,
  RenderedError,
} from '@yourtool/conformance';

/**
 * Puts the conformance suite's expected replies into the Responses API's documented wire format
 * (`POST /v1/responses`: a `Response` object; with `stream: true`, named server-sent events
 * `response.created` … `response.completed`), the way gpt-5 answers with `store: false` and
 * `include: ["reasoning.encrypted_content"]`: reasoning as `reasoning` items (summary parts and
 * `encrypted_content`), text as `message` items with `output_text` parts, tool calls as
 * `function_call` items with a `call_id`, usage with `input_tokens_details.cached_tokens` and
 * `output_tokens_details.reasoning_tokens`.
 */

export const MODEL = 'gpt-5-2025-08-07';
const CREATED_AT = 1763800000;

type Item = Record<string, unknown> & { type: string; id: string };

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

function items(reply: ExpectedReply): Item[] {
  const seed = reply.scenario;
  const out: Item[] = [];
  reply.content.forEach((block: ExpectedBlock, i) => {
    switch (block.type) {
      case 'thinking':
        out.push({
          id: wireId('rs', `${seed}:${i}`),
          type: 'reasoning',
          summary: [{ type: 'summary_text', text: block.text }],
          ...(block.signature ? { encrypted_content: block.signature } : {}),
        });
        return;
      case 'redacted_thinking':
        out.push({
          id: wireId('rs', `${seed}:${i}`),
          type: 'reasoning',
          summary: [],
          encrypted_content: block.data,
        });
        return;
      case 'text':
        out.push({
          id: wireId('msg', `${seed}:${i}`),
          type: 'message',
          status: 'completed',
          content: [{ type: 'output_text', annotations: [], logprobs: [], text: block.text }],
          role: 'assistant',
        });
        return;
      case 'tool_use':
        out.push({
          id: wireId('fc', `${seed}:${i}`),
          type: 'function_call',
          status: 'completed',
          arguments: JSON.stringify(block.input),
          call_id: callId(`${seed}:${i}`),
          name: block.name,
        });
        return;
    }
  });
  return out;
}

function usage(reply: ExpectedReply): Record<string, unknown> {
  const { input_tokens, output_tokens, cached_input_tokens } = reply.usage;
  const thinks = reply.content.some((b) => b.type === 'thinking' || b.type === 'redacted_thinking');
  const reasoning = thinks ? Math.floor((output_tokens * 2) / 3) : 0;
  const input = input_tokens + cached_input_tokens;
  return {
    input_tokens: input,
    input_tokens_details: { cached_tokens: cached_input_tokens, cache_write_tokens: 0 },
    output_tokens,
    output_tokens_details: { reasoning_tokens: reasoning },
    total_tokens: input + output_tokens,
  };
}

function response(
  reply: ExpectedReply,
  status: 'in_progress' | 'completed',
  output: Item[],
): Record<string, unknown> {
  const structured = reply.scenario === 'structured-output';
  return {
    id: wireId('resp', reply.scenario),
    object: 'response',
    created_at: CREATED_AT,
    status,
    background: false,
    completed_at: status === 'completed' ? CREATED_AT + 2 : null,
    error: null,
    incomplete_details: null,
    instructions: null,
    max_output_tokens: 1024,
    max_tool_calls: null,
    model: MODEL,
    output,
    parallel_tool_calls: true,
    previous_response_id: null,
    prompt_cache_key: null,
    reasoning: { effort: 'medium', summary: null },
    safety_identifier: null,
    service_tier: status === 'completed' ? 'default' : 'auto',
    store: false,
    temperature: 1,
    text: {
      format: structured
        ? {
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
          }
        : { type: 'text' },
      verbosity: 'medium',
    },
    tool_choice: 'auto',
    tools: [],
    top_logprobs: 0,
    top_p: 1,
    truncation: 'disabled',
    usage: status === 'completed' ? usage(reply) : null,
    user: null,
    metadata: {},
  };
}

/** Splits into `n` pieces (fewer when the text is shorter). */
function split(text: string, n = 3): string[] {
  if (text.length < n) return [text];
  const size = Math.ceil(text.length / n);
  const out: string[] = [];
  for (let at = 0; at < text.length; at += size) out.push(text.slice(at, at + size));
  return out;
}

/** A named server-sent event, as the Responses API sends it. */
const sse = (body: Record<string, unknown> & { type: string }) =>
  `event: ${body.type}\ndata: ${JSON.stringify(body)}\n\n`;

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

const HEADERS = {
  'x-request-id': 'req_conformance_responses',
  'openai-organization': 'user-conformance',
  'openai-processing-ms': '412',
  'openai-version': '2020-10-01',
};

/** The Responses API renderer for `renderFixtures`. */
export const responsesRenderer: FixtureRenderer = {
  streamFormat: 'sse',
  headers: HEADERS,
  reply: (reply) => response(reply, 'completed', items(reply)),
  stream: (reply) => {
    const chunks: string[] = [];
    let seq = 0;
    let cutAt: number | null = null;
    const emit = (body: Record<string, unknown> & { type: string }) => {
      chunks.push(sse({ ...body, sequence_number: seq++ }));
    };
    const markCut = (kind: NonNullable<ExpectedReply['cut']>['after']) => {
      if (reply.cut?.after === kind && cutAt === null) cutAt = chunks.length;
    };
    emit({ type: 'response.created', response: response(reply, 'in_progress', []) });
    emit({ type: 'response.in_progress', response: response(reply, 'in_progress', []) });
    const done = items(reply);
    done.forEach((item, output_index) => {
      const item_id = item.id;
      switch (item.type) {
        case 'reasoning': {
          const { encrypted_content: _hidden, ...rest } = item;
          emit({
            type: 'response.output_item.added',
            output_index,
            item: { ...rest, summary: [] },
          });
          const parts = item.summary as Array<{ type: 'summary_text'; text: string }>;
          parts.forEach((part, summary_index) => {
            emit({
              type: 'response.reasoning_summary_part.added',
              item_id,
              output_index,
              summary_index,
              part: { type: 'summary_text', text: '' },
            });
            for (const delta of split(part.text)) {
              emit({
                type: 'response.reasoning_summary_text.delta',
                item_id,
                output_index,
                summary_index,
                delta,
                obfuscation: 'x1y2z3',
              });
            }
            emit({
              type: 'response.reasoning_summary_text.done',
              item_id,
              output_index,
              summary_index,
              text: part.text,
            });
            emit({
              type: 'response.reasoning_summary_part.done',
              item_id,
              output_index,
              summary_index,
              part,
            });
          });
          emit({ type: 'response.output_item.done', output_index, item });
          return;
        }
        case 'message': {
          const [part] = item.content as Array<{ text: string }>;
          const text = part?.text ?? '';
          emit({
            type: 'response.output_item.added',
            output_index,
            item: { ...item, status: 'in_progress', content: [] },
          });
          emit({
            type: 'response.content_part.added',
            item_id,
            output_index,
            content_index: 0,
            part: { type: 'output_text', annotations: [], logprobs: [], text: '' },
          });
          for (const delta of split(text)) {
            emit({
              type: 'response.output_text.delta',
              item_id,
              output_index,
              content_index: 0,
              delta,
              logprobs: [],
              obfuscation: 'a1b2c3',
            });
            markCut('first-text-delta');
          }
          emit({
            type: 'response.output_text.done',
            item_id,
            output_index,
            content_index: 0,
            text,
            logprobs: [],
          });
          emit({
            type: 'response.content_part.done',
            item_id,
            output_index,
            content_index: 0,
            part: { type: 'output_text', annotations: [], logprobs: [], text },
          });
          emit({ type: 'response.output_item.done', output_index, item });
          return;
        }
        case 'function_call': {
          const args = String(item.arguments);
          emit({
            type: 'response.output_item.added',
            output_index,
            item: { ...item, status: 'in_progress', arguments: '' },
          });
          // fragments that do not parse alone ("{}" of a call without arguments stays whole)
          for (const delta of args.length > 2 ? split(args) : [args]) {
            emit({
              type: 'response.function_call_arguments.delta',
              item_id,
              output_index,
              delta,
              obfuscation: 'q9w8e7',
            });
            markCut('first-tool-input-fragment');
          }
          emit({
            type: 'response.function_call_arguments.done',
            item_id,
            output_index,
            arguments: args,
          });
          emit({ type: 'response.output_item.done', output_index, item });
          return;
        }
      }
    });
    emit({ type: 'response.completed', response: response(reply, 'completed', done) });
    return cutAt === null ? chunks : chunks.slice(0, cutAt);
  },
  error: (failure): RenderedError => {
    const shape = ERRORS[failure.failure];
    return {
      status: shape.status,
      headers: {
        ...HEADERS,
        'content-type': 'application/json',
        ...(failure.retryAfterSeconds !== undefined
          ? {
              'retry-after-ms': String(Math.round(failure.retryAfterSeconds * 1000)),
              'retry-after': String(Math.max(1, Math.ceil(failure.retryAfterSeconds))),
            }
          : {}),
      },
      body: {
        error: { message: shape.message, type: shape.type, param: shape.param, code: shape.code },
      },
    };
  },
};

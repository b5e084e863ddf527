import type { ErrorReply, ScriptedStopReason, ToolCallPart } from '../reply.js';
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
 * OpenAI Chat Completions (`POST /chat/completions`, `/v1/chat/completions`), as OpenAI,
 * OpenRouter and Chat-Completions-compatible servers speak it: a `chat.completion`, or
 * `chat.completion.chunk` events ending in `data: [DONE]`. Usage comes in a chunk of its own
 * (`choices: []`) when the request asks for it (`stream_options.include_usage`), else on the
 * finishing chunk as servers without that option send it. Thinking is sent as
 * `reasoning_content` (DeepSeek, vLLM), which compatible adapters read and OpenAI's ignores;
 * signatures and redacted thinking have no place here and are left out.
 */

type Json = Record<string, unknown>;

const FINISH: Record<ScriptedStopReason, string> = {
  end_turn: 'stop',
  tool_use: 'tool_calls',
  max_tokens: 'length',
  stop_sequence: 'stop',
};

const CREATED = 1763800000;

/**
 * How a Chat Completions reply departs from the defaults: details of OpenAI's or another
 * server's live stream, for a test reproducing recorded bytes. Every option is off by default.
 */
export interface ChatWireOptions {
  /** The completion's `id`. Default `chatcmpl-Testing<seq>`. */
  readonly completionId?: string;
  /** `created`, in Unix seconds. Default 1763800000. */
  readonly created?: number;
  /**
   * Fields each chunk carries after `model`: OpenAI's `service_tier` and `system_fingerprint`,
   * OpenRouter's `provider`.
   */
  readonly chunkFields?: Readonly<Json>;
  /** `usage: null` on every chunk before the usage chunk, as OpenAI sends with `include_usage`. */
  readonly nullUsage?: boolean;
  /** Leave `refusal: null` out of the first delta, as servers other than OpenAI do. */
  readonly withoutRefusal?: boolean;
  /** SSE comments sent before the first chunk, e.g. OpenRouter's `OPENROUTER PROCESSING`. */
  readonly leadingComments?: readonly string[];
  /** Where streamed text, reasoning and arguments are split. Default {@link splitInto}. */
  readonly split?: Splitter;
}
const callId = (seq: number, i: number) => `call_Testing${pad(seq)}x${pad(i, 3)}`;

function usageOf(context: RenderContext): Json {
  const usage = fullUsage(context.reply.usage);
  return {
    prompt_tokens: usage.input + usage.cached,
    completion_tokens: usage.output,
    total_tokens: usage.input + usage.cached + usage.output,
    prompt_tokens_details: { cached_tokens: usage.cached },
    completion_tokens_details: { reasoning_tokens: usage.reasoning ?? 0 },
  };
}

function toolCalls(context: RenderContext): Array<{ part: ToolCallPart; id: string }> {
  return context.reply.blocks.flatMap((block, i) =>
    block.kind === 'tool_call' ? [{ part: block, id: block.id ?? callId(context.seq, i) }] : [],
  );
}

function reply(context: RenderContext): Json {
  const texts = context.reply.blocks.flatMap((b) => (b.kind === 'text' ? [b.text] : []));
  const reasoning = context.reply.blocks.flatMap((b) => (b.kind === 'thinking' ? [b.text] : []));
  const calls = toolCalls(context);
  return {
    id: `chatcmpl-Testing${pad(context.seq)}`,
    object: 'chat.completion',
    created: CREATED,
    model: context.model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: texts.length > 0 ? texts.join('') : null,
          refusal: null,
          ...(reasoning.length > 0 ? { reasoning_content: reasoning.join('') } : {}),
          ...(calls.length > 0
            ? {
                tool_calls: calls.map(({ part, id }) => ({
                  id,
                  type: 'function',
                  function: { name: part.name, arguments: JSON.stringify(part.input) },
                })),
              }
            : {}),
        },
        logprobs: null,
        finish_reason: FINISH[context.reply.stopReason],
      },
    ],
    usage: usageOf(context),
  };
}

function stream(context: RenderContext, options: ChatWireOptions): RenderedStream {
  const split = options.split ?? splitInto;
  const chunks = (options.leadingComments ?? []).map((comment) => `: ${comment}\n\n`);
  const base = {
    id: options.completionId ?? `chatcmpl-Testing${pad(context.seq)}`,
    object: 'chat.completion.chunk',
    created: options.created ?? CREATED,
    model: context.model,
    ...options.chunkFields,
  };
  const pending = options.nullUsage ? { usage: null } : {};
  const emit = (delta: Json, finish: string | null = null, extra: Json = pending) =>
    chunks.push(
      sse({
        ...base,
        choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
        ...extra,
      }),
    );
  emit(
    options.withoutRefusal
      ? { role: 'assistant', content: '' }
      : { role: 'assistant', content: '', refusal: null },
  );
  let toolIndex = 0;
  context.reply.blocks.forEach((block, i) => {
    switch (block.kind) {
      case 'text':
        for (const content of split(block.text, block.chunks)) emit({ content });
        return;
      case 'thinking':
        for (const piece of split(block.text, block.chunks)) {
          emit({ content: null, reasoning_content: piece });
        }
        return;
      case 'redacted_thinking':
        return;
      case 'tool_call': {
        const index = toolIndex++;
        const id = block.id ?? callId(context.seq, i);
        emit({
          tool_calls: [
            { index, id, type: 'function', function: { name: block.name, arguments: '' } },
          ],
        });
        for (const args of split(JSON.stringify(block.input), block.chunks)) {
          emit({ tool_calls: [{ index, function: { arguments: args } }] });
        }
        return;
      }
    }
  });
  const streamOptions = context.body.stream_options as { include_usage?: unknown } | undefined;
  const separateUsage = streamOptions?.include_usage === true;
  emit({}, FINISH[context.reply.stopReason], separateUsage ? pending : { usage: usageOf(context) });
  if (separateUsage) chunks.push(sse({ ...base, choices: [], usage: usageOf(context) }));
  chunks.push(sse('[DONE]'));
  return { chunks, closing: separateUsage ? 3 : 2 };
}

const ERRORS: Record<number, { type: string; code: string | null }> = {
  400: { type: 'invalid_request_error', code: null },
  401: { type: 'invalid_request_error', code: 'invalid_api_key' },
  403: { type: 'invalid_request_error', code: 'unsupported_country_region_territory' },
  404: { type: 'invalid_request_error', code: 'model_not_found' },
  429: { type: 'requests', code: 'rate_limit_exceeded' },
};

/**
 * How an OpenAI error departs from the defaults: what a recorded error shows, for a test that
 * must reproduce its bytes.
 */
export interface OpenAIErrorOptions {
  /** The body's `type`, `param` and `code`, in place of the ones the status implies. */
  readonly fields?: {
    readonly type: string;
    readonly param: string | null;
    readonly code: string | null;
  };
  /** The response headers (request id, organization, version), in place of `x-request-id`. */
  readonly headers?: Readonly<Record<string, string>>;
  /**
   * Retry hints as OpenAI sends them: `retry-after-ms` first, then `retry-after` in whole
   * seconds (at least 1). Default: `retry-after` as given, then `retry-after-ms`.
   */
  readonly wholeSecondRetryAfter?: boolean;
}

/** The retry hint headers in the order and rounding `options` asks for. */
function openAIRetryHeaders(
  seconds: number | null,
  options: OpenAIErrorOptions,
): Record<string, string> {
  if (seconds === null || !options.wholeSecondRetryAfter) return retryHeaders(seconds);
  return {
    'retry-after-ms': String(Math.round(seconds * 1000)),
    'retry-after': String(Math.max(1, Math.ceil(seconds))),
  };
}

/** OpenAI's error body (`{ error: { message, type, param, code } }`), shared with Responses. */
export function openAIError(
  failure: ErrorReply,
  seq: number,
  param: string,
  options: OpenAIErrorOptions = {},
): RenderedError {
  const status = errorStatus(failure, 503);
  const known = ERRORS[status] ?? {
    type: status >= 500 ? 'server_error' : 'invalid_request_error',
    code: null,
  };
  const overflow = failure.shape === 'context_overflow';
  const message =
    failure.message ??
    (overflow
      ? "This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens. Please reduce the length of the messages."
      : failure.shape === 'overloaded'
        ? 'The engine is currently overloaded, please try again later.'
        : `scripted ${status}: ${statusPhrase(status)}`);
  const fields = options.fields ?? {
    type: overflow ? 'invalid_request_error' : known.type,
    param: overflow ? param : null,
    code: overflow ? 'context_length_exceeded' : known.code,
  };
  const headers: Record<string, string> = options.headers
    ? { ...options.headers, 'content-type': 'application/json' }
    : { 'content-type': 'application/json', 'x-request-id': `req_testing${pad(seq)}` };
  return {
    status,
    headers: { ...headers, ...openAIRetryHeaders(failure.retryAfterSeconds, options) },
    body: { error: { message, ...fields } },
  };
}

/** A Chat Completions renderer with `options` (see {@link ChatWireOptions}). */
export function openAIChatFormat(options: ChatWireOptions = {}): WireRenderer {
  return {
    streamContentType: 'text/event-stream',
    headers: (seq) => ({ 'x-request-id': `req_testing${pad(seq)}` }),
    reply,
    stream: (context) => stream(context, options),
    error: (failure, seq) => openAIError(failure, seq, 'messages'),
  };
}

/** The Chat Completions renderer, with the default shape. */
export const openAIChatRenderer: WireRenderer = openAIChatFormat();

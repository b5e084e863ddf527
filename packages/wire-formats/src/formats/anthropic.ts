import type { BlockPart, ErrorReply, ScriptedStopReason } from '../reply.js';
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
 * The Anthropic Messages API (`POST /v1/messages`): a `message` object, or with `stream: true`
 * the named events `message_start`, `content_block_start` / `_delta` / `_stop` per block,
 * `message_delta` (stop reason, output tokens) and `message_stop`, as the recorded fixtures of
 * `@yourtool/anthropic` show them.
 */

type Json = Record<string, unknown>;

/**
 * How an Anthropic reply departs from the defaults: details of the live API (or of an older
 * version of it) a test reproducing recorded bytes needs. Every option is off by default.
 */
export interface AnthropicWireOptions {
  /** The message's `id`. Default `msg_01Testing<seq>`. */
  readonly messageId?: string;
  /** A `ping` event after `message_start`, as the live API sends one. */
  readonly ping?: boolean;
  /** Open each tool call's input with an empty `input_json_delta`, as the live API does. */
  readonly openingJsonDelta?: boolean;
  /** Leave out `citations: null` on text blocks and `service_tier` in usage (older versions). */
  readonly withoutNewerFields?: boolean;
  /** Where streamed text, thinking and tool input are split. Default {@link splitInto}. */
  readonly split?: Splitter;
}

const toolUseId = (seq: number, i: number) => `toolu_01Testing${pad(seq)}x${pad(i, 3)}`;

function wireBlock(
  block: BlockPart,
  seq: number,
  i: number,
  options: AnthropicWireOptions = {},
): Json {
  switch (block.kind) {
    case 'text':
      return options.withoutNewerFields
        ? { type: 'text', text: block.text }
        : { type: 'text', text: block.text, citations: null };
    case 'thinking':
      // Anthropic signs all thinking; an unsigned block is sent without the field
      return {
        type: 'thinking',
        thinking: block.text,
        ...(block.signature ? { signature: block.signature } : {}),
      };
    case 'redacted_thinking':
      return { type: 'redacted_thinking', data: block.data };
    case 'tool_call':
      return {
        type: 'tool_use',
        id: block.id ?? toolUseId(seq, i),
        name: block.name,
        input: block.input,
      };
  }
}

function usageOf(context: RenderContext, output: number, options: AnthropicWireOptions): Json {
  const usage = fullUsage(context.reply.usage);
  return {
    input_tokens: usage.input,
    output_tokens: output,
    cache_creation_input_tokens: usage.cacheWrite,
    cache_read_input_tokens: usage.cached,
    ...(options.withoutNewerFields ? {} : { service_tier: 'standard' }),
  };
}

const STOP: Record<ScriptedStopReason, string> = {
  end_turn: 'end_turn',
  tool_use: 'tool_use',
  max_tokens: 'max_tokens',
  stop_sequence: 'stop_sequence',
};

function envelope(
  context: RenderContext,
  options: AnthropicWireOptions,
  content: Json[],
  done: boolean,
): Json {
  const stop = STOP[context.reply.stopReason];
  return {
    id: options.messageId ?? `msg_01Testing${pad(context.seq)}`,
    type: 'message',
    role: 'assistant',
    model: context.model,
    content,
    stop_reason: done ? stop : null,
    stop_sequence: null,
    usage: usageOf(context, done ? context.reply.usage.output_tokens : 1, options),
  };
}

/** The deltas of one streamed block, between its start and stop events. */
function blockDeltas(block: BlockPart, index: number, options: AnthropicWireOptions): Json[] {
  const split = options.split ?? splitInto;
  const delta = (body: Json) => ({ type: 'content_block_delta', index, delta: body });
  switch (block.kind) {
    case 'text':
      return split(block.text, block.chunks).map((text) => delta({ type: 'text_delta', text }));
    case 'thinking':
      return [
        ...split(block.text, block.chunks).map((thinking) =>
          delta({ type: 'thinking_delta', thinking }),
        ),
        ...(block.signature
          ? [delta({ type: 'signature_delta', signature: block.signature })]
          : []),
      ];
    case 'redacted_thinking':
      return [];
    case 'tool_call': {
      const json = JSON.stringify(block.input);
      const opening = options.openingJsonDelta ? [''] : [];
      return [...opening, ...split(json, block.chunks)].map((partial_json) =>
        delta({ type: 'input_json_delta', partial_json }),
      );
    }
  }
}

/** The empty form a block starts with in a stream. */
function startOf(block: Json): Json {
  switch (block.type) {
    case 'text':
      return { ...block, text: '' };
    case 'thinking':
      return { ...block, thinking: '', signature: '' };
    case 'tool_use':
      return { ...block, input: {} };
    default:
      return block;
  }
}

function stream(context: RenderContext, options: AnthropicWireOptions): RenderedStream {
  const chunks: string[] = [];
  const emit = (body: Json) => chunks.push(sse(body, String(body.type)));
  emit({ type: 'message_start', message: envelope(context, options, [], false) });
  if (options.ping) emit({ type: 'ping' });
  context.reply.blocks.forEach((block, index) => {
    const wire = wireBlock(block, context.seq, index, options);
    emit({ type: 'content_block_start', index, content_block: startOf(wire) });
    for (const delta of blockDeltas(block, index, options)) emit(delta);
    emit({ type: 'content_block_stop', index });
  });
  emit({
    type: 'message_delta',
    delta: { stop_reason: STOP[context.reply.stopReason], stop_sequence: null },
    usage: { output_tokens: context.reply.usage.output_tokens },
  });
  emit({ type: 'message_stop' });
  return { chunks, closing: 2 };
}

const ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  503: 'overloaded_error',
  529: 'overloaded_error',
};

function error(failure: ErrorReply, seq: number): RenderedError {
  const status = errorStatus(failure, 529);
  const type =
    failure.shape === 'overloaded'
      ? 'overloaded_error'
      : failure.shape === 'context_overflow'
        ? 'invalid_request_error'
        : (ERROR_TYPES[status] ?? (status >= 500 ? 'api_error' : 'invalid_request_error'));
  const message =
    failure.message ??
    (failure.shape === 'context_overflow'
      ? 'prompt is too long: 210000 tokens > 200000 maximum'
      : type === 'overloaded_error'
        ? 'Overloaded'
        : `scripted ${status}: ${statusPhrase(status)}`);
  const requestId = `req_011Testing${pad(seq)}`;
  return {
    status,
    headers: {
      'content-type': 'application/json',
      'request-id': requestId,
      ...retryHeaders(failure.retryAfterSeconds),
    },
    body: { type: 'error', error: { type, message }, request_id: requestId },
  };
}

/** An Anthropic Messages renderer with `options` (see {@link AnthropicWireOptions}). */
export function anthropicFormat(options: AnthropicWireOptions = {}): WireRenderer {
  return {
    streamContentType: 'text/event-stream',
    headers: (seq) => ({ 'request-id': `req_011Testing${pad(seq)}` }),
    reply: (context) =>
      envelope(
        context,
        options,
        context.reply.blocks.map((block, i) => wireBlock(block, context.seq, i, options)),
        true,
      ),
    stream: (context) => stream(context, options),
    error,
  };
}

/** The Anthropic Messages renderer, with the default shape. */
export const anthropicRenderer: WireRenderer = anthropicFormat();

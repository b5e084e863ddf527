import type { BlockPart, ErrorReply, ScriptedStopReason } from '../reply.js';
import {
  BEDROCK_EVENT_STREAM_CONTENT_TYPE,
  type BedrockFrame,
  encodeBedrockFrame,
} from './bedrock-frames.js';
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
  statusPhrase,
  type WireRenderer,
} from './renderer.js';

/**
 * Amazon Bedrock's Converse API (`POST /model/{modelId}/converse`) and ConverseStream
 * (`POST /model/{modelId}/converse-stream`), as `@aws-sdk/client-bedrock-runtime` reads them:
 * a `ConverseResponse` JSON body, or binary event-stream frames: `messageStart`, per block a
 * `contentBlockStart` (tool calls only: text and reasoning have none), its deltas and a
 * `contentBlockStop`, then `messageStop` (the stop reason) and `metadata` (usage, latency).
 * Errors are an HTTP status, an `x-amzn-errortype` header naming the exception and a
 * `{"message"}` body.
 */

type Json = Record<string, unknown>;

/** Bedrock's stop reasons (`StopReason` of the Converse API). */
export type BedrockStopReason =
  | 'end_turn'
  | 'tool_use'
  | 'max_tokens'
  | 'stop_sequence'
  | 'guardrail_intervened'
  | 'content_filtered'
  | 'malformed_model_output'
  | 'malformed_tool_use'
  | 'model_context_window_exceeded';

/**
 * How a Bedrock reply departs from the defaults, for tests and fixtures that need a shape the
 * canonical reply does not say. Every option is off by default.
 */
export interface BedrockWireOptions {
  /** The stop reason sent, over the reply's own (e.g. `guardrail_intervened` for a refusal). */
  readonly stopReason?: BedrockStopReason;
  /** `metrics.latencyMs` of the reply. Default 120. */
  readonly latencyMs?: number;
  /**
   * What a streamed tool call with empty input (`{}`) sends: no delta at all (`none`, the
   * default), a delta whose input is `""` (`empty-string`), or `"{}"` (`braces`).
   */
  readonly emptyToolInput?: 'none' | 'empty-string' | 'braces';
  /** Where streamed text, reasoning and tool input are split. Default {@link splitInto}. */
  readonly split?: Splitter;
}

const STOP: Record<ScriptedStopReason, BedrockStopReason> = {
  end_turn: 'end_turn',
  tool_use: 'tool_use',
  max_tokens: 'max_tokens',
  stop_sequence: 'stop_sequence',
};

const toolUseId = (seq: number, i: number) => `tooluse_Testing${pad(seq)}x${pad(i, 3)}`;

/**
 * The base64 a redacted reasoning block carries: the canonical `data` itself when it is
 * base64 (an adapter base64-encoding the bytes it gets arrives back at it), else the base64
 * of its UTF-8 bytes, so any scripted string still makes valid wire bytes.
 */
export function bedrockRedactedBase64(data: string): string {
  const bytes = Buffer.from(data, 'base64');
  return bytes.toString('base64') === data ? data : Buffer.from(data, 'utf8').toString('base64');
}

function wireBlock(block: BlockPart, seq: number, i: number): Json {
  switch (block.kind) {
    case 'text':
      return { text: block.text };
    case 'thinking':
      return {
        reasoningContent: {
          reasoningText: {
            text: block.text,
            ...(block.signature ? { signature: block.signature } : {}),
          },
        },
      };
    case 'redacted_thinking':
      return { reasoningContent: { redactedContent: bedrockRedactedBase64(block.data) } };
    case 'tool_call':
      return {
        toolUse: { toolUseId: block.id ?? toolUseId(seq, i), name: block.name, input: block.input },
      };
  }
}

/** Usage as Converse reports it: `inputTokens` excludes cache reads and writes. */
function usageOf(context: RenderContext): Json {
  const usage = fullUsage(context.reply.usage);
  return {
    inputTokens: usage.input,
    outputTokens: usage.output,
    totalTokens: usage.input + usage.cached + usage.cacheWrite + usage.output,
    ...(usage.cached > 0 ? { cacheReadInputTokens: usage.cached } : {}),
    ...(usage.cacheWrite > 0 ? { cacheWriteInputTokens: usage.cacheWrite } : {}),
  };
}

const stopOf = (context: RenderContext, options: BedrockWireOptions) =>
  options.stopReason ?? STOP[context.reply.stopReason];

function reply(context: RenderContext, options: BedrockWireOptions): Json {
  return {
    output: {
      message: {
        role: 'assistant',
        content: context.reply.blocks.map((block, i) => wireBlock(block, context.seq, i)),
      },
    },
    stopReason: stopOf(context, options),
    usage: usageOf(context),
    metrics: { latencyMs: options.latencyMs ?? 120 },
  };
}

/** A tool call's input fragments: its JSON split, or what an empty input sends. */
function toolInputFragments(
  block: Extract<BlockPart, { kind: 'tool_call' }>,
  options: BedrockWireOptions,
): readonly string[] {
  if (Object.keys(block.input).length === 0) {
    const empty = options.emptyToolInput ?? 'none';
    return empty === 'none' ? [] : [empty === 'braces' ? '{}' : ''];
  }
  return (options.split ?? splitInto)(JSON.stringify(block.input), block.chunks);
}

/** The deltas of one streamed block (the `delta` member of each `contentBlockDelta`). */
function blockDeltas(block: BlockPart, options: BedrockWireOptions): Json[] {
  const split = options.split ?? splitInto;
  switch (block.kind) {
    case 'text':
      return split(block.text, block.chunks).map((text) => ({ text }));
    case 'thinking':
      return [
        ...split(block.text, block.chunks).map((text) => ({ reasoningContent: { text } })),
        ...(block.signature ? [{ reasoningContent: { signature: block.signature } }] : []),
      ];
    case 'redacted_thinking':
      return [{ reasoningContent: { redactedContent: bedrockRedactedBase64(block.data) } }];
    case 'tool_call':
      return toolInputFragments(block, options).map((input) => ({ toolUse: { input } }));
  }
}

/**
 * A streamed reply as readable frames, before encoding: the renderer encodes each, and a
 * fixture writes them one per line. `closing` counts the trailing frames that finish the
 * message (`messageStop` and `metadata`).
 */
export function bedrockStreamFrames(
  context: RenderContext,
  options: BedrockWireOptions = {},
): { frames: BedrockFrame[]; closing: number } {
  const frames: BedrockFrame[] = [];
  const emit = (event: string, payload: Json) => frames.push({ event, payload });
  emit('messageStart', { role: 'assistant' });
  context.reply.blocks.forEach((block, contentBlockIndex) => {
    if (block.kind === 'tool_call') {
      const { toolUse } = wireBlock(block, context.seq, contentBlockIndex) as {
        toolUse: { toolUseId: string; name: string };
      };
      const start = { toolUse: { toolUseId: toolUse.toolUseId, name: toolUse.name } };
      emit('contentBlockStart', { contentBlockIndex, start });
    }
    for (const delta of blockDeltas(block, options)) {
      emit('contentBlockDelta', { contentBlockIndex, delta });
    }
    emit('contentBlockStop', { contentBlockIndex });
  });
  emit('messageStop', { stopReason: stopOf(context, options) });
  emit('metadata', { usage: usageOf(context), metrics: { latencyMs: options.latencyMs ?? 120 } });
  return { frames, closing: 2 };
}

function stream(context: RenderContext, options: BedrockWireOptions): RenderedStream<Uint8Array> {
  const { frames, closing } = bedrockStreamFrames(context, options);
  return { chunks: frames.map(encodeBedrockFrame), closing };
}

/** The exception name Bedrock sends for an HTTP status. */
const EXCEPTIONS: Record<number, string> = {
  400: 'ValidationException',
  401: 'UnrecognizedClientException',
  403: 'AccessDeniedException',
  404: 'ResourceNotFoundException',
  408: 'ModelTimeoutException',
  424: 'ModelErrorException',
  429: 'ThrottlingException',
  500: 'InternalServerException',
  503: 'ServiceUnavailableException',
};

/** The namespace Bedrock appends to the exception name in `x-amzn-errortype`. */
const ERROR_NAMESPACE = 'http://internal.amazon.com/coral/com.amazon.bedrock/';

/** The exception name and default message of an error reply. */
function exceptionOf(failure: ErrorReply, status: number): { name: string; message: string } {
  if (failure.shape === 'context_overflow') {
    return { name: 'ValidationException', message: 'Input is too long for requested model.' };
  }
  if (failure.shape === 'overloaded') {
    return {
      name: status === 429 ? 'ThrottlingException' : 'ServiceUnavailableException',
      message: 'Bedrock is unable to process your request.',
    };
  }
  const name =
    EXCEPTIONS[status] ?? (status >= 500 ? 'InternalServerException' : 'ValidationException');
  return { name, message: `scripted ${status}: ${statusPhrase(status)}` };
}

/**
 * A Bedrock error response for `failure`. Bedrock itself sends no retry hint; the scripted
 * one (`retryAfterSeconds`) goes in `retry-after` headers like the other formats'.
 */
function error(failure: ErrorReply, seq: number): RenderedError {
  const status = errorStatus(failure, 503);
  const { name, message } = exceptionOf(failure, status);
  return {
    status,
    headers: {
      'content-type': 'application/json',
      'x-amzn-requestid': requestId(seq),
      'x-amzn-errortype': `${name}:${ERROR_NAMESPACE}`,
      ...retryHeaders(failure.retryAfterSeconds),
    },
    body: { message: failure.message ?? message },
  };
}

const requestId = (seq: number) => `00000000-0000-4000-8000-testing${pad(seq, 5)}`;

/** A Bedrock Converse renderer with `options` (see {@link BedrockWireOptions}). */
export function bedrockFormat(options: BedrockWireOptions = {}): WireRenderer<Uint8Array> {
  return {
    streamContentType: BEDROCK_EVENT_STREAM_CONTENT_TYPE,
    headers: (seq) => ({ 'x-amzn-requestid': requestId(seq) }),
    reply: (context) => reply(context, options),
    stream: (context) => stream(context, options),
    error,
  };
}

/** The Bedrock Converse renderer, with the default shape. */
export const bedrockRenderer: WireRenderer<Uint8Array> = bedrockFormat();

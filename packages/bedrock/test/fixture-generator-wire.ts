import type { ConformanceFixtures, ScriptedResponse } from '@yourtool/conformance';
import {
  type BedrockFrame,
  type BedrockWireOptions,
  type BlockPart,
  bedrockStreamFrames,
  encodeBedrockFrame,
  type MessageReply,
  type ScriptedUsage,
} from '@yourtool/wire-formats';
import { bedrockError, contextOf, frames, json, REQUEST_ID } from './fixture-generator.js';

/**
 * The named Bedrock wire cases (issue 42), one folder each under `fixtures/wire/`, for the
 * adapter's own tests: text, tool calls (with input fragments, with none, with `""`), signed
 * and redacted reasoning, guardrail and content-filter stops, in-stream exceptions (throttling
 * after some text, a model stream error, one in the first frame), HTTP errors (throttling,
 * context overflow), cached usage, the padding field and an unknown event the SDK drops, a
 * stream that ends before `messageStop`/`metadata`, and a frame cut short.
 */

const GREETING = 'Hello! How can I help you today?';
/** Bytes of a redacted reasoning block; its base64 is the canonical `data`. */
export const REDACTED_DATA = Buffer.from('redacted-reasoning-bytes-0001').toString('base64');
export const SIGNATURE = 'EqQBCkYIBxgCKkCqZ3uRBedrockWireSignature';

const text = (value: string): BlockPart => ({ kind: 'text', text: value, chunks: 2 });
const readFile: BlockPart = {
  kind: 'tool_call',
  name: 'read_file',
  input: { path: 'README.md' },
  id: null,
  chunks: 3,
};
const noInput: BlockPart = {
  kind: 'tool_call',
  name: 'list_files',
  input: {},
  id: null,
  chunks: 1,
};
const reasoning: BlockPart = {
  kind: 'thinking',
  text: 'The user wants a greeting.',
  signature: SIGNATURE,
  chunks: 2,
};
const usage = (input_tokens: number, output_tokens: number): ScriptedUsage => ({
  input_tokens,
  output_tokens,
});

type Reply = Omit<MessageReply, 'kind' | 'chunkDelayMs'>;

/** The frames of a reply as Bedrock streams it. */
function streamOf(name: string, reply: Reply, options: BedrockWireOptions = {}): BedrockFrame[] {
  return bedrockStreamFrames(contextOf(reply, name), options).frames;
}

/** A case as a whole reply and as a stream (`<name>` and `<name>-stream`). */
function both(name: string, reply: Reply, options: BedrockWireOptions = {}): ConformanceFixtures {
  return {
    [name]: [json(contextOf(reply, name), options)],
    [`${name}-stream`]: [frames(streamOf(name, reply, options))],
  };
}

/** The text stream's frames up to its first text delta, then `after`. */
function textThen(name: string, after: BedrockFrame[]): BedrockFrame[] {
  const all = streamOf(name, {
    blocks: [text(GREETING)],
    usage: usage(12, 9),
    stopReason: 'end_turn',
  });
  return [...all.slice(0, 3), ...after];
}

/** A frame cut in half: the client reads a length it never gets. */
function cutFrame(frame: BedrockFrame): Uint8Array {
  const bytes = encodeBedrockFrame(frame);
  return bytes.subarray(0, Math.floor(bytes.length / 2));
}

/** The in-stream exceptions and broken streams. */
function brokenStreams(): ConformanceFixtures {
  const ended = streamOf('stream-without-metadata', {
    blocks: [text(GREETING)],
    usage: usage(12, 9),
    stopReason: 'end_turn',
  });
  const truncated = frames(textThen('truncated-frame', []));
  if (truncated.type !== 'binary-stream') throw new Error('unreachable: frames() is binary');
  const late = {
    event: 'contentBlockDelta',
    payload: { contentBlockIndex: 0, delta: { text: ' more' } },
  };
  return {
    'throttling-in-stream': [
      frames(
        textThen('throttling-in-stream', [
          {
            exception: 'throttlingException',
            payload: { message: 'Too many tokens, please wait before trying again.' },
          },
        ]),
      ),
    ],
    'model-stream-error-in-stream': [
      frames(
        textThen('model-stream-error-in-stream', [
          {
            exception: 'modelStreamErrorException',
            payload: {
              message: 'The model encountered an error while streaming.',
              originalStatusCode: 500,
              originalMessage: 'Internal server error',
            },
          },
        ]),
      ),
    ],
    'exception-first-frame': [
      frames([
        {
          exception: 'throttlingException',
          payload: { message: 'Too many requests, please wait before trying again.' },
        },
      ]),
    ],
    // the body ends after the message's deltas: no messageStop, no metadata
    'stream-without-metadata': [frames(ended.slice(0, -2))],
    'truncated-frame': [{ ...truncated, chunks: [...truncated.chunks, cutFrame(late)] }],
  };
}

/** A stream with the padding field `p` on its deltas and an event no client knows. */
function paddedStream(): ScriptedResponse {
  const list = streamOf('padding-and-unknown-event-stream', {
    blocks: [text(GREETING)],
    usage: usage(12, 9),
    stopReason: 'end_turn',
  }).map(
    (frame): BedrockFrame =>
      'event' in frame && frame.event === 'contentBlockDelta'
        ? { event: frame.event, payload: { ...frame.payload, p: 'abcdefghijklmnopqrstu' } }
        : frame,
  );
  list.splice(1, 0, { event: 'futureEvent', payload: { note: 'an event added after this SDK' } });
  return frames(list);
}

/** Every named wire case, by folder name. */
export function wireFixtures(): ConformanceFixtures {
  return {
    ...both('text', { blocks: [text(GREETING)], usage: usage(12, 9), stopReason: 'end_turn' }),
    ...both('tool-call', {
      blocks: [text("I'll read it."), readFile],
      usage: usage(380, 42),
      stopReason: 'tool_use',
    }),
    'tool-call-no-input-stream': [
      frames(
        streamOf('tool-call-no-input', {
          blocks: [noInput],
          usage: usage(50, 12),
          stopReason: 'tool_use',
        }),
      ),
    ],
    'tool-call-empty-string-input-stream': [
      frames(
        streamOf(
          'tool-call-empty-string-input',
          { blocks: [noInput], usage: usage(50, 12), stopReason: 'tool_use' },
          { emptyToolInput: 'empty-string' },
        ),
      ),
    ],
    ...both('reasoning-signed', {
      blocks: [reasoning, text('Hi!')],
      usage: usage(45, 61),
      stopReason: 'end_turn',
    }),
    ...both('reasoning-redacted', {
      blocks: [reasoning, { kind: 'redacted_thinking', data: REDACTED_DATA }, text('Hi!')],
      usage: usage(45, 61),
      stopReason: 'end_turn',
    }),
    ...both(
      'guardrail-stop',
      {
        blocks: [text("Sorry, I can't help with that.")],
        usage: usage(25, 8),
        stopReason: 'end_turn',
      },
      { stopReason: 'guardrail_intervened' },
    ),
    ...both(
      'content-filtered',
      { blocks: [text('I')], usage: usage(25, 1), stopReason: 'end_turn' },
      { stopReason: 'content_filtered' },
    ),
    ...both(
      'context-window-exceeded',
      { blocks: [text('The answer is')], usage: usage(199_000, 3), stopReason: 'max_tokens' },
      { stopReason: 'model_context_window_exceeded' },
    ),
    ...both('usage-cached', {
      blocks: [text('Cached.')],
      usage: {
        input_tokens: 20,
        output_tokens: 4,
        cached_input_tokens: 1800,
        cache_creation_input_tokens: 300,
      },
      stopReason: 'end_turn',
    }),
    'padding-and-unknown-event-stream': [paddedStream()],
    ...brokenStreams(),
    throttling: [errorResponse('rate_limit')],
    'context-overflow': [errorResponse('context_overflow')],
  };
}

function errorResponse(failure: 'rate_limit' | 'context_overflow'): ScriptedResponse {
  const rendered = bedrockError(failure);
  return {
    type: 'json',
    status: rendered.status,
    headers: { ...REQUEST_ID, ...rendered.headers },
    body: rendered.body,
  };
}

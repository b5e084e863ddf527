import { fileURLToPath } from 'node:url';
import {
  type ConformanceFixtures,
  EXPECTED,
  type ExpectedBlock,
  type ExpectedFailure,
  type ExpectedFeatures,
  type ExpectedReply,
  type FixtureRenderer,
  type RenderedError,
  renderFixtures,
  type ScriptedResponse,
} from '@yourtool/conformance';
import {
  type BedrockFrame,
  type BedrockWireOptions,
  type BlockPart,
  bedrockFormat,
  bedrockStreamFrames,
  encodeBedrockFrame,
  type MessageReply,
  type RenderContext,
} from '@yourtool/wire-formats';

/**
 * The Bedrock fixtures, rendered from the documented Converse / ConverseStream wire format by
 * `@yourtool/wire-formats`' Bedrock renderer: `conformance/` holds one folder per conformance
 * scenario (the suite's expectations, `renderFixtures`), `wire/` the named wire cases the
 * issue asks for (reasoning, in-stream exceptions, guardrail stops, ...). fixtures-parse.test.ts
 * checks every file through the real BedrockRuntimeClient; `WRITE_FIXTURES=1` rewrites them.
 */

/** Where the conformance scenarios' fixtures live. */
export const CONFORMANCE_FIXTURES_DIR = fileURLToPath(
  new URL('./fixtures/conformance', import.meta.url),
);
/** Where the named wire fixtures live. */
export const WIRE_FIXTURES_DIR = fileURLToPath(new URL('./fixtures/wire', import.meta.url));

/**
 * What the Bedrock fixtures declare to the suite. Redacted thinking is left out: Bedrock carries
 * it as bytes, the adapter's canonical `data` is their base64, and the suite's expected value is
 * not canonical base64, so no bytes decode to it (the `wire/` set has a redacted case).
 */
export const BEDROCK_FIXTURE_FEATURES: ExpectedFeatures = {
  signedThinking: true,
  redactedThinking: false,
  thinking: true,
  images: true,
  structuredOutput: true,
  parallelToolCalls: true,
};

/** The request id header of every fixture. */
export const REQUEST_ID = { 'x-amzn-requestid': '5f1c7d1e-0000-4000-8000-000000b3d70c' };

/** The live API splits streamed text in pieces; two keeps every delta non-empty. */
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
      return { kind: 'redacted_thinking', data: expected.data };
    case 'tool_use':
      return { kind: 'tool_call', name: expected.name, input: expected.input, id: null, chunks: 2 };
  }
}

/** A stable wire id per scenario, so regenerating changes nothing. */
function seqOf(scenario: string): number {
  let hash = 7;
  for (const ch of scenario) hash = (hash * 31 + ch.charCodeAt(0)) % 999_983;
  return hash;
}

/** A canonical reply as the wire-formats renderer takes it. */
export function contextOf(
  reply: Omit<MessageReply, 'kind' | 'chunkDelayMs'>,
  scenario: string,
): RenderContext {
  return {
    reply: { kind: 'message', chunkDelayMs: 0, ...reply },
    model: 'us.anthropic.claude-sonnet-4-5-20250929-v1:0',
    seq: seqOf(scenario),
    body: {},
  };
}

function expectedContext(reply: ExpectedReply): RenderContext {
  const { input_tokens, output_tokens, cached_input_tokens, cache_creation_input_tokens } =
    reply.usage;
  return contextOf(
    {
      blocks: reply.content.map(block),
      usage: { input_tokens, output_tokens, cached_input_tokens, cache_creation_input_tokens },
      stopReason: reply.stop_reason,
    },
    reply.scenario,
  );
}

/** Whether a frame is the delta `cut` stops after. */
function isCutPoint(frame: BedrockFrame, cut: NonNullable<ExpectedReply['cut']>): boolean {
  if (!('event' in frame) || frame.event !== 'contentBlockDelta') return false;
  const delta = frame.payload.delta as Record<string, unknown> | undefined;
  return cut.after === 'first-text-delta'
    ? delta?.text !== undefined
    : delta?.toolUse !== undefined;
}

/** The frames of a streamed reply, up to and including the cut point when it stops short. */
function streamFrames(reply: ExpectedReply): BedrockFrame[] {
  const { frames } = bedrockStreamFrames(expectedContext(reply));
  if (!reply.cut) return frames;
  const { cut } = reply;
  const at = frames.findIndex((frame) => isCutPoint(frame, cut));
  if (at < 0) throw new Error(`${reply.scenario}: no frame to cut after (${cut.after})`);
  return frames.slice(0, at + 1);
}

/**
 * Bedrock's status and message for each failure the suite expects; the renderer names the
 * exception from the status (429 ThrottlingException, 403 AccessDeniedException, ...).
 */
const FAILURES: Record<ExpectedFailure['failure'], { status: number; message: string }> = {
  rate_limit: {
    status: 429,
    message: 'Too many requests, please wait before trying again.',
  },
  auth: {
    status: 403,
    message: "You don't have access to the model with the specified model ID.",
  },
  server_error: {
    status: 500,
    message:
      'The system encountered an unexpected error during processing. Try your request again.',
  },
  context_overflow: {
    status: 400,
    message: 'Input is too long for requested model.',
  },
  invalid_request: {
    status: 400,
    message:
      'A conversation must start with a user message. Try again with a conversation that starts with a user message.',
  },
  overloaded: {
    status: 503,
    message: 'Bedrock is unable to process your request.',
  },
};

/** A Bedrock error response: status, `x-amzn-errortype`, `{"message"}` (a scripted retry hint). */
export function bedrockError(
  failure: ExpectedFailure['failure'],
  retryAfterSeconds: number | null = null,
): RenderedError {
  const { status, message } = FAILURES[failure];
  const shape =
    failure === 'overloaded'
      ? 'overloaded'
      : failure === 'context_overflow'
        ? 'context_overflow'
        : 'status';
  const rendered = bedrockFormat().error(
    { kind: 'error', status, shape, message, retryAfterSeconds },
    0,
  );
  return {
    status: rendered.status,
    headers: { ...rendered.headers, ...REQUEST_ID },
    body: rendered.body,
  };
}

/** The conformance suite's expected replies in Bedrock's wire format. */
export const bedrockFixtureRenderer: FixtureRenderer = {
  streamFormat: 'eventstream',
  headers: REQUEST_ID,
  reply: (reply) => bedrockFormat().reply(expectedContext(reply)),
  stream: (reply) => streamFrames(reply).map(encodeBedrockFrame),
  error: (failure) => bedrockError(failure.failure, failure.retryAfterSeconds ?? null),
};

/** A whole Converse reply as a fixture response. */
export function json(context: RenderContext, options: BedrockWireOptions = {}): ScriptedResponse {
  return {
    type: 'json',
    status: 200,
    headers: { ...REQUEST_ID },
    body: bedrockFormat(options).reply(context),
  };
}

/** Frames as a binary stream fixture response. */
export function frames(list: readonly BedrockFrame[]): ScriptedResponse {
  return {
    type: 'binary-stream',
    status: 200,
    headers: { ...REQUEST_ID },
    contentType: 'application/vnd.amazon.eventstream',
    chunks: list.map(encodeBedrockFrame),
  };
}

/**
 * The hand-made scenarios (`handRecorded` in the catalog) Bedrock can express: a refusal (a
 * guardrail stop with the guardrail's text), an empty reply cut at the limit, a tool name
 * outside the canonical rule. `served-model` has no Bedrock form: Converse names no model.
 */
function handMadeFixtures(): ConformanceFixtures {
  const usage = (input_tokens: number, output_tokens: number) => ({ input_tokens, output_tokens });
  return {
    refusal: [
      json(
        contextOf(
          {
            blocks: [{ kind: 'text', text: EXPECTED.refusal.reply, chunks: 1 }],
            usage: usage(25, 8),
            stopReason: 'end_turn',
          },
          'refusal',
        ),
        { stopReason: 'guardrail_intervened' },
      ),
    ],
    'empty-reply-length': [
      json(
        contextOf(
          { blocks: [], usage: usage(40, 256), stopReason: 'max_tokens' },
          'empty-reply-length',
        ),
      ),
    ],
    'tool-name-outside-rule': [
      json(
        contextOf(
          {
            blocks: [
              {
                kind: 'tool_call',
                name: EXPECTED.foreignToolName.tool,
                input: EXPECTED.foreignToolName.input,
                id: 'tooluse_FunctionsDotReadFile01',
                chunks: 1,
              },
            ],
            usage: usage(380, 21),
            stopReason: 'tool_use',
          },
          'tool-name-outside-rule',
        ),
      ),
    ],
  };
}

/** Every conformance fixture: rendered from the suite's expectations, plus the hand-made ones. */
export function conformanceFixtures(): ConformanceFixtures {
  return {
    ...renderFixtures(bedrockFixtureRenderer, BEDROCK_FIXTURE_FEATURES),
    ...handMadeFixtures(),
  };
}

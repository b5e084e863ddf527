import type { ErrorClass, StopReason, TokenUsage } from '@yourtool/core';
import { EXPECTED, type ScenarioName } from './catalog.js';
import type { StreamEnding } from './server.js';
/** A block of an expected reply, in canonical terms (tool calls carry no id: the wire's own). */
export type ExpectedBlock =
  | { type: 'text'; text: string }
  | { type: 'thinking'; text: string; signature?: string }
  | { type: 'redacted_thinking'; data: string }
  | { type: 'tool_use'; name: string; input: Record<string, unknown> };

/** A reply a scenario's fixture must carry, for a fixture renderer to put in wire form. */
export interface ExpectedReply {
  kind: 'reply';
  /** The scenario it is for (and its position among the scenario's responses). */
  scenario: ScenarioName;
  /** Streamed (`stream()`) or whole (`complete()`). */
  stream: boolean;
  content: ExpectedBlock[];
  stop_reason: Extract<StopReason, 'end_turn' | 'tool_use' | 'stop_sequence'>;
  usage: TokenUsage;
  /**
   * Streams that stop short (failure and cancellation scenarios): the renderer returns the
   * chunks up to and including the one carrying the first text delta (`first-text-delta`) or
   * the first tool input fragment (`first-tool-input-fragment`, or the whole call for a provider
   * that sends calls whole), and nothing after it. The writer records `ending`.
   */
  cut?: { after: 'first-text-delta' | 'first-tool-input-fragment'; ending: StreamEnding };
}

/** A provider failure a scenario's fixture must carry. */
export interface ExpectedFailure {
  kind: 'error';
  scenario: ScenarioName;
  /** The class it must map to; `overloaded` is the provider's own overload signal (retried). */
  failure: Exclude<ErrorClass, 'cancelled' | 'other' | 'network'> | 'overloaded';
  /** A retry hint the response must carry (`retry-after` / `retry-after-ms`), in seconds. */
  retryAfterSeconds?: number;
}

/** A dropped connection. */
export interface ExpectedHangup {
  kind: 'hangup';
  scenario: ScenarioName;
}

/** One response the suite expects for a scenario. */
export type ExpectedResponse = ExpectedReply | ExpectedFailure | ExpectedHangup;

/** What the provider does differently, as declared to `describeAdapterConformance`. */
export interface ExpectedFeatures {
  signedThinking?: boolean;
  redactedThinking?: boolean;
  /** `emulated`: the sampling reply goes on past the stop sequence; the adapter cuts it. */
  stopSequences?: 'sent' | 'emulated';
  /** Include the thinking scenarios (the model supports thinking). Default false. */
  thinking?: boolean;
  /** Include the image scenarios. Default false. */
  images?: boolean;
  /** Include structured output. Default false. */
  structuredOutput?: boolean;
  /** Include parallel tool calls. Default true. */
  parallelToolCalls?: boolean;
}

const text = (t: string): ExpectedBlock => ({ type: 'text', text: t });

type ExpectedSet = Partial<Record<ScenarioName, ExpectedResponse[]>>;

/** What {@link expectedReply} builds a reply from; not streamed and `end_turn` by default. */
interface ReplySpec {
  stream?: boolean;
  content: ExpectedBlock[];
  stop_reason?: ExpectedReply['stop_reason'];
  usage: TokenUsage;
  cut?: ExpectedReply['cut'];
}

function expectedReply(scenario: ScenarioName, spec: ReplySpec): ExpectedReply {
  return {
    kind: 'reply',
    scenario,
    stream: spec.stream ?? false,
    content: spec.content,
    stop_reason: spec.stop_reason ?? 'end_turn',
    usage: spec.usage,
    ...(spec.cut ? { cut: spec.cut } : {}),
  };
}

/** A text answer ending the turn. */
const plain = (scenario: ScenarioName, answer: string, usage: TokenUsage, stream = false) =>
  expectedReply(scenario, { stream, content: [text(answer)], usage });

/** The answer after a replayed history. */
const after = (scenario: ScenarioName) =>
  plain(scenario, EXPECTED.replyAfterHistory.reply, EXPECTED.replyAfterHistory.usage);

const toolCallBlocks = (): ExpectedBlock[] => [
  text(EXPECTED.toolCall.text),
  { type: 'tool_use', name: EXPECTED.toolCall.tool, input: { ...EXPECTED.toolCall.input } },
];

/** The sampling reply: cut at the stop sequence by the provider, or by the adapter. */
function samplingReply(features: ExpectedFeatures): ExpectedReply {
  return features.stopSequences === 'emulated'
    ? plain(
        'sampling',
        `${EXPECTED.sampling.reply}${EXPECTED.sampling.stopSequences[0]} and more`,
        EXPECTED.sampling.usage,
      )
    : expectedReply('sampling', {
        content: [text(EXPECTED.sampling.reply)],
        stop_reason: 'stop_sequence',
        usage: EXPECTED.sampling.usage,
      });
}

/** Replies every provider gives: text, history, tool calls and cached usage. */
function replyResponses(features: ExpectedFeatures): ExpectedSet {
  const toolCall = { content: toolCallBlocks(), stop_reason: 'tool_use' } as const;
  return {
    text: [plain('text', EXPECTED.text.reply, EXPECTED.text.usage)],
    'text-stream': [plain('text-stream', EXPECTED.text.reply, EXPECTED.text.usage, true)],
    'multi-turn': [plain('multi-turn', EXPECTED.multiTurn.reply, EXPECTED.multiTurn.usage)],
    'system-prompt': [plain('system-prompt', EXPECTED.system.reply, EXPECTED.system.usage)],
    sampling: [samplingReply(features)],
    'tool-call': [expectedReply('tool-call', { ...toolCall, usage: EXPECTED.toolCall.usage })],
    'tool-call-stream': [
      expectedReply('tool-call-stream', {
        ...toolCall,
        stream: true,
        usage: EXPECTED.toolCall.usage,
      }),
    ],
    'tool-call-no-args': [
      expectedReply('tool-call-no-args', {
        stream: true,
        content: [{ type: 'tool_use', name: EXPECTED.noArgs.tool, input: {} }],
        stop_reason: 'tool_use',
        usage: EXPECTED.noArgs.usage,
      }),
    ],
    'tool-result-error': [
      plain('tool-result-error', EXPECTED.toolResultError.reply, EXPECTED.toolResultError.usage),
    ],
    'foreign-history': [after('foreign-history')],
    'unanswered-tool-use': [after('unanswered-tool-use')],
    'capability-honesty': [after('capability-honesty')],
    'usage-cached': [plain('usage-cached', EXPECTED.usageCached.reply, EXPECTED.usageCached.usage)],
    'usage-cached-stream': [
      plain('usage-cached-stream', EXPECTED.usageCached.reply, EXPECTED.usageCached.usage, true),
    ],
  };
}

/** Provider failures, and the retries that recover from them. */
function failureResponses(): ExpectedSet {
  return {
    'error-rate_limit': [{ kind: 'error', scenario: 'error-rate_limit', failure: 'rate_limit' }],
    'error-auth': [{ kind: 'error', scenario: 'error-auth', failure: 'auth' }],
    'error-server_error': [
      { kind: 'error', scenario: 'error-server_error', failure: 'server_error' },
    ],
    'error-network': [{ kind: 'hangup', scenario: 'error-network' }],
    'error-context_overflow': [
      { kind: 'error', scenario: 'error-context_overflow', failure: 'context_overflow' },
    ],
    'error-invalid_request': [
      { kind: 'error', scenario: 'error-invalid_request', failure: 'invalid_request' },
    ],
    'retry-after': [
      { kind: 'error', scenario: 'retry-after', failure: 'rate_limit', retryAfterSeconds: 0.1 },
      plain('retry-after', EXPECTED.text.reply, EXPECTED.text.usage),
    ],
    'overloaded-then-success': [
      { kind: 'error', scenario: 'overloaded-then-success', failure: 'overloaded' },
      plain('overloaded-then-success', EXPECTED.text.reply, EXPECTED.text.usage),
    ],
  };
}

/** Streams that stop short: broken, or stalled for the cancellation scenarios. */
function cutResponses(): ExpectedSet {
  const textReply = {
    stream: true,
    content: [text(EXPECTED.text.reply)],
    usage: EXPECTED.text.usage,
  };
  return {
    'stream-error-mid-stream': [
      expectedReply('stream-error-mid-stream', {
        ...textReply,
        cut: { after: 'first-text-delta', ending: 'destroy' },
      }),
    ],
    'cancel-mid-text': [
      expectedReply('cancel-mid-text', {
        ...textReply,
        cut: { after: 'first-text-delta', ending: 'stall' },
      }),
    ],
    'cancel-mid-tool-input': [
      expectedReply('cancel-mid-tool-input', {
        stream: true,
        content: toolCallBlocks(),
        stop_reason: 'tool_use',
        usage: EXPECTED.toolCall.usage,
        cut: { after: 'first-tool-input-fragment', ending: 'stall' },
      }),
    ],
  };
}

/** The thinking blocks of a thinking reply, then its text. */
function thinkingBlocks(features: ExpectedFeatures): ExpectedBlock[] {
  return [
    features.signedThinking
      ? {
          type: 'thinking',
          text: EXPECTED.thinking.thinking,
          signature: EXPECTED.thinking.signature,
        }
      : { type: 'thinking', text: EXPECTED.thinking.thinking },
    ...(features.redactedThinking
      ? [{ type: 'redacted_thinking', data: EXPECTED.thinking.redacted } as const]
      : []),
    text(EXPECTED.thinking.reply),
  ];
}

/** Replies of the scenarios a provider may not support: parallel calls, images, thinking... */
function optionalResponses(features: ExpectedFeatures): ExpectedSet {
  const out: ExpectedSet = {};
  if (features.parallelToolCalls !== false) {
    out['parallel-tool-calls'] = [
      expectedReply('parallel-tool-calls', {
        stream: true,
        content: EXPECTED.parallelToolCalls.inputs.map(
          (input): ExpectedBlock => ({
            type: 'tool_use',
            name: EXPECTED.parallelToolCalls.tool,
            input: { ...input },
          }),
        ),
        stop_reason: 'tool_use',
        usage: EXPECTED.parallelToolCalls.usage,
      }),
    ];
  }
  if (features.images) {
    out['tool-result-image'] = [
      plain('tool-result-image', EXPECTED.toolResultImage.reply, EXPECTED.toolResultImage.usage),
    ];
    out.images = [plain('images', EXPECTED.images.reply, EXPECTED.images.usage)];
  }
  if (features.thinking) {
    const thinking = { content: thinkingBlocks(features), usage: EXPECTED.thinking.usage };
    out.thinking = [expectedReply('thinking', thinking)];
    out['thinking-stream'] = [expectedReply('thinking-stream', { ...thinking, stream: true })];
    out['thinking-replay'] = [after('thinking-replay')];
  }
  if (features.structuredOutput) {
    out['structured-output'] = [
      plain('structured-output', EXPECTED.structured.reply, EXPECTED.structured.usage),
    ];
  }
  return out;
}

/**
 * Every response the suite expects, scenario by scenario, derived from `EXPECTED` and the
 * catalog: what a provider must answer for each scenario that needs a fixture of its own.
 * Scenarios whose fixture the suite supplies itself (`error-other`, `error-malformed-reply`)
 * or that need none are absent.
 */
export function expectedResponses(
  features: ExpectedFeatures = {},
): Partial<Record<ScenarioName, ExpectedResponse[]>> {
  return {
    ...replyResponses(features),
    ...failureResponses(),
    ...cutResponses(),
    ...optionalResponses(features),
  };
}

import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ErrorClass, StopReason, TokenUsage } from '@yourtool/core';
import { EXPECTED, type ScenarioName } from './catalog.js';
import type { ConformanceFixtures } from './fixtures.js';
import type { ScriptedResponse, StreamEnding } from './server.js';

/** A block of an expected reply, in canonical terms (tool calls carry no id: the wire's own). */
export type ExpectedBlock =
  | { type: 'text'; text: string }
  | { type: 'thinking'; text: string; signature?: string }
  | { type: 'redacted_thinking'; data: string }
  | { type: 'tool_use'; name: string; input: Record<string, unknown> };

/** A reply a scenario's fixture must carry, for a {@link FixtureRenderer} to put in wire form. */
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

/**
 * Every response the suite expects, scenario by scenario, derived from `EXPECTED` and the
 * catalog: what a provider must answer for each scenario that needs a fixture of its own.
 * Scenarios whose fixture the suite supplies itself (`error-other`, `error-malformed-reply`)
 * or that need none are absent.
 */
export function expectedResponses(
  features: ExpectedFeatures = {},
): Partial<Record<ScenarioName, ExpectedResponse[]>> {
  const reply = (
    scenario: ScenarioName,
    stream: boolean,
    content: ExpectedBlock[],
    stop_reason: ExpectedReply['stop_reason'],
    usage: TokenUsage,
    cut?: ExpectedReply['cut'],
  ): ExpectedReply => ({
    kind: 'reply',
    scenario,
    stream,
    content,
    stop_reason,
    usage,
    ...(cut ? { cut } : {}),
  });
  const plain = (scenario: ScenarioName, answer: string, usage: TokenUsage, stream = false) =>
    reply(scenario, stream, [text(answer)], 'end_turn', usage);
  const toolCall = [
    text(EXPECTED.toolCall.text),
    { type: 'tool_use', name: EXPECTED.toolCall.tool, input: { ...EXPECTED.toolCall.input } },
  ] satisfies ExpectedBlock[];
  const thinking: ExpectedBlock[] = [
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
  const after = (scenario: ScenarioName) =>
    plain(scenario, EXPECTED.replyAfterHistory.reply, EXPECTED.replyAfterHistory.usage);
  const out: Partial<Record<ScenarioName, ExpectedResponse[]>> = {
    text: [plain('text', EXPECTED.text.reply, EXPECTED.text.usage)],
    'text-stream': [plain('text-stream', EXPECTED.text.reply, EXPECTED.text.usage, true)],
    'multi-turn': [plain('multi-turn', EXPECTED.multiTurn.reply, EXPECTED.multiTurn.usage)],
    'system-prompt': [plain('system-prompt', EXPECTED.system.reply, EXPECTED.system.usage)],
    sampling: [
      features.stopSequences === 'emulated'
        ? plain(
            'sampling',
            `${EXPECTED.sampling.reply}${EXPECTED.sampling.stopSequences[0]} and more`,
            EXPECTED.sampling.usage,
          )
        : reply(
            'sampling',
            false,
            [text(EXPECTED.sampling.reply)],
            'stop_sequence',
            EXPECTED.sampling.usage,
          ),
    ],
    'tool-call': [reply('tool-call', false, toolCall, 'tool_use', EXPECTED.toolCall.usage)],
    'tool-call-stream': [
      reply('tool-call-stream', true, toolCall, 'tool_use', EXPECTED.toolCall.usage),
    ],
    'tool-call-no-args': [
      reply(
        'tool-call-no-args',
        true,
        [{ type: 'tool_use', name: EXPECTED.noArgs.tool, input: {} }],
        'tool_use',
        EXPECTED.noArgs.usage,
      ),
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
    'stream-error-mid-stream': [
      reply(
        'stream-error-mid-stream',
        true,
        [text(EXPECTED.text.reply)],
        'end_turn',
        EXPECTED.text.usage,
        {
          after: 'first-text-delta',
          ending: 'destroy',
        },
      ),
    ],
    'cancel-mid-text': [
      reply('cancel-mid-text', true, [text(EXPECTED.text.reply)], 'end_turn', EXPECTED.text.usage, {
        after: 'first-text-delta',
        ending: 'stall',
      }),
    ],
    'cancel-mid-tool-input': [
      reply('cancel-mid-tool-input', true, toolCall, 'tool_use', EXPECTED.toolCall.usage, {
        after: 'first-tool-input-fragment',
        ending: 'stall',
      }),
    ],
  };
  if (features.parallelToolCalls !== false) {
    out['parallel-tool-calls'] = [
      reply(
        'parallel-tool-calls',
        true,
        EXPECTED.parallelToolCalls.inputs.map(
          (input): ExpectedBlock => ({
            type: 'tool_use',
            name: EXPECTED.parallelToolCalls.tool,
            input: { ...input },
          }),
        ),
        'tool_use',
        EXPECTED.parallelToolCalls.usage,
      ),
    ];
  }
  if (features.images) {
    out['tool-result-image'] = [
      plain('tool-result-image', EXPECTED.toolResultImage.reply, EXPECTED.toolResultImage.usage),
    ];
    out.images = [plain('images', EXPECTED.images.reply, EXPECTED.images.usage)];
  }
  if (features.thinking) {
    out.thinking = [reply('thinking', false, thinking, 'end_turn', EXPECTED.thinking.usage)];
    out['thinking-stream'] = [
      reply('thinking-stream', true, thinking, 'end_turn', EXPECTED.thinking.usage),
    ];
    out['thinking-replay'] = [after('thinking-replay')];
  }
  if (features.structuredOutput) {
    out['structured-output'] = [
      plain('structured-output', EXPECTED.structured.reply, EXPECTED.structured.usage),
    ];
  }
  return out;
}

/** A provider error response in wire form. */
export interface RenderedError {
  status: number;
  headers?: Record<string, string>;
  body: unknown;
}

/** Puts expected responses into one provider's wire format. */
export interface FixtureRenderer {
  /** How the provider streams: server-sent events or newline-delimited JSON. */
  streamFormat: 'sse' | 'ndjson';
  /** The JSON body of a whole reply. */
  reply(reply: ExpectedReply): unknown;
  /**
   * A streamed reply's chunks as the provider sends them: complete SSE events (ending in a
   * blank line) or NDJSON lines (ending in `\n`). Split text and tool input into at least two
   * pieces. Honour `reply.cut`.
   */
  stream(reply: ExpectedReply): string[];
  /** An error response; the retry hint goes in a header. */
  error(failure: ExpectedFailure): RenderedError;
  /** Response headers on every reply (e.g. a request id header). */
  headers?: Record<string, string>;
}

/**
 * Builds the fixtures of every scenario from {@link expectedResponses}, rendered by the
 * provider's `renderer`: the in-memory form `describeAdapterConformance` takes.
 */
export function renderFixtures(
  renderer: FixtureRenderer,
  features: ExpectedFeatures = {},
): ConformanceFixtures {
  const fixtures: ConformanceFixtures = {};
  for (const [scenario, responses] of Object.entries(expectedResponses(features))) {
    fixtures[scenario] = (responses ?? []).map((expected): ScriptedResponse => {
      switch (expected.kind) {
        case 'hangup':
          return { type: 'hangup' };
        case 'error': {
          const rendered = renderer.error(expected);
          return {
            type: 'json',
            status: rendered.status,
            headers: { ...rendered.headers },
            body: rendered.body,
          };
        }
      }
      if (!expected.stream) {
        return {
          type: 'json',
          status: 200,
          headers: { ...renderer.headers },
          body: renderer.reply(expected),
        };
      }
      return {
        type: 'stream',
        status: 200,
        headers: { ...renderer.headers },
        contentType: renderer.streamFormat === 'sse' ? 'text/event-stream' : 'application/x-ndjson',
        chunks: renderer.stream(expected),
        ...(expected.cut ? { ending: expected.cut.ending } : {}),
      };
    });
  }
  return fixtures;
}

/**
 * Writes fixtures in the layout `loadFixtureDirectory` reads (`<dir>/<scenario>/<n>-response.json`,
 * `<n>-stream.sse` / `.ndjson` with a `.meta.json` sidecar), so they can be reviewed and
 * checked with the provider's own SDK parser. Returns the files written, relative to `dir`.
 *
 * ```ts
 * writeFixtureDirectory('test/fixtures', renderFixtures(myRenderer));
 * ```
 */
export function writeFixtureDirectory(dir: string, fixtures: ConformanceFixtures): string[] {
  const written: string[] = [];
  const write = (relative: string, content: string) => {
    writeFileSync(join(dir, relative), content);
    written.push(relative);
  };
  for (const [scenario, responses] of Object.entries(fixtures)) {
    mkdirSync(join(dir, scenario), { recursive: true });
    (responses ?? []).forEach((response, i) => {
      const n = i + 1;
      switch (response.type) {
        case 'hangup':
          write(join(scenario, `${n}-hangup.json`), `${JSON.stringify({ hangup: true })}\n`);
          return;
        case 'json':
          write(
            join(scenario, `${n}-response.json`),
            `${JSON.stringify(
              {
                status: response.status ?? 200,
                headers: response.headers ?? {},
                body: response.body,
              },
              null,
              2,
            )}\n`,
          );
          return;
        case 'text':
          write(
            join(scenario, `${n}-response.json`),
            `${JSON.stringify(
              {
                status: response.status ?? 200,
                headers: response.headers ?? {},
                rawBody: response.body,
              },
              null,
              2,
            )}\n`,
          );
          return;
        case 'stream': {
          const ext = response.contentType === 'text/event-stream' ? 'sse' : 'ndjson';
          if (response.contentType === 'application/json') {
            throw new Error(
              `fixture ${scenario}/${n}: a JSON body served in pieces has no file form`,
            );
          }
          write(join(scenario, `${n}-stream.${ext}`), response.chunks.join(''));
          const meta = {
            status: response.status ?? 200,
            headers: response.headers ?? {},
            ...(response.ending ? { ending: response.ending } : {}),
            ...(response.delayMs ? { delayMs: response.delayMs } : {}),
          };
          write(join(scenario, `${n}-stream.meta.json`), `${JSON.stringify(meta, null, 2)}\n`);
          return;
        }
      }
    });
  }
  return written;
}

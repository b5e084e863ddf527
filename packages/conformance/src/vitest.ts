import {
  type AdapterError,
  AdapterError as AdapterErrorClass,
  type AttemptEvent,
  type CanonicalRequestInput,
  type ContentBlock,
  conformsToToolIdRules,
  createAdapterError,
  createMemoryLogger,
  createMessage,
  deriveProviderToolId,
  type ErrorClass,
  fitsToolNameRules,
  isCancelledError,
  type MemoryLogger,
  type Message,
  type MessageMetadata,
  newRequestId,
  newSessionId,
  newToolUseId,
  type ProviderAdapter,
  parseModelId,
  STRICT_TOOL_NAME_RULES,
  type StreamEvent,
  type ToolDefinition,
  ToolIdMap,
  withStreamInvariants,
} from '@yourtool/core';
import fc from 'fast-check';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { collectCheckedStream, completeEvent, pickUsage, streamedText } from './assertions.js';
import {
  CONFORMANCE_API_KEY,
  describeScenario,
  EXPECTED,
  type ScenarioName,
  TEST_IMAGE_URL,
  TEST_PNG_BASE64,
} from './catalog.js';
import type { ScenarioFixture } from './fixtures.js';
import type { AdapterConformanceOptions } from './inspector.js';
import { registerFidelityScenarios } from './scenarios/fidelity.js';
import { type LoopbackServer, type ScriptedResponse, startLoopbackServer } from './server.js';

export type { AdapterConformanceOptions, ConformanceContext, WireInspector } from './inspector.js';

/** Tool definitions the scenarios declare. */
export const CONFORMANCE_TOOLS: Record<'read_file' | 'get_time' | 'render_chart', ToolDefinition> =
  {
    read_file: {
      name: 'read_file',
      description: 'Read a UTF-8 text file from the workspace.',
      input_schema: {
        type: 'object',
        properties: { path: { type: 'string', description: 'Workspace-relative path' } },
        required: ['path'],
      },
      side_effects: 'read',
      requires_workspace: true,
    },
    get_time: {
      name: 'get_time',
      description: 'Current time in ISO-8601.',
      input_schema: { type: 'object', properties: {} },
      side_effects: 'none',
      requires_workspace: false,
    },
    render_chart: {
      name: 'render_chart',
      description: 'Render a chart of the given series to a PNG.',
      input_schema: {
        type: 'object',
        properties: { series: { type: 'array', items: { type: 'number' } } },
        required: ['series'],
      },
      side_effects: 'write',
      requires_workspace: true,
    },
  };

const ERROR_CLASSES: ErrorClass[] = [
  'rate_limit',
  'auth',
  'server_error',
  'network',
  'context_overflow',
  'invalid_request',
  'other',
];

/** Fixtures the suite supplies when an adapter brings none: they look alike on every provider. */
const DEFAULT_FIXTURES: Partial<Record<ScenarioName, ScenarioFixture>> = {
  'error-network': [{ type: 'hangup' }],
  // A captive portal's redirect: neither a provider error (4xx/5xx) nor a reply.
  'error-other': [
    {
      type: 'text',
      status: 302,
      headers: { 'content-type': 'text/html; charset=utf-8' },
      body: '<html><body>Moved: the network sign-in page has no address for you</body></html>',
    },
  ],
  // A `Connection: close` reply whose body stops before its last chunk, then a clean close.
  'error-network-eof': [
    {
      type: 'stream',
      status: 200,
      headers: { connection: 'close' },
      contentType: 'application/json',
      chunks: ['{"id": "cut-short", "content": ['],
      ending: 'close',
    },
  ],
  'error-malformed-reply': [
    {
      type: 'text',
      status: 200,
      headers: { 'content-type': 'application/json' },
      body: '{"truncated": "the reply stops inside a str',
    },
  ],
};

/** A short description of what a call threw, for failure messages. */
function describeError(error: unknown): string {
  if (error === undefined) return 'nothing';
  if (error instanceof Error) {
    const errorClass = (error as { error_class?: unknown }).error_class;
    return `${error.name}${typeof errorClass === 'string' ? ` (${errorClass})` : ''}: ${error.message}`;
  }
  return String(error);
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * Registers the conformance suite for one adapter: one vitest test per scenario of the catalog,
 * each served by a loopback server through the adapter's real SDK. Scenarios the model's
 * capabilities rule out are skipped with the reason in the test name.
 */
export function describeAdapterConformance(options: AdapterConformanceOptions): void {
  const { wire, model } = options;
  const features = {
    signedThinking: false,
    redactedThinking: false,
    temperature: 'sent' as 'sent' | 'dropped',
    wholeToolCalls: false,
    urlImages: 'sent' as 'sent' | 'dropped',
    stopSequenceHit: 'reported' as 'reported' | 'unreported',
    stopSequences: 'sent' as 'sent' | 'emulated',
    interleavedToolFragments: false,
    typedContentParts: false,
    refusal: 'reported' as 'reported' | 'none',
    ...options.features,
  };
  const wireToolIds = options.wireToolIds ?? true;
  const toolNameRules = options.toolNameRules ?? STRICT_TOOL_NAME_RULES;
  const probe = options.createAdapter({
    baseUrl: 'http://127.0.0.1:9',
    apiKey: CONFORMANCE_API_KEY,
    maxRetries: 0,
    logger: createMemoryLogger(),
    retry: { baseDelayMs: 1, maxDelayMs: 1 },
    timeoutSeconds: 10,
    idleTimeoutSeconds: 10,
  });
  const capabilities = options.capabilities ?? probe.capabilitiesFor(model);
  void probe.close();
  const { provider } = parseModelId(model);

  describe(`${options.name} adapter conformance (${model})`, () => {
    let server: LoopbackServer;
    const opened: ProviderAdapter[] = [];

    beforeAll(async () => {
      server = await startLoopbackServer();
    });
    afterAll(async () => {
      await server.close();
    });
    beforeEach(() => {
      server.reset();
    });
    afterEach(async () => {
      await Promise.all(opened.splice(0).map((a) => a.close()));
    });

    interface Setup {
      adapter: ProviderAdapter;
      logger: MemoryLogger;
      session_id: string;
    }

    /** Queues a scenario's fixture (times over) and builds a fresh adapter. */
    function setup(
      scenario: ScenarioName,
      opts: {
        maxRetries?: number;
        fixtureOf?: ScenarioName;
        times?: number;
        /** Replaces the fixture (e.g. one derived from another scenario's). */
        responses?: ScriptedResponse[];
        timeoutSeconds?: number;
        idleTimeoutSeconds?: number;
      } = {},
    ): Setup {
      const source = opts.fixtureOf ?? scenario;
      const fixture = options.fixtures[source] ?? DEFAULT_FIXTURES[source];
      const description = describeScenario(source);
      if (description.fixture !== null && !fixture) {
        throw new Error(
          `no fixture for scenario "${source}". Record the provider's response and add it to the fixtures ` +
            `(e.g. test/fixtures/${source}/1-response.json). It must be: ${description.fixture}`,
        );
      }
      for (let i = 0; i < (opts.times ?? 1); i++)
        server.enqueue(...(opts.responses ?? ((fixture ?? []) as ScriptedResponse[])));
      const logger = createMemoryLogger();
      const adapter = options.createAdapter({
        baseUrl: server.url,
        apiKey: CONFORMANCE_API_KEY,
        maxRetries: opts.maxRetries ?? 0,
        logger,
        retry: { baseDelayMs: 5, maxDelayMs: 20 },
        // long enough never to matter, short enough that a hang fails the scenario, not vitest
        timeoutSeconds: opts.timeoutSeconds ?? 10,
        idleTimeoutSeconds: opts.idleTimeoutSeconds ?? 10,
      });
      opened.push(adapter);
      return { adapter, logger, session_id: newSessionId() };
    }

    const body = (index = -1) => {
      const request = server.requests.at(index);
      if (!request) throw new Error('the adapter sent no request to the loopback server');
      if (request.unscripted) {
        throw new Error(
          `the adapter sent more requests than the scenario scripted (${request.method} ${request.path}); ` +
            'is it retrying something it should not, or calling a second endpoint?',
        );
      }
      return request.body;
    };

    function request(
      partial: Omit<CanonicalRequestInput, 'request_id' | 'model' | 'max_output_tokens'> & {
        max_output_tokens?: number;
      },
    ): CanonicalRequestInput {
      return { request_id: newRequestId(), model, max_output_tokens: 1024, ...partial };
    }

    const user = (s: Setup, content: string | ContentBlock[]): Message =>
      createMessage({
        session_id: s.session_id,
        role: 'user',
        content: typeof content === 'string' ? [{ type: 'text', text: content }] : content,
      });
    const system = (s: Setup, text: string): Message =>
      createMessage({
        session_id: s.session_id,
        role: 'system',
        content: [{ type: 'text', text }],
      });
    const assistant = (
      s: Setup,
      content: ContentBlock[],
      from = model,
      metadata: Partial<MessageMetadata> = {},
    ): Message =>
      createMessage({
        session_id: s.session_id,
        role: 'assistant',
        content,
        metadata: {
          model: from,
          provider: parseModelId(from).provider,
          routing: {
            mode: 'default',
            chosen_model: from,
            reason: 'conformance',
            alternatives_considered: [],
          },
          usage: {
            input_tokens: 1,
            output_tokens: 1,
            cached_input_tokens: 0,
            cache_creation_input_tokens: 0,
            cost_usd: '0',
            pricing_version: 'conformance',
            latency_ms: 1,
          },
          ...metadata,
        },
      });
    const toolResult = (
      s: Setup,
      tool_use_id: string,
      content: ContentBlock[],
      is_error = false,
    ): Message =>
      createMessage({
        session_id: s.session_id,
        role: 'tool',
        content: [{ type: 'tool_result', tool_use_id, content: content as never, is_error }],
        metadata: { parent_tool_use_id: tool_use_id },
      });

    /**
     * Registers a scenario, or skips it with its reason (`unsupported`: why the provider's wire
     * format cannot express it).
     */
    function scenario(
      name: ScenarioName,
      run: () => Promise<void>,
      timeoutMs = 15_000,
      unsupported?: string,
    ): void {
      const description = describeScenario(name);
      const explicit = options.skip?.[name] ?? unsupported;
      const gate = description.requires;
      const reason =
        explicit ??
        (gate && !capabilities[gate] ? `${model} declares ${gate}: false` : undefined) ??
        (name.startsWith('thinking-replay') &&
        !features.signedThinking &&
        !features.redactedThinking
          ? 'the provider returns no signed or redacted thinking to replay'
          : undefined);
      const title = `${name}: ${description.checks}`;
      if (reason) {
        console.info(`[conformance] ${options.name}: skipping "${name}": ${reason}`);
        it.skip(`${title} (skipped: ${reason})`, () => {});
        return;
      }
      it(
        title,
        async () => {
          await run();
          expect(
            server.pending(),
            `scenario "${name}" scripted more responses than the adapter requested: it stopped early or reused a response`,
          ).toBe(0);
        },
        timeoutMs,
      );
    }

    // ---- replies ------------------------------------------------------------------------------

    scenario('text', async () => {
      const s = setup('text');
      const req = request({ messages: [user(s, EXPECTED.text.prompt)] });
      const res = await s.adapter.complete(req);
      expect(res.content, 'content of a plain text reply').toEqual([
        { type: 'text', text: EXPECTED.text.reply },
      ]);
      expect(res.stop_reason, 'map the provider\'s "end of turn" stop reason to end_turn').toBe(
        'end_turn',
      );
      expect(pickUsage(res.usage), 'usage mapping').toEqual(EXPECTED.text.usage);
      expect(res.request_id).toBe(req.request_id);
      expect(res.model, 'response.model is the canonical id').toBe(model);
      expect(res.provider).toBe(s.adapter.name);
      expect(server.requests).toHaveLength(1);
      expect(wire.stream(body()), 'complete() must not ask for a stream').toBe(false);
    });

    scenario('text-stream', async () => {
      const s = setup('text-stream');
      const req = request({ messages: [user(s, EXPECTED.text.prompt)], stream: true });
      const { events, error } = await collectCheckedStream(s.adapter.stream(req));
      expect(error, 'the stream failed').toBeUndefined();
      expect(events[0]).toMatchObject({
        type: 'message.start',
        request_id: req.request_id,
        model,
        provider: s.adapter.name,
      });
      const deltas = events.filter((e) => e.type === 'text.delta');
      expect(
        deltas.length,
        'text arrives as several text.delta events, not one',
      ).toBeGreaterThanOrEqual(2);
      expect(streamedText(events)).toBe(EXPECTED.text.reply);
      const done = completeEvent(events);
      expect(done.final_content).toEqual([{ type: 'text', text: EXPECTED.text.reply }]);
      expect(done.stop_reason).toBe('end_turn');
      expect(
        pickUsage(done.usage),
        'streamed usage must equal the non-streamed usage (ask the provider for it)',
      ).toEqual(EXPECTED.text.usage);
      expect(wire.stream(body()), 'stream() must ask for a stream').toBe(true);
    });

    scenario('multi-turn', async () => {
      const s = setup('multi-turn');
      const history = [
        user(s, EXPECTED.multiTurn.firstQuestion),
        assistant(s, [{ type: 'text', text: EXPECTED.multiTurn.firstAnswer }]),
        user(s, EXPECTED.multiTurn.secondQuestion),
      ];
      const res = await s.adapter.complete(request({ messages: history }));
      expect(res.content).toEqual([{ type: 'text', text: EXPECTED.multiTurn.reply }]);
      expect(pickUsage(res.usage)).toEqual(EXPECTED.multiTurn.usage);
      const sent = body();
      expect(wire.roles(sent), 'history roles on the wire').toEqual(['user', 'assistant', 'user']);
      expect(wire.texts(sent), 'history texts on the wire, in order').toEqual([
        EXPECTED.multiTurn.firstQuestion,
        EXPECTED.multiTurn.firstAnswer,
        EXPECTED.multiTurn.secondQuestion,
      ]);
    });

    scenario('system-prompt', async () => {
      const s = setup('system-prompt');
      const [first, second] = EXPECTED.system.systemMessages;
      const res = await s.adapter.complete(
        request({
          system_prompt: EXPECTED.system.systemPrompt,
          messages: [system(s, first), user(s, EXPECTED.system.prompt), system(s, second)],
        }),
      );
      expect(res.content).toEqual([{ type: 'text', text: EXPECTED.system.reply }]);
      const sent = body();
      expect(
        wire.systemText(sent),
        'system_prompt first, then every SYSTEM message, joined with "\\n\\n" (use core prepareHistory)',
      ).toBe([EXPECTED.system.systemPrompt, first, second].join('\n\n'));
      expect(wire.roles(sent), 'SYSTEM messages must not stay in the conversation').toEqual([
        'user',
      ]);
    });

    scenario('sampling', async () => {
      const s = setup('sampling');
      const res = await s.adapter.complete(
        request({
          messages: [user(s, EXPECTED.sampling.prompt)],
          stop_sequences: [...EXPECTED.sampling.stopSequences],
          temperature: EXPECTED.sampling.temperature,
          max_output_tokens: EXPECTED.sampling.maxOutputTokens,
        }),
      );
      expect(res.content).toEqual([{ type: 'text', text: EXPECTED.sampling.reply }]);
      if (features.stopSequenceHit === 'reported') {
        expect(res.stop_reason, 'a stop sequence hit maps to stop_sequence').toBe('stop_sequence');
      } else {
        expect(
          res.stop_reason,
          'the provider does not say a stop sequence matched: report end_turn, never a guess',
        ).toBe('end_turn');
      }
      const sent = body();
      expect(wire.maxOutputTokens(sent), 'max_output_tokens must reach the wire').toBe(
        EXPECTED.sampling.maxOutputTokens,
      );
      if (features.stopSequences === 'sent') {
        expect(wire.stopSequences(sent), 'stop_sequences must reach the wire').toEqual(
          EXPECTED.sampling.stopSequences,
        );
      } else {
        expect(
          wire.stopSequences(sent) ?? [],
          'this model refuses stop sequences: leave them out and cut the reply yourself',
        ).toEqual([]);
      }
      if (features.temperature === 'sent') {
        expect(wire.temperature(sent), 'temperature must reach the wire').toBe(
          EXPECTED.sampling.temperature,
        );
      } else {
        expect(
          wire.temperature(sent),
          'this provider refuses temperature: leave it out',
        ).toBeUndefined();
        expect(
          s.logger.warnings().some((w) => JSON.stringify(w).includes('temperature')),
          'leaving temperature out must be logged at WARN',
        ).toBe(true);
      }
    });

    // ---- tools --------------------------------------------------------------------------------

    scenario('tool-call', async () => {
      const s = setup('tool-call');
      const toolIdMap = new ToolIdMap();
      const res = await s.adapter.complete(
        request({
          messages: [user(s, EXPECTED.toolCall.prompt)],
          tools: [CONFORMANCE_TOOLS.read_file],
        }),
        { toolIdMap },
      );
      expect(res.content).toEqual([
        { type: 'text', text: EXPECTED.toolCall.text },
        {
          type: 'tool_use',
          id: expect.stringMatching(/^tu_[0-9A-Z]{26}$/),
          name: EXPECTED.toolCall.tool,
          input: EXPECTED.toolCall.input,
        },
      ]);
      expect(res.stop_reason, 'a tool call maps to stop_reason tool_use').toBe('tool_use');
      expect(pickUsage(res.usage)).toEqual(EXPECTED.toolCall.usage);
      const toolUse = res.content[1] as Extract<ContentBlock, { type: 'tool_use' }>;
      if (wireToolIds) {
        expect(
          toolIdMap.getProviderId(s.adapter.name, toolUse.id),
          'the provider id must be linked to the canonical id in the ToolIdMap passed in CallOptions',
        ).toBeTruthy();
      }
      expect(wire.toolNames(body()), 'tool definitions on the wire').toEqual(['read_file']);
    });

    scenario('tool-call-stream', async () => {
      const s = setup('tool-call-stream');
      const toolIdMap = new ToolIdMap();
      const { events, error } = await collectCheckedStream(
        s.adapter.stream(
          request({
            messages: [user(s, EXPECTED.toolCall.prompt)],
            tools: [CONFORMANCE_TOOLS.read_file],
            stream: true,
          }),
          { toolIdMap },
        ),
      );
      expect(error).toBeUndefined();
      const start = events.find((e) => e.type === 'tool.use_start');
      expect(start, 'tool.use_start').toMatchObject({
        tool_use_id: expect.stringMatching(/^tu_/),
        tool_name: 'read_file',
      });
      const fragments = events.flatMap((e) =>
        e.type === 'tool.use_input_delta' ? [e.partial_json] : [],
      );
      if (features.wholeToolCalls) {
        expect(
          fragments,
          'a tool call the provider sends whole is one tool.use_input_delta with its complete input JSON',
        ).toHaveLength(1);
        expect(JSON.parse(fragments[0] ?? '')).toEqual(EXPECTED.toolCall.input);
      } else {
        expect(
          fragments.length,
          'the fixture splits the input into fragments; each must be its own event',
        ).toBeGreaterThanOrEqual(2);
        expect(fragments.every((f) => typeof f === 'string')).toBe(true);
        expect(JSON.parse(fragments.join(''))).toEqual(EXPECTED.toolCall.input);
        expect(
          fragments.some((f) => !isJson(f)),
          'partial_json must be the raw provider fragments, not re-serialized or parsed pieces',
        ).toBe(true);
      }
      const end = events.find((e) => e.type === 'tool.use_end');
      expect(end).toMatchObject({
        tool_use_id: start?.type === 'tool.use_start' ? start.tool_use_id : '',
        final_input: EXPECTED.toolCall.input,
      });
      const done = completeEvent(events);
      expect(done.stop_reason).toBe('tool_use');
      expect(done.final_content).toEqual([
        { type: 'text', text: EXPECTED.toolCall.text },
        {
          type: 'tool_use',
          id: start?.type === 'tool.use_start' ? start.tool_use_id : '',
          name: 'read_file',
          input: EXPECTED.toolCall.input,
        },
      ]);
      expect(pickUsage(done.usage)).toEqual(EXPECTED.toolCall.usage);
    });

    scenario('parallel-tool-calls', async () => {
      const s = setup('parallel-tool-calls');
      const { events, error } = await collectCheckedStream(
        s.adapter.stream(
          request({
            messages: [user(s, EXPECTED.parallelToolCalls.prompt)],
            tools: [CONFORMANCE_TOOLS.read_file],
            stream: true,
          }),
        ),
      );
      expect(error).toBeUndefined();
      const starts = events.filter((e) => e.type === 'tool.use_start');
      const ends = events.filter((e) => e.type === 'tool.use_end');
      expect(starts, 'two tool.use_start events').toHaveLength(2);
      expect(ends.map((e) => e.type === 'tool.use_end' && e.final_input)).toEqual(
        EXPECTED.parallelToolCalls.inputs,
      );
      const done = completeEvent(events);
      const uses = done.final_content.filter((b) => b.type === 'tool_use');
      expect(uses.map((u) => u.type === 'tool_use' && u.input)).toEqual(
        EXPECTED.parallelToolCalls.inputs,
      );
      expect(
        new Set(uses.map((u) => u.type === 'tool_use' && u.id)).size,
        'distinct canonical ids',
      ).toBe(2);
      expect(done.stop_reason).toBe('tool_use');
      expect(pickUsage(done.usage)).toEqual(EXPECTED.parallelToolCalls.usage);
    });

    scenario('tool-call-no-args', async () => {
      const s = setup('tool-call-no-args');
      const { events, error } = await collectCheckedStream(
        s.adapter.stream(
          request({
            messages: [user(s, EXPECTED.noArgs.prompt)],
            tools: [CONFORMANCE_TOOLS.get_time],
            stream: true,
          }),
        ),
      );
      expect(error).toBeUndefined();
      expect(
        events.find((e) => e.type === 'tool.use_end'),
        'a tool use without arguments ends with final_input {}',
      ).toMatchObject({
        final_input: {},
      });
      const done = completeEvent(events);
      expect(done.final_content.filter((b) => b.type === 'tool_use')).toEqual([
        { type: 'tool_use', id: expect.stringMatching(/^tu_/), name: 'get_time', input: {} },
      ]);
    });

    scenario('tool-result-error', async () => {
      const s = setup('tool-result-error');
      const toolIdMap = new ToolIdMap();
      const call = assistant(s, [
        {
          type: 'tool_use',
          id: 'tu_01JZ0000000000000000000001',
          name: 'read_file',
          input: { path: 'NOTES.md' },
        },
      ]);
      // an id this provider could have issued: the suite's own, or one shaped by its rules
      const seeded = conformsToToolIdRules('seed_call_01', options.toolIdRules)
        ? 'seed_call_01'
        : deriveProviderToolId('seed_call_01', options.toolIdRules);
      toolIdMap.set({
        canonical_id: 'tu_01JZ0000000000000000000001',
        provider,
        provider_id: seeded,
      });
      const res = await s.adapter.complete(
        request({
          messages: [
            user(s, 'Read NOTES.md'),
            call,
            toolResult(
              s,
              'tu_01JZ0000000000000000000001',
              [{ type: 'text', text: EXPECTED.toolResultError.errorText }],
              true,
            ),
          ],
          tools: [CONFORMANCE_TOOLS.read_file],
        }),
        { toolIdMap },
      );
      expect(res.content).toEqual([{ type: 'text', text: EXPECTED.toolResultError.reply }]);
      const sent = body();
      const results = wire.toolResults(sent);
      expect(results, 'one tool result on the wire').toHaveLength(1);
      expect(results[0]?.isError, 'is_error must reach the wire').toBe(true);
      expect(results[0]?.text).toContain(EXPECTED.toolResultError.errorText);
      if (wireToolIds) {
        expect(
          wire.toolCalls(sent).map((c) => c.id),
          "a call from this provider goes back under the provider's own id",
        ).toEqual([seeded]);
        expect(results[0]?.id, 'the result answers that id').toBe(seeded);
      }
    });

    scenario('tool-result-image', async () => {
      const s = setup('tool-result-image');
      const id = 'tu_01JZ0000000000000000000002';
      const res = await s.adapter.complete(
        request({
          messages: [
            user(s, 'Chart the series 1, 2, 3.'),
            assistant(s, [
              { type: 'tool_use', id, name: 'render_chart', input: { series: [1, 2, 3] } },
            ]),
            toolResult(s, id, [
              { type: 'text', text: EXPECTED.toolResultImage.resultText },
              {
                type: 'image',
                source: { kind: 'base64', data: TEST_PNG_BASE64 },
                media_type: 'image/png',
              },
            ]),
          ],
          tools: [CONFORMANCE_TOOLS.render_chart],
        }),
      );
      expect(res.content).toEqual([{ type: 'text', text: EXPECTED.toolResultImage.reply }]);
      const sent = body();
      expect(wire.toolResults(sent)[0]?.text).toContain(EXPECTED.toolResultImage.resultText);
      expect(wire.imageCount(sent), "the tool result's image must reach the wire").toBe(1);
    });

    scenario('images', async () => {
      const s = setup('images');
      const res = await s.adapter.complete(
        request({
          messages: [
            user(s, [
              { type: 'text', text: EXPECTED.images.prompt },
              {
                type: 'image',
                source: { kind: 'base64', data: TEST_PNG_BASE64 },
                media_type: 'image/png',
              },
              {
                type: 'image',
                source: { kind: 'url', data: TEST_IMAGE_URL },
                media_type: 'image/jpeg',
              },
            ]),
          ],
        }),
      );
      expect(res.content).toEqual([{ type: 'text', text: EXPECTED.images.reply }]);
      if (features.urlImages === 'sent') {
        expect(wire.imageCount(body()), 'a base64 and a URL image').toBe(2);
        expect(JSON.stringify(body())).toContain(TEST_IMAGE_URL);
      } else {
        expect(wire.imageCount(body()), 'the base64 image only: the provider takes no URLs').toBe(
          1,
        );
        expect(JSON.stringify(body()), 'a URL image must not reach the wire').not.toContain(
          TEST_IMAGE_URL,
        );
        expect(
          s.logger
            .warnings()
            .some((w) => w.obj.event === 'block_dropped' && w.obj.block_type === 'image'),
          'leaving the URL image out must be logged at WARN (block_dropped)',
        ).toBe(true);
      }
    });

    // ---- thinking -----------------------------------------------------------------------------

    const expectedThinking = (): ContentBlock[] => [
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
      { type: 'text', text: EXPECTED.thinking.reply },
    ];

    scenario('thinking', async () => {
      const s = setup('thinking');
      const res = await s.adapter.complete(
        request({ messages: [user(s, EXPECTED.thinking.prompt)] }),
      );
      expect(res.content, 'thinking, redacted thinking and text, in order').toEqual(
        expectedThinking(),
      );
      expect(pickUsage(res.usage)).toEqual(EXPECTED.thinking.usage);
    });

    scenario('thinking-stream', async () => {
      const s = setup('thinking-stream');
      const { events, error } = await collectCheckedStream(
        s.adapter.stream(request({ messages: [user(s, EXPECTED.thinking.prompt)], stream: true })),
      );
      expect(error).toBeUndefined();
      const thinking = events.filter((e) => e.type === 'thinking.delta');
      expect(thinking.length, 'thinking arrives as thinking.delta events').toBeGreaterThanOrEqual(
        2,
      );
      if (features.signedThinking) {
        expect(thinking.at(-1), 'the signature rides on the last thinking.delta').toMatchObject({
          signature: EXPECTED.thinking.signature,
        });
      }
      expect(completeEvent(events).final_content).toEqual(expectedThinking());
    });

    scenario('thinking-replay', async () => {
      const s = setup('thinking-replay');
      const id = 'tu_01JZ0000000000000000000003';
      const thinkingBlocks: ContentBlock[] = [
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
      ];
      const res = await s.adapter.complete(
        request({
          messages: [
            user(s, 'Read README.md'),
            assistant(s, [
              ...thinkingBlocks,
              { type: 'tool_use', id, name: 'read_file', input: { path: 'README.md' } },
            ]),
            toolResult(s, id, [{ type: 'text', text: '# Readme' }]),
          ],
          tools: [CONFORMANCE_TOOLS.read_file],
        }),
      );
      expect(res.content).toEqual([{ type: 'text', text: EXPECTED.replyAfterHistory.reply }]);
      const sent = JSON.stringify(body());
      if (features.signedThinking) {
        expect(sent, 'thinking from the same model goes back with its signature').toContain(
          EXPECTED.thinking.signature,
        );
      }
      if (features.redactedThinking) {
        expect(sent, 'redacted thinking from the same model goes back').toContain(
          EXPECTED.thinking.redacted,
        );
      }
      expect(
        s.logger.warnings().filter((w) => w.obj.event === 'block_dropped'),
        'nothing should be dropped when replaying to the same model',
      ).toEqual([]);
    });

    // ---- replay ---------------------------------------------------------------------------------

    scenario('foreign-history', async () => {
      const s = setup('foreign-history');
      const foreignModel = 'elsewhere:model-x';
      const foreignId = 'call_abc|fc_0123456789abcdef0123456789abcdef0123456789';
      const history = [
        user(s, 'Plan the migration.'),
        assistant(
          s,
          [
            { type: 'thinking', text: 'Foreign reasoning.', signature: 'foreign-signature-9f8e7d' },
            { type: 'redacted_thinking', data: 'foreign-redacted-1a2b3c' },
            { type: 'text', text: '' },
            { type: 'text', text: 'Reading the schema.' },
            { type: 'tool_use', id: foreignId, name: 'read_file', input: { path: 'schema.sql' } },
          ],
          foreignModel,
        ),
        toolResult(s, foreignId, [{ type: 'text', text: 'CREATE TABLE t (id int);' }]),
        assistant(s, [{ type: 'text', text: '' }], foreignModel),
        user(s, 'Continue.'),
      ];
      const res = await s.adapter.complete(
        request({ messages: history, tools: [CONFORMANCE_TOOLS.read_file] }),
        {
          toolIdMap: new ToolIdMap(),
        },
      );
      expect(res.content).toEqual([{ type: 'text', text: EXPECTED.replyAfterHistory.reply }]);
      const sent = body();
      const json = JSON.stringify(sent);
      expect(json, 'a foreign thinking signature must never reach another provider').not.toContain(
        'foreign-signature-9f8e7d',
      );
      expect(json, 'foreign redacted thinking must never reach another provider').not.toContain(
        'foreign-redacted-1a2b3c',
      );
      const calls = wire.toolCalls(sent);
      const results = wire.toolResults(sent);
      expect(calls, 'the foreign tool call stays in the history').toHaveLength(1);
      expect(results, 'its result stays in the history').toHaveLength(1);
      if (wireToolIds) {
        for (const id of [...calls.map((c) => c.id), ...results.map((r) => r.id)]) {
          expect(
            conformsToToolIdRules(id, options.toolIdRules),
            `tool id "${id}" must satisfy the provider's id rules`,
          ).toBe(true);
        }
        expect(results[0]?.id, 'the result must answer the (re-mapped) call id').toBe(calls[0]?.id);
      }
      expect(
        wire.hasEmptyContent(sent),
        'no empty text or empty message may reach the provider',
      ).toBe(false);
      if (options.alternatingRoles) {
        const roles = wire.roles(sent);
        expect(roles[0], 'the conversation must start with a user turn').toBe('user');
        roles.forEach((role, i) => {
          if (i > 0)
            expect(role, `roles must alternate: ${roles.join(', ')}`).not.toBe(roles[i - 1]);
        });
      }
      const dropped = s.logger.warnings().filter((w) => w.obj.event === 'block_dropped');
      expect(
        dropped.map((w) => w.obj.block_type).sort(),
        'each dropped block is logged at WARN',
      ).toEqual(['redacted_thinking', 'thinking']);
      expect(
        dropped.every((w) => w.obj.adapter === s.adapter.name && w.obj.session_id === s.session_id),
      ).toBe(true);
    });

    scenario('unanswered-tool-use', async () => {
      const s = setup('unanswered-tool-use');
      const id = 'tu_01JZ0000000000000000000004';
      const res = await s.adapter.complete(
        request({
          messages: [
            user(s, 'Read README.md'),
            assistant(
              s,
              [{ type: 'tool_use', id, name: 'read_file', input: { path: 'README.md' } }],
              model,
              { status: 'cancelled' },
            ),
            user(s, 'Never mind, just say done.'),
          ],
          tools: [CONFORMANCE_TOOLS.read_file],
        }),
      );
      expect(res.content).toEqual([{ type: 'text', text: EXPECTED.replyAfterHistory.reply }]);
      const sent = body();
      const calls = wire.toolCalls(sent);
      const results = wire.toolResults(sent);
      expect(
        results.length,
        'every tool call on the wire needs a result (insert one saying none was recorded)',
      ).toBe(calls.length);
      if (wireToolIds) expect(results.map((r) => r.id)).toEqual(calls.map((c) => c.id));
      expect(
        s.logger.warnings().some((w) => w.obj.event === 'history_repaired'),
        'the repair must be logged at WARN',
      ).toBe(true);
      if (options.alternatingRoles) {
        const roles = wire.roles(sent);
        roles.forEach((role, i) => {
          if (i > 0)
            expect(role, `roles must alternate: ${roles.join(', ')}`).not.toBe(roles[i - 1]);
        });
      }
    });

    scenario('structured-output', async () => {
      const s = setup('structured-output');
      const res = await s.adapter.complete(
        request({
          messages: [user(s, EXPECTED.structured.prompt)],
          output_schema: EXPECTED.structured.schema,
        }),
      );
      expect(res.content).toEqual([{ type: 'text', text: EXPECTED.structured.reply }]);
      expect(JSON.parse(EXPECTED.structured.reply)).toEqual({ city: 'Paris', population: 2102650 });
      expect(wire.outputSchema(body()), 'output_schema must reach the wire').toEqual(
        EXPECTED.structured.schema,
      );
    });

    // ---- usage --------------------------------------------------------------------------------

    scenario('usage-cached', async () => {
      const s = setup('usage-cached');
      const res = await s.adapter.complete(
        request({ messages: [user(s, EXPECTED.usageCached.prompt)] }),
      );
      expect(res.content).toEqual([{ type: 'text', text: EXPECTED.usageCached.reply }]);
      expect(
        pickUsage(res.usage),
        'cache reads go to cached_input_tokens, cache writes to cache_creation_input_tokens; input_tokens excludes both',
      ).toEqual(EXPECTED.usageCached.usage);
    });

    scenario('usage-cached-stream', async () => {
      const s = setup('usage-cached-stream');
      const { events, error } = await collectCheckedStream(
        s.adapter.stream(
          request({ messages: [user(s, EXPECTED.usageCached.prompt)], stream: true }),
        ),
      );
      expect(error).toBeUndefined();
      expect(
        pickUsage(completeEvent(events).usage),
        'streaming usage must equal non-streaming usage',
      ).toEqual(EXPECTED.usageCached.usage);
    });

    // ---- errors -------------------------------------------------------------------------------

    const expectNoSecret = (s: Setup, error: unknown) => {
      const texts = [
        String((error as Error).message),
        String((error as AdapterError).provider_message),
        JSON.stringify(s.logger.records),
        JSON.stringify(server.requests.map((r) => r.headers)),
      ];
      for (const text of texts)
        expect(
          text,
          'the API key must never appear in errors, logs or recorded headers',
        ).not.toContain(CONFORMANCE_API_KEY);
    };

    for (const errorClass of ERROR_CLASSES) {
      scenario(`error-${errorClass}` as ScenarioName, async () => {
        const s = setup(`error-${errorClass}` as ScenarioName, { maxRetries: 0 });
        const req = request({ messages: [user(s, 'Hi')] });
        const error = await s.adapter.complete(req).then(
          () => {
            throw new Error(`expected the call to fail with ${errorClass}`);
          },
          (e: unknown) => e,
        );
        expect(error, 'failures are AdapterError subclasses').toBeInstanceOf(AdapterErrorClass);
        const adapterError = error as AdapterError;
        expect(
          adapterError.error_class,
          `classify this failure as ${errorClass} (status table + the provider's error body)`,
        ).toBe(errorClass);
        expect(error, 'throw the most specific subclass').toBeInstanceOf(
          createAdapterError(errorClass, '').constructor,
        );
        expect(adapterError.request_id).toBe(req.request_id);
        expect(server.requests, 'with max_retries 0 exactly one request is made').toHaveLength(1);
        expectNoSecret(s, error);
      });
    }

    scenario('error-malformed-reply', async () => {
      const s = setup('error-malformed-reply', { maxRetries: 0 });
      const error = await s.adapter
        .complete(request({ messages: [user(s, 'Hi')] }))
        .catch((e: unknown) => e);
      expect(error, 'failures are AdapterError subclasses').toBeInstanceOf(AdapterErrorClass);
      expect(
        (error as AdapterError).error_class,
        'a reply that arrived but does not parse is server_error (the provider answered with something broken), ' +
          'never network by the wording of the parser\'s message ("Unterminated string"): classify with core\'s classifyTransportFailure',
      ).toBe('server_error');
      expect(server.requests).toHaveLength(1);
      expectNoSecret(s, error);
    });

    scenario('error-network-eof', async () => {
      const s = setup('error-network-eof', { maxRetries: 0 });
      const error = await s.adapter
        .complete(request({ messages: [user(s, 'Hi')] }))
        .catch((e: unknown) => e);
      expect(error, 'failures are AdapterError subclasses').toBeInstanceOf(AdapterErrorClass);
      expect(
        (error as AdapterError).error_class,
        'a connection closed mid-body (undici: terminated, caused by HPE_INVALID_EOF_STATE) is network, so it is retried and falls back: ' +
          "classify with core's classifyTransportFailure",
      ).toBe('network');
      expect(server.requests).toHaveLength(1);
      expectNoSecret(s, error);
    });

    scenario('retry-after', async () => {
      const s = setup('retry-after', { maxRetries: 2 });
      const attempts: AttemptEvent[] = [];
      const res = await s.adapter.complete(request({ messages: [user(s, EXPECTED.text.prompt)] }), {
        onAttempt: (e) => attempts.push(e),
      });
      expect(res.content).toEqual([{ type: 'text', text: EXPECTED.text.reply }]);
      expect(server.requests).toHaveLength(2);
      const failed = attempts.find((a) => a.type === 'attempt.failed');
      expect(failed, 'the first attempt fails with rate_limit').toMatchObject({
        error: { error_class: 'rate_limit' },
        will_retry: true,
      });
      expect(
        failed?.type === 'attempt.failed' && failed.delay_ms,
        "the provider's retry hint (0.1 s) must replace the backoff: read retry-after / retry-after-ms into RateLimitError.retry_after_seconds",
      ).toBe(100);
    });

    scenario('overloaded-then-success', async () => {
      const s = setup('overloaded-then-success', { maxRetries: 2 });
      const attempts: AttemptEvent[] = [];
      const res = await s.adapter.complete(request({ messages: [user(s, EXPECTED.text.prompt)] }), {
        onAttempt: (e) => attempts.push(e),
      });
      expect(res.content).toEqual([{ type: 'text', text: EXPECTED.text.reply }]);
      expect(server.requests).toHaveLength(2);
      const failed = attempts.find((a) => a.type === 'attempt.failed');
      expect(
        failed?.type === 'attempt.failed' &&
          ['rate_limit', 'server_error'].includes(failed.error.error_class),
        'overloaded is transient',
      ).toBe(true);
      expect(attempts.map((a) => a.type)).toEqual([
        'attempt.start',
        'attempt.failed',
        'attempt.start',
        'attempt.succeeded',
      ]);
    });

    scenario('retries-exhausted', async () => {
      const s = setup('retries-exhausted', {
        maxRetries: 2,
        fixtureOf: 'error-server_error',
        times: 3,
      });
      const error = (await s.adapter
        .complete(request({ messages: [user(s, 'Hi')] }))
        .catch((e: unknown) => e)) as AdapterError;
      expect(error.error_class).toBe('server_error');
      expect(
        error.retryable,
        'after exhausting retries the error says the class is transient',
      ).toBe(true);
      expect(error.attempts, 'total attempts = 1 + max_retries').toBe(3);
      expect(server.requests).toHaveLength(3);
    });

    scenario('auth-not-retried', async () => {
      const s = setup('auth-not-retried', { maxRetries: 2, fixtureOf: 'error-auth', times: 3 });
      const error = (await s.adapter
        .complete(request({ messages: [user(s, 'Hi')] }))
        .catch((e: unknown) => e)) as AdapterError;
      expect(error.error_class).toBe('auth');
      expect(error.retryable).toBe(false);
      expect(server.requests, 'auth errors are never retried: exactly one request').toHaveLength(1);
      server.reset();
    });

    scenario('stream-error-before-first-event', async () => {
      const s = setup('stream-error-before-first-event', { fixtureOf: 'error-server_error' });
      const { events, error } = await collectCheckedStream(
        s.adapter.stream(request({ messages: [user(s, 'Hi')], stream: true })),
      );
      expect(events, 'a failure before the first event yields no events').toEqual([]);
      expect((error as AdapterError)?.error_class).toBe('server_error');
    });

    scenario('stream-error-mid-stream', async () => {
      const s = setup('stream-error-mid-stream');
      const { events, error } = await collectCheckedStream(
        s.adapter.stream(request({ messages: [user(s, EXPECTED.text.prompt)], stream: true })),
      );
      expect(error, 'after message.complete the stream must throw the failure').toBeInstanceOf(
        AdapterErrorClass,
      );
      expect((error as AdapterError).error_class).not.toBe('cancelled');
      const partial = streamedText(events);
      expect(partial.length, 'the fixture must deliver some text before it breaks').toBeGreaterThan(
        0,
      );
      const done = completeEvent(events);
      expect(done.stop_reason, 'a mid-stream failure completes with stop_reason error').toBe(
        'error',
      );
      expect(done.final_content, 'and the partial content').toEqual([
        { type: 'text', text: partial },
      ]);
    });

    // ---- deadlines ----------------------------------------------------------------------------

    /** The streamed response of another scenario's fixture, reshaped (e.g. no chunks). */
    function derivedStream(
      source: ScenarioName,
      change: Partial<Extract<ScriptedResponse, { type: 'stream' }>>,
    ): ScriptedResponse {
      const found = (options.fixtures[source] ?? []).find((r) => r.type === 'stream');
      if (found?.type !== 'stream') {
        throw new Error(`the "${source}" fixture must hold a streamed response to derive from`);
      }
      return { ...found, ...change };
    }

    const ABORT_ADVICE =
      'hand the attempt’s signal (the `signal` in the context runCompleteCall / runStreamCall ' +
      'give your transport; core aborts it on cancel(request_id), on the caller’s signal and on ' +
      'a passed deadline) to the HTTP call itself: the SDK’s per-request `signal` option, or ' +
      '`fetch(url, { signal })`. Rejecting with CancelledError while the request runs on leaves ' +
      'the provider generating (and billing) a reply nobody reads';

    const TIMEOUT_ADVICE =
      'pass timeoutSeconds / idleTimeoutSeconds from the context into the adapter config ' +
      '(timeout_seconds, idle_timeout_seconds) and run calls through core’s runCompleteCall / ' +
      'runStreamCall (AdapterBase.callSetup), which own both deadlines; an SDK’s own timeout ' +
      'stops once response headers arrive';

    scenario('stream-empty', async () => {
      const s = setup('stream-empty', {
        maxRetries: 1,
        times: 2,
        responses: [derivedStream('cancel-mid-text', { chunks: [], ending: 'end' })],
      });
      const { events, error } = await collectCheckedStream(
        s.adapter.stream(request({ messages: [user(s, 'Hi')], stream: true })),
      );
      expect(events, 'a stream that ended before its first event yields no events').toEqual([]);
      expect(
        (error as AdapterError)?.error_class,
        'an empty stream is a network failure (the reply never came)',
      ).toBe('network');
      expect(server.requests, 'and it is retried like one').toHaveLength(2);
    });

    /** The "text" reply's headers and the first half of its body, then silence. */
    function stalledTextReply(): ScriptedResponse {
      const text = (options.fixtures.text ?? []).find((r) => r.type === 'json');
      if (text?.type !== 'json') {
        throw new Error('the "text" fixture must be a JSON response to derive from');
      }
      const body = JSON.stringify(text.body);
      return {
        type: 'stream',
        contentType: 'application/json',
        ...(text.headers ? { headers: text.headers } : {}),
        chunks: [body.slice(0, Math.floor(body.length / 2))],
        ending: 'stall',
      };
    }

    scenario('timeout-complete-stall', async () => {
      const s = setup('timeout-complete-stall', {
        maxRetries: 1,
        times: 2,
        responses: [stalledTextReply()],
        timeoutSeconds: 0.3,
      });
      const error = (await s.adapter
        .complete(request({ messages: [user(s, EXPECTED.text.prompt)] }))
        .catch((e: unknown) => e)) as AdapterError;
      expect(
        error,
        `the call must fail once timeout_seconds passes: ${TIMEOUT_ADVICE}`,
      ).toBeInstanceOf(AdapterErrorClass);
      expect(error.error_class, 'a passed deadline is a network failure').toBe('network');
      expect(error.attempts, 'retried like any network failure (1 + max_retries)').toBe(2);
      expect(server.requests).toHaveLength(2);
      await expect
        .poll(() => server.requests.every((r) => r.aborted), {
          timeout: 2000,
          message: `each timed-out attempt must close its HTTP request: ${ABORT_ADVICE}`,
        })
        .toBe(true);
    });

    scenario('timeout-stream-before-first-event', async () => {
      const s = setup('timeout-stream-before-first-event', {
        maxRetries: 1,
        times: 2,
        responses: [derivedStream('cancel-mid-text', { chunks: [], ending: 'stall' })],
        timeoutSeconds: 0.3,
      });
      const { events, error } = await collectCheckedStream(
        s.adapter.stream(request({ messages: [user(s, 'Hi')], stream: true })),
      );
      expect(events, 'no event arrived, so none is yielded').toEqual([]);
      expect(
        (error as AdapterError)?.error_class,
        `the stream must fail as network once timeout_seconds passes: ${TIMEOUT_ADVICE}`,
      ).toBe('network');
      expect(server.requests, 'nothing was yielded yet, so it is retried').toHaveLength(2);
    });

    scenario('timeout-stream-idle', async () => {
      const s = setup('timeout-stream-idle', {
        fixtureOf: 'cancel-mid-text',
        idleTimeoutSeconds: 0.3,
      });
      const { events, error } = await collectCheckedStream(
        s.adapter.stream(request({ messages: [user(s, EXPECTED.text.prompt)], stream: true })),
      );
      expect(
        (error as AdapterError)?.error_class,
        `a silent stream must fail as network once idle_timeout_seconds passes: ${TIMEOUT_ADVICE}`,
      ).toBe('network');
      const done = completeEvent(events);
      expect(done.stop_reason, 'after the first event a deadline ends the stream as error').toBe(
        'error',
      );
      expect(done.final_content).toEqual([{ type: 'text', text: streamedText(events) }]);
      expect(server.requests, 'events were yielded, so no retry').toHaveLength(1);
      await expect
        .poll(() => server.requests[0]?.aborted, {
          timeout: 2000,
          message: `the idle stream's HTTP request must be closed: ${ABORT_ADVICE}`,
        })
        .toBe(true);
    });

    // ---- cancellation -------------------------------------------------------------------------

    const REGISTER_ADVICE =
      'register every call under its request_id for cancel() (AdapterBase’s `inflight`, which ' +
      'runCompleteCall / runStreamCall do for you) and answer true while it runs';

    async function cancelMidway(
      scenarioName: ScenarioName,
      how: 'cancel' | 'signal',
      until: StreamEvent['type'],
      tools: ToolDefinition[] = [],
    ): Promise<{ events: StreamEvent[]; elapsed: number; s: Setup }> {
      const s = setup(scenarioName, {
        fixtureOf:
          scenarioName === 'cancel-mid-text-signal'
            ? 'cancel-mid-text'
            : scenarioName === 'cancel-mid-tool-input-signal'
              ? 'cancel-mid-tool-input'
              : scenarioName,
      });
      const controller = new AbortController();
      const req = request({ messages: [user(s, EXPECTED.toolCall.prompt)], tools, stream: true });
      const iterator = withStreamInvariants(s.adapter.stream(req, { signal: controller.signal }))[
        Symbol.asyncIterator
      ]();
      const events: StreamEvent[] = [];
      for (;;) {
        const next = await iterator.next();
        if (next.done)
          throw new Error(
            `the stream ended before any ${until} event; the fixture must stall after one`,
          );
        events.push(next.value);
        if (next.value.type === until) break;
      }
      const started = performance.now();
      if (how === 'cancel') {
        expect(
          await s.adapter.cancel(req.request_id),
          `cancel() of an in-flight stream must return true: ${REGISTER_ADVICE}`,
        ).toBe(true);
      } else {
        controller.abort();
      }
      for (;;) {
        const next = await iterator.next();
        if (next.done) break;
        events.push(next.value);
      }
      const elapsed = performance.now() - started;
      expect(
        await s.adapter.cancel(req.request_id),
        'cancel() of a finished call must return false (idempotent): remove the call from the ' +
          'in-flight registry when it settles (runStreamCall does)',
      ).toBe(false);
      await expect
        .poll(() => server.requests[0]?.aborted, {
          timeout: 2000,
          message: `the cancelled stream's HTTP request must be closed: ${ABORT_ADVICE}`,
        })
        .toBe(true);
      return { events, elapsed, s };
    }

    scenario('cancel-mid-text', async () => {
      const { events, elapsed } = await cancelMidway('cancel-mid-text', 'cancel', 'text.delta');
      const done = completeEvent(events);
      expect(done.stop_reason, 'a cancelled stream completes with stop_reason cancelled').toBe(
        'cancelled',
      );
      expect(done.final_content).toEqual([{ type: 'text', text: streamedText(events) }]);
      expect(elapsed, 'the iterator must end promptly after cancel').toBeLessThan(2000);
    });

    scenario('cancel-mid-text-signal', async () => {
      const { events, elapsed } = await cancelMidway(
        'cancel-mid-text-signal',
        'signal',
        'text.delta',
      );
      expect(
        completeEvent(events).stop_reason,
        'the caller’s AbortSignal must end the stream like cancel(): pass options through to runStreamCall',
      ).toBe('cancelled');
      expect(elapsed, 'the iterator must end promptly after the signal aborts').toBeLessThan(2000);
    });

    /**
     * Cancels a complete() whose reply stalls half-way through its body: the call must reject
     * with CancelledError promptly and the HTTP request must be gone at the server.
     */
    const cancelComplete = (name: ScenarioName, how: 'cancel' | 'signal') => async () => {
      const s = setup(name, { responses: [stalledTextReply()] });
      const controller = new AbortController();
      const req = request({ messages: [user(s, EXPECTED.text.prompt)] });
      const outcome = s.adapter.complete(req, { signal: controller.signal }).then(
        () => ({ settled: 'resolved' as const, error: undefined }),
        (error: unknown) => ({ settled: 'rejected' as const, error }),
      );
      await server.waitForRequests(1, 5000).catch(() => {
        throw new Error(`complete() sent no request within 5 s; ${describeScenario(name).checks}`);
      });
      const started = performance.now();
      if (how === 'cancel') {
        expect(
          await s.adapter.cancel(req.request_id),
          `cancel() of an in-flight complete() must return true: ${REGISTER_ADVICE}`,
        ).toBe(true);
      } else {
        controller.abort();
      }
      const late = new Promise<'late'>((resolve) => setTimeout(() => resolve('late'), 2000));
      const result = await Promise.race([outcome, late]);
      if (result === 'late') {
        throw new Error(
          `complete() did not settle within 2 s of the ${how === 'cancel' ? 'cancel(request_id)' : 'aborted signal'}: ${ABORT_ADVICE}`,
        );
      }
      const elapsed = performance.now() - started;
      expect(
        result.settled === 'rejected' && isCancelledError(result.error),
        `a cancelled complete() must reject with CancelledError (got ${
          result.settled === 'resolved' ? 'a reply' : describeError(result.error)
        }): map the abort to CancelledError (runCompleteCall does when its signal aborted)`,
      ).toBe(true);
      expect(elapsed, 'complete() must settle promptly after the cancel').toBeLessThan(2000);
      await expect
        .poll(() => server.requests[0]?.aborted, {
          timeout: 2000,
          message: `the cancelled complete()'s HTTP request must be closed at the server: ${ABORT_ADVICE}`,
        })
        .toBe(true);
      expect(server.requests, 'a cancelled call is never retried').toHaveLength(1);
    };
    scenario('cancel-complete', cancelComplete('cancel-complete', 'cancel'));
    scenario('cancel-complete-signal', cancelComplete('cancel-complete-signal', 'signal'));

    const cancelMidToolInput = (name: ScenarioName, how: 'cancel' | 'signal') => async () => {
      const { events } = await cancelMidway(name, how, 'tool.use_input_delta', [
        CONFORMANCE_TOOLS.read_file,
      ]);
      // A tool call sent whole is complete before the cancel arrives, and keeps its input.
      const expectedInput = features.wholeToolCalls ? EXPECTED.toolCall.input : {};
      const end = events.find((e) => e.type === 'tool.use_end');
      expect(
        end,
        features.wholeToolCalls
          ? 'a tool call that arrived whole ends with its complete input, also when cancelled'
          : 'the in-flight tool use must end with the JSON that parses, here {}',
      ).toMatchObject({ final_input: expectedInput });
      const done = completeEvent(events);
      expect(
        done.stop_reason,
        'a cancelled stream completes with stop_reason cancelled (runStreamCall does this when the attempt’s signal aborts)',
      ).toBe('cancelled');
      expect(done.final_content.find((b) => b.type === 'tool_use')).toMatchObject({
        name: 'read_file',
        input: expectedInput,
      });
    };
    scenario('cancel-mid-tool-input', cancelMidToolInput('cancel-mid-tool-input', 'cancel'));
    scenario(
      'cancel-mid-tool-input-signal',
      cancelMidToolInput('cancel-mid-tool-input-signal', 'signal'),
    );

    scenario('already-aborted', async () => {
      const s = setup('already-aborted');
      const signal = AbortSignal.abort();
      const refused = await s.adapter
        .complete(request({ messages: [user(s, 'Hi')] }), { signal })
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      expect(
        isCancelledError(refused),
        `complete() with an already-aborted signal must reject with CancelledError (got ${describeError(refused)}): check options.signal before sending (runCompleteCall does)`,
      ).toBe(true);
      const { events, error } = await collectCheckedStream(
        s.adapter.stream(request({ messages: [user(s, 'Hi')], stream: true }), { signal }),
      );
      expect(events, 'an already-aborted stream yields no events').toEqual([]);
      expect(
        isCancelledError(error),
        `stream() with an already-aborted signal must throw CancelledError (got ${describeError(error)}): check options.signal before sending (runStreamCall does)`,
      ).toBe(true);
      expect(server.requests, 'nothing may be sent for an already-aborted signal').toHaveLength(0);
    });

    scenario('tool-name-in-history', async () => {
      const s = setup('tool-name-in-history', { fixtureOf: 'capability-honesty' });
      const foreign = ['fs.read', `server.${'tool'.repeat(20)}`];
      const messages: Message[] = [user(s, 'Read both.')];
      const ids = foreign.map(() => newToolUseId());
      messages.push(
        assistant(
          s,
          foreign.map((name, i) => ({
            type: 'tool_use' as const,
            id: ids[i] as string,
            name,
            input: { path: 'README.md' },
          })),
        ),
      );
      foreign.forEach((_, i) => {
        messages.push(toolResult(s, ids[i] as string, [{ type: 'text', text: '# Project Foo' }]));
      });
      messages.push(user(s, 'Again.'));
      const res = await s.adapter.complete(request({ messages }));
      expect(res.content).toEqual([{ type: 'text', text: EXPECTED.replyAfterHistory.reply }]);
      const sent = wire.toolCalls(body()).map((c) => c.name);
      expect(sent, 'both tool uses of the history are sent').toHaveLength(2);
      for (const name of sent) {
        expect(
          fitsToolNameRules(name, toolNameRules),
          `tool name "${name}" on the wire must fit the provider's rule (derive it with core's wireToolName)`,
        ).toBe(true);
      }
      expect(new Set(sent).size, 'two names stay two names').toBe(2);
    });

    scenario('capability-honesty', async () => {
      const s = setup('capability-honesty');
      let block: ContentBlock;
      let from = model;
      if (!capabilities.supports_images) {
        block = {
          type: 'image',
          source: { kind: 'base64', data: TEST_PNG_BASE64 },
          media_type: 'image/png',
        };
      } else if (!capabilities.supports_thinking) {
        block = {
          type: 'thinking',
          text: 'Hidden reasoning.',
          signature: 'unsupported-signature-7c6b',
        };
      } else {
        // everything is supported: thinking from another provider can never be represented
        block = {
          type: 'thinking',
          text: 'Hidden reasoning.',
          signature: 'unsupported-signature-7c6b',
        };
        from = 'elsewhere:model-y';
      }
      const messages =
        block.type === 'image'
          ? [user(s, [{ type: 'text', text: 'Look.' }, block])]
          : [
              user(s, 'Hi'),
              assistant(s, [block, { type: 'text', text: 'Hello.' }], from),
              user(s, 'Again.'),
            ];
      const res = await s.adapter.complete(request({ messages }));
      expect(res.content).toEqual([{ type: 'text', text: EXPECTED.replyAfterHistory.reply }]);
      const sent = body();
      if (block.type === 'image')
        expect(wire.imageCount(sent), 'an image sent to a model without images').toBe(0);
      else expect(JSON.stringify(sent)).not.toContain('unsupported-signature-7c6b');
      expect(
        s.logger
          .warnings()
          .some((w) => w.obj.event === 'block_dropped' && w.obj.block_type === block.type),
        `dropping the ${block.type} block must be logged at WARN`,
      ).toBe(true);
    });

    // ---- codec --------------------------------------------------------------------------------

    scenario('codec-round-trip', async () => {
      const leaf = fc.oneof(
        fc.string({ unit: 'grapheme' }),
        fc.integer(),
        fc.double({ noNaN: true, noDefaultInfinity: true }).map((n) => (Object.is(n, -0) ? 0 : n)),
        fc.boolean(),
        fc.constant(null),
      );
      const key = fc
        .string({ unit: 'grapheme', minLength: 1, maxLength: 12 })
        .filter((k) => k !== '__proto__');
      const { value } = fc.letrec<{ value: unknown }>((tie) => ({
        value: fc.oneof(
          { depthSize: 'small' },
          leaf,
          fc.array(tie('value'), { maxLength: 4 }),
          fc.dictionary(key, tie('value'), { maxKeys: 4 }),
        ),
      }));
      const input = fc.dictionary(key, value, { maxKeys: 5 }) as fc.Arbitrary<
        Record<string, unknown>
      >;
      const text = fc
        .string({ unit: 'grapheme', minLength: 1, maxLength: 60 })
        .filter((t) => t.trim() !== '' && t === t.trim());
      const name = fc.stringMatching(/^[a-z][a-z0-9_]{0,20}$/);
      const content = fc
        .tuple(
          fc.option(text, { nil: undefined }),
          fc.array(fc.tuple(name, input), { minLength: 0, maxLength: 4 }),
        )
        .filter(([t, uses]) => t !== undefined || uses.length > 0)
        .map(([t, uses]): ContentBlock[] => [
          ...(t === undefined ? [] : [{ type: 'text', text: t } as const]),
          ...uses.map(([toolName, toolInput], i) => ({
            type: 'tool_use' as const,
            id: `tu_01JZ00000000000000000000${String(i).padStart(2, '0')}`,
            name: toolName,
            input: toolInput,
          })),
        ]);
      fc.assert(
        fc.property(content, (blocks) => {
          const back = options.codec.roundTrip(blocks, new ToolIdMap());
          expect(back, 'canonical → wire → canonical must give back the same blocks').toEqual(
            blocks,
          );
        }),
        { numRuns: 200 },
      );
    });

    registerFidelityScenarios({
      scenario,
      setup,
      request,
      user,
      body,
      model,
      provider,
      features,
      tools: CONFORMANCE_TOOLS,
    });

    // ---- live ---------------------------------------------------------------------------------

    const live = options.live;
    const key = live ? process.env[live.env] : undefined;
    if (!live || !key) {
      const why = live ? `${live.env} is not set` : 'no live mode configured';
      console.info(`[conformance] ${options.name}: live mode skipped: ${why}`);
      it.skip(`live: a text reply and a tool call against the real provider (skipped: ${why})`, () => {});
    } else {
      it('live: a text reply and a tool call against the real provider', async () => {
        const adapter = live.createAdapter(key);
        opened.push(adapter);
        const liveModel = live.model ?? model;
        const session_id = newSessionId();
        const res = await adapter.complete({
          request_id: newRequestId(),
          model: liveModel,
          max_output_tokens: 256,
          messages: [
            createMessage({
              session_id,
              role: 'user',
              content: [{ type: 'text', text: 'Reply with the single word: pong' }],
            }),
          ],
        });
        expect(res.content.some((b) => b.type === 'text' && /pong/i.test(b.text))).toBe(true);
        expect(res.usage.input_tokens + res.usage.cached_input_tokens).toBeGreaterThan(0);
        const { events, error } = await collectCheckedStream(
          adapter.stream({
            request_id: newRequestId(),
            model: liveModel,
            max_output_tokens: 256,
            stream: true,
            tools: [CONFORMANCE_TOOLS.read_file],
            messages: [
              createMessage({
                session_id,
                role: 'user',
                content: [{ type: 'text', text: 'Use read_file to read README.md.' }],
              }),
            ],
          }),
        );
        expect(error).toBeUndefined();
        expect(
          completeEvent(events).final_content.some(
            (b) => b.type === 'tool_use' && b.name === 'read_file',
          ),
        ).toBe(true);
      }, 60_000);
    }
  });
}

import {
  checkStreamInvariants,
  createMemoryLogger,
  OPENAI_TOOL_ID_RULES,
  RateLimitError,
  type StreamEvent,
  ToolIdMap,
} from '@yourtool/core';
import { StreamBuilder } from '@yourtool/core/adapter';
import type OpenAI from 'openai';
import { APIError } from 'openai';
import { describe, expect, it } from 'vitest';
import {
  classifyOpenAIError,
  createOpenAIStreamMapper,
  cutAtStopSequence,
  fromOpenAIChatCompletion,
  isStrictCompatibleSchema,
  mapOpenAIFinishReason,
  mapOpenAIUsage,
  OPENAI_STREAM_END,
  OPENAI_TOOL_ERROR_PREFIX,
  StopSequenceCutter,
  toOpenAIAdapterError,
  toOpenAIChatParams,
} from '../src/codec.js';
import { openAIModelInfo, temperatureRefusal } from '../src/models.js';
import {
  anthropicHistory,
  assistant,
  PNG,
  readFile,
  renderChart,
  req,
  result,
  system,
  text,
  user,
} from './helpers.js';

const GPT5 = 'openai:gpt-5';
const GPT41 = 'openai:gpt-4.1';

function encode(model: string, request: ReturnType<typeof req>, map = new ToolIdMap()) {
  const wireName = model.split(':')[1]!;
  const info = openAIModelInfo(wireName);
  const logger = createMemoryLogger();
  const encoding = toOpenAIChatParams(request, {
    wireName,
    capabilities: info.capabilities,
    toolIdMap: map,
    logger,
    temperatureRefusal: temperatureRefusal(info, wireName, info.defaultReasoningEffort),
    stopSequences: info.stopSequences,
  });
  return { ...encoding, logger, map };
}

describe('toOpenAIChatParams: request mapping', () => {
  it('joins the system prompt and SYSTEM messages into one leading system message', () => {
    const { params } = encode(
      GPT5,
      req(GPT5, [system('Be terse.'), user(text('hi')), system('Workspace: /w')], {
        system_prompt: 'Base.',
      }),
    );
    expect(params.messages).toEqual([
      { role: 'system', content: 'Base.\n\nBe terse.\n\nWorkspace: /w' },
      { role: 'user', content: 'hi' },
    ]);
    expect(params.model).toBe('gpt-5');
    expect(params.max_completion_tokens).toBe(2048);
    expect(params).not.toHaveProperty('max_tokens');
  });

  it('sends images as image_url parts: base64 as a data URL, URLs as they are', () => {
    const { params } = encode(
      GPT5,
      req(GPT5, [
        user(
          text('look'),
          { type: 'image', source: { kind: 'base64', data: PNG }, media_type: 'image/png' },
          {
            type: 'image',
            source: { kind: 'url', data: 'https://x.test/a.jpg' },
            media_type: 'image/jpeg',
          },
        ),
      ]),
    );
    expect(params.messages[0]).toEqual({
      role: 'user',
      content: [
        { type: 'text', text: 'look' },
        { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } },
        { type: 'image_url', image_url: { url: 'https://x.test/a.jpg' } },
      ],
    });
  });

  it('maps tool calls, tool results (error marker) and moves tool-result images after them', () => {
    const map = new ToolIdMap();
    map.set({ canonical_id: 'tu_a', provider: 'openai', provider_id: 'call_A' });
    map.set({ canonical_id: 'tu_b', provider: 'openai', provider_id: 'call_B' });
    const history = [
      user(text('chart it and read x')),
      assistant(
        [
          text('On it.'),
          { type: 'tool_use', id: 'tu_a', name: 'render_chart', input: { series: [1, 2] } },
          {
            type: 'tool_use',
            id: 'tu_b',
            name: 'read_file',
            input: { path: 'x', deep: { n: null } },
          },
        ],
        GPT5,
      ),
      result('tu_b', [text('ENOENT')], true),
      result('tu_a', [
        text('Rendered'),
        { type: 'image', source: { kind: 'base64', data: PNG }, media_type: 'image/png' },
      ]),
      user(text('thanks')),
    ];
    const { params } = encode(GPT5, req(GPT5, history, { tools: [readFile, renderChart] }), map);
    expect(params.messages).toEqual([
      { role: 'user', content: 'chart it and read x' },
      {
        role: 'assistant',
        content: 'On it.',
        tool_calls: [
          {
            id: 'call_A',
            type: 'function',
            function: { name: 'render_chart', arguments: '{"series":[1,2]}' },
          },
          {
            id: 'call_B',
            type: 'function',
            function: { name: 'read_file', arguments: '{"path":"x","deep":{"n":null}}' },
          },
        ],
      },
      { role: 'tool', tool_call_id: 'call_A', content: 'Rendered' },
      { role: 'tool', tool_call_id: 'call_B', content: `${OPENAI_TOOL_ERROR_PREFIX}ENOENT` },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Image output of tool call call_A:' },
          { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } },
        ],
      },
      { role: 'user', content: 'thanks' },
    ]);
    expect(params.tools).toEqual([
      {
        type: 'function',
        function: {
          name: 'read_file',
          description: 'Read a file',
          parameters: readFile.input_schema,
        },
      },
      {
        type: 'function',
        function: {
          name: 'render_chart',
          description: 'Render a chart',
          parameters: renderChart.input_schema,
        },
      },
    ]);
  });

  it('keeps foreign tool ids within 40 characters and distinct', () => {
    const long1 = `call_${'x'.repeat(40)}|fc_1`;
    const long2 = `call_${'x'.repeat(40)}|fc_2`;
    const history = [
      user(text('go')),
      assistant(
        [
          { type: 'tool_use', id: long1, name: 'read_file', input: { path: 'a' } },
          { type: 'tool_use', id: long2, name: 'read_file', input: { path: 'b' } },
        ],
        'elsewhere:model',
      ),
      result(long1, [text('A')]),
      result(long2, [text('B')]),
    ];
    const { params } = encode(GPT5, req(GPT5, history, { tools: [readFile] }));
    const calls = (params.messages[1] as OpenAI.ChatCompletionAssistantMessageParam).tool_calls!;
    const ids = calls.map((c) => c.id);
    expect(new Set(ids).size).toBe(2);
    for (const id of ids) {
      expect(id.length).toBeLessThanOrEqual(40);
      expect(OPENAI_TOOL_ID_RULES.pattern!.test(id)).toBe(true);
    }
    expect(
      params.messages.slice(2).map((m) => (m as { tool_call_id: string }).tool_call_id),
    ).toEqual(ids);
  });

  it('drops thinking and redacted thinking with a WARN, keeping the rest of the turn', () => {
    const { params, dropped, logger } = encode(
      GPT5,
      req(GPT5, [
        user(text('q')),
        assistant(
          [
            { type: 'thinking', text: 'hmm', signature: 'sig' },
            { type: 'redacted_thinking', data: 'opaque' },
            text('a'),
          ],
          'anthropic:claude-sonnet-4-6',
        ),
        user(text('more')),
      ]),
    );
    expect(params.messages[1]).toEqual({ role: 'assistant', content: 'a' });
    expect(dropped.map((d) => d.block_type)).toEqual(['thinking', 'redacted_thinking']);
    expect(logger.warnings().filter((w) => w.obj.event === 'block_dropped')).toHaveLength(2);
  });

  it('GPT-5: leaves temperature out with a WARN and emulates stop sequences', () => {
    const { params, emulatedStopSequences, stopSequencesSent, logger } = encode(
      GPT5,
      req(GPT5, [user(text('q'))], { temperature: 0.2, stop_sequences: ['END'] }),
    );
    expect(params).not.toHaveProperty('temperature');
    expect(params).not.toHaveProperty('stop');
    expect(emulatedStopSequences).toEqual(['END']);
    expect(stopSequencesSent).toBe(false);
    expect(logger.warnings()[0]?.obj).toMatchObject({
      event: 'parameter_dropped',
      parameter: 'temperature',
    });
  });

  it('GPT-4.1: sends temperature and stop', () => {
    const { params, emulatedStopSequences, stopSequencesSent } = encode(
      GPT41,
      req(GPT41, [user(text('q'))], { temperature: 0.2, stop_sequences: ['END', 'STOP'] }),
    );
    expect(params.temperature).toBe(0.2);
    expect(params.stop).toEqual(['END', 'STOP']);
    expect(emulatedStopSequences).toEqual([]);
    expect(stopSequencesSent).toBe(true);
  });

  it('GPT-5.1+: temperature only while reasoning_effort is none', () => {
    const five1 = openAIModelInfo('gpt-5.1');
    expect(temperatureRefusal(five1, 'gpt-5.1', five1.defaultReasoningEffort)).toBeNull();
    expect(temperatureRefusal(five1, 'gpt-5.1', 'low')).toContain('reasoning_effort');
    const five5 = openAIModelInfo('gpt-5.5');
    expect(temperatureRefusal(five5, 'gpt-5.5', five5.defaultReasoningEffort)).not.toBeNull();
    expect(temperatureRefusal(five5, 'gpt-5.5', 'none')).toBeNull();
  });

  it('sends output_schema as response_format json_schema, strict only when it qualifies', () => {
    const strictSchema = {
      type: 'object',
      properties: { a: { type: 'string' }, b: { type: 'array', items: { type: 'integer' } } },
      required: ['a', 'b'],
      additionalProperties: false,
    };
    const { params } = encode(GPT5, req(GPT5, [user(text('q'))], { output_schema: strictSchema }));
    expect(params.response_format).toEqual({
      type: 'json_schema',
      json_schema: { name: 'response', schema: strictSchema, strict: true },
    });
    const loose = {
      type: 'object',
      properties: { a: { type: 'string', minLength: 2 }, b: { type: 'integer' } },
      required: ['b'],
    };
    const projected = encode(GPT5, req(GPT5, [user(text('q'))], { output_schema: loose }));
    expect(
      projected.params.response_format,
      'optional a made nullable, minLength left out',
    ).toEqual({
      type: 'json_schema',
      json_schema: {
        name: 'response',
        strict: true,
        schema: {
          type: 'object',
          properties: { a: { type: ['string', 'null'] }, b: { type: 'integer' } },
          required: ['a', 'b'],
          additionalProperties: false,
        },
      },
    });
    expect(projected.logger.warnings().map((w) => [w.obj.event, w.obj.dropped])).toEqual([
      ['structured_output_projected', [{ path: '$.properties.a', keyword: 'minLength' }]],
    ]);
    const unprojectable = { type: 'object', allOf: [{ properties: { a: { type: 'string' } } }] };
    const encoded = encode(GPT5, req(GPT5, [user(text('q'))], { output_schema: unprojectable }));
    expect(encoded.params.response_format).toMatchObject({
      json_schema: { strict: false, schema: unprojectable },
    });
    expect(encoded.logger.warnings().map((w) => w.obj.event)).toContain(
      'structured_output_not_strict',
    );
    expect(
      isStrictCompatibleSchema({
        type: 'object',
        properties: { o: { type: 'object', properties: { x: { type: 'string' } } } },
        required: ['o'],
        additionalProperties: false,
      }),
      'nested objects must be closed too',
    ).toBe(false);
  });

  it('replays a history produced on Anthropic into a valid Chat Completions request', () => {
    const map = new ToolIdMap();
    const history = anthropicHistory(map);
    const { params, dropped, repairs, logger } = encode(
      GPT5,
      req(GPT5, history, { tools: [readFile, renderChart] }),
      map,
    );
    const idAt = (message: number, block: number) =>
      map.getProviderId('openai', (history[message]!.content[block] as { id: string }).id)!;
    const [chart, notes, dangling] = [idAt(2, 4), idAt(2, 5), idAt(5, 1)];
    expect(params.messages).toEqual([
      { role: 'system', content: 'You are a data assistant.' },
      { role: 'user', content: 'Chart the sales and read NOTES.md.' },
      {
        role: 'assistant',
        content: 'Rendering the chart and reading the notes.',
        tool_calls: [
          {
            id: chart,
            type: 'function',
            function: { name: 'render_chart', arguments: '{"series":[1,2,3]}' },
          },
          {
            id: notes,
            type: 'function',
            function: { name: 'read_file', arguments: '{"path":"NOTES.md"}' },
          },
        ],
      },
      { role: 'tool', tool_call_id: chart, content: 'Rendered chart.png' },
      {
        role: 'tool',
        tool_call_id: notes,
        content: `${OPENAI_TOOL_ERROR_PREFIX}ENOENT: no such file`,
      },
      {
        role: 'user',
        content: [
          { type: 'text', text: `Image output of tool call ${chart}:` },
          { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } },
        ],
      },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id: dangling,
            type: 'function',
            function: { name: 'read_file', arguments: '{"path":"README.md"}' },
          },
        ],
      },
      {
        role: 'tool',
        tool_call_id: dangling,
        content: expect.stringMatching(/^\[tool error\] No result was recorded/),
      },
      { role: 'user', content: 'Never mind the notes. What does the chart show?' },
    ]);
    for (const id of [chart, notes, dangling]) {
      expect(id.length).toBeLessThanOrEqual(40);
      expect(id).toMatch(/^[a-zA-Z0-9_-]+$/);
    }
    const json = JSON.stringify(params);
    expect(json).not.toContain('EqQBsig');
    expect(json).not.toContain('redacted-claude');
    expect(json).not.toContain('"content":""');
    expect(dropped.map((d) => d.block_type)).toEqual(['thinking', 'redacted_thinking', 'thinking']);
    expect(repairs.map((r) => r.kind)).toEqual(['synthetic_tool_result']);
    expect(logger.warnings().length).toBe(4);
  });
});

describe('fromOpenAIChatCompletion: response mapping', () => {
  const completion = (
    message: Partial<OpenAI.ChatCompletionMessage>,
    finish_reason: string,
    usage?: OpenAI.CompletionUsage,
  ) =>
    ({
      id: 'chatcmpl-1',
      object: 'chat.completion',
      created: 1,
      model: 'gpt-5-2025-08-07',
      choices: [
        {
          index: 0,
          finish_reason,
          logprobs: null,
          message: { role: 'assistant', content: null, refusal: null, ...message },
        },
      ],
      ...(usage ? { usage } : {}),
    }) as OpenAI.ChatCompletion;

  it('maps text and tool calls, parses arguments, links ids and maps cached usage', () => {
    const map = new ToolIdMap();
    const decoded = fromOpenAIChatCompletion(
      completion(
        {
          content: 'Reading.',
          tool_calls: [
            {
              id: 'call_1',
              type: 'function',
              function: { name: 'read_file', arguments: '{"path":"x"}' },
            },
            { id: 'call_2', type: 'function', function: { name: 'get_time', arguments: '' } },
          ],
        },
        'tool_calls',
        {
          prompt_tokens: 1174,
          completion_tokens: 42,
          total_tokens: 1216,
          prompt_tokens_details: { cached_tokens: 1024 },
        },
      ),
      map,
    );
    expect(decoded.content).toEqual([
      { type: 'text', text: 'Reading.' },
      {
        type: 'tool_use',
        id: map.getCanonicalId('openai', 'call_1'),
        name: 'read_file',
        input: { path: 'x' },
      },
      { type: 'tool_use', id: map.getCanonicalId('openai', 'call_2'), name: 'get_time', input: {} },
    ]);
    expect(decoded.stop_reason).toBe('tool_use');
    expect(decoded.usage).toEqual({
      input_tokens: 150,
      output_tokens: 42,
      cached_input_tokens: 1024,
      cache_creation_input_tokens: 0,
    });
    expect(decoded.provider_raw).toEqual({
      openai: { id: 'chatcmpl-1', model: 'gpt-5-2025-08-07', finish_reason: 'tool_calls' },
    });
  });

  it('keeps a refusal as text and invalid arguments as {} with a WARN', () => {
    const logger = createMemoryLogger();
    const refused = fromOpenAIChatCompletion(
      completion({ refusal: "I can't help with that." }, 'stop'),
      new ToolIdMap(),
    );
    expect(refused.content).toEqual([{ type: 'text', text: "I can't help with that." }]);
    expect(refused.usage).toBeNull();
    const broken = fromOpenAIChatCompletion(
      completion(
        {
          tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '{"a":' } }],
        },
        'tool_calls',
      ),
      new ToolIdMap(),
      { logger },
    );
    expect(broken.content[0]).toMatchObject({ type: 'tool_use', input: {} });
    expect(logger.warnings()[0]?.obj.event).toBe('tool_input_invalid');
  });

  it('cuts the reply at an emulated stop sequence and reports stop_sequence', () => {
    const decoded = fromOpenAIChatCompletion(
      completion({ content: 'one two END three' }, 'stop'),
      new ToolIdMap(),
      { emulatedStopSequences: ['STOP', 'END'] },
    );
    expect(decoded.content).toEqual([{ type: 'text', text: 'one two ' }]);
    expect(decoded.stop_reason).toBe('stop_sequence');
    expect(decoded.provider_raw).toMatchObject({ openai: { stop_sequence: 'END' } });
  });

  it('maps finish reasons', () => {
    const none = { hasToolCalls: false, stopSequencesSent: false, emulatedStopHit: false };
    expect(mapOpenAIFinishReason('stop', none)).toBe('end_turn');
    expect(mapOpenAIFinishReason('stop', { ...none, stopSequencesSent: true })).toBe(
      'stop_sequence',
    );
    expect(mapOpenAIFinishReason('length', { ...none, hasToolCalls: true })).toBe('max_tokens');
    expect(mapOpenAIFinishReason('tool_calls', none)).toBe('tool_use');
    expect(mapOpenAIFinishReason('stop', { ...none, hasToolCalls: true })).toBe('tool_use');
    expect(mapOpenAIFinishReason('content_filter', none)).toBe('refusal');
    expect(mapOpenAIFinishReason('content_filter', { ...none, hasToolCalls: true })).toBe(
      'tool_use',
    );
    expect(mapOpenAIFinishReason('stop', { ...none, refused: true })).toBe('refusal');
    expect(mapOpenAIFinishReason('length', { ...none, refused: true })).toBe('refusal');
    expect(
      mapOpenAIFinishReason('tool_calls', { ...none, refused: true, hasToolCalls: true }),
    ).toBe('tool_use');
    expect(mapOpenAIFinishReason(null, none)).toBe('end_turn');
  });

  it('maps usage (input excludes cached tokens, never negative)', () => {
    expect(mapOpenAIUsage({ prompt_tokens: 10, completion_tokens: 2 })).toEqual({
      input_tokens: 10,
      output_tokens: 2,
      cached_input_tokens: 0,
      cache_creation_input_tokens: 0,
    });
    expect(
      mapOpenAIUsage({
        prompt_tokens: 5,
        completion_tokens: 0,
        prompt_tokens_details: { cached_tokens: 9 },
      }),
    ).toMatchObject({ input_tokens: 0, cached_input_tokens: 5 });
  });
});

describe('stop sequence emulation', () => {
  it('cuts at the earliest of several sequences', () => {
    expect(cutAtStopSequence('a STOP b END', ['END', 'STOP'])).toEqual({
      text: 'a ',
      matched: 'STOP',
    });
    expect(cutAtStopSequence('nothing', ['END'])).toEqual({ text: 'nothing', matched: null });
  });

  it('holds back a possible start of a sequence across pieces', () => {
    const cutter = new StopSequenceCutter(['END']);
    expect(cutter.push('10. E')).toBe('10. ');
    expect(cutter.push('N')).toBe('');
    expect(cutter.push('D and more')).toBe('');
    expect(cutter.matched).toBe('END');
    const other = new StopSequenceCutter(['END']);
    expect(other.push('THE E')).toBe('THE ');
    expect(other.push('Xtra')).toBe('EXtra');
    expect(other.push('E')).toBe('');
    expect(other.flush()).toBe('E');
  });
});

function builder() {
  return new StreamBuilder({ request_id: 'req_1', model: GPT5, provider: 'openai' });
}
const chunk = (
  delta: Record<string, unknown> | null,
  extra: Partial<OpenAI.ChatCompletionChunk> & { finish_reason?: string } = {},
): OpenAI.ChatCompletionChunk => {
  const { finish_reason, ...rest } = extra;
  return {
    id: 'chatcmpl-s',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'gpt-5',
    choices:
      delta === null
        ? []
        : [{ index: 0, delta, finish_reason: (finish_reason ?? null) as never, logprobs: null }],
    ...rest,
  } as OpenAI.ChatCompletionChunk;
};
function run(
  items: Array<OpenAI.ChatCompletionChunk | typeof OPENAI_STREAM_END>,
  options: Partial<Parameters<typeof createOpenAIStreamMapper>[0]> = {},
) {
  const b = builder();
  const map = createOpenAIStreamMapper({ toolIdMap: new ToolIdMap(), ...options });
  const events: StreamEvent[] = [b.start()];
  for (const item of items) if (!b.finished) events.push(...map(item, b));
  checkStreamInvariants(events);
  return events;
}
const usage = { prompt_tokens: 20, completion_tokens: 5, total_tokens: 25 };

describe('createOpenAIStreamMapper', () => {
  it('cuts streamed text at an emulated stop sequence split across chunks', () => {
    const events = run(
      [
        chunk({ role: 'assistant', content: '' }),
        chunk({ content: 'Count: 1, 2. E' }),
        chunk({ content: 'ND more' }),
        chunk({ content: ' text' }),
        chunk({}, { finish_reason: 'stop' }),
        chunk(null, { usage }),
      ],
      { emulatedStopSequences: ['END'] },
    );
    const done = events.at(-1) as Extract<StreamEvent, { type: 'message.complete' }>;
    expect(done.final_content).toEqual([{ type: 'text', text: 'Count: 1, 2. ' }]);
    expect(done.stop_reason).toBe('stop_sequence');
    expect(done.usage).toMatchObject({ input_tokens: 20, output_tokens: 5 });
  });

  it('completes with estimated usage (WARN) when the stream ends without a usage chunk', () => {
    const logger = createMemoryLogger();
    const events = run(
      [chunk({ content: 'Hi' }), chunk({}, { finish_reason: 'stop' }), OPENAI_STREAM_END],
      {
        logger,
        estimateUsage: () => ({
          input_tokens: 7,
          output_tokens: 1,
          cached_input_tokens: 0,
          cache_creation_input_tokens: 0,
        }),
      },
    );
    const done = events.at(-1) as Extract<StreamEvent, { type: 'message.complete' }>;
    expect(done.usage).toEqual({
      input_tokens: 7,
      output_tokens: 1,
      cached_input_tokens: 0,
      cache_creation_input_tokens: 0,
      estimated: true,
    });
    expect(logger.warnings()[0]?.obj.event).toBe('usage_estimated');
  });

  it('completes at once when usage rides on the finishing chunk', () => {
    const events = run([chunk({ content: 'Hi' }, { finish_reason: 'stop', usage })]);
    expect(events.at(-1)?.type).toBe('message.complete');
  });

  it('waits for a tool call name before starting it, then emits its buffered fragments', () => {
    const events = run([
      chunk({ tool_calls: [{ index: 0, id: 'call_x', function: { arguments: '{"a"' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { name: 'f', arguments: ':1}' } }] }),
      chunk({}, { finish_reason: 'tool_calls' }),
      chunk(null, { usage }),
    ]);
    expect(events.map((e) => e.type)).toEqual([
      'message.start',
      'tool.use_start',
      'tool.use_input_delta',
      'tool.use_input_delta',
      'tool.use_end',
      'message.complete',
    ]);
    expect(events.find((e) => e.type === 'tool.use_end')).toMatchObject({ final_input: { a: 1 } });
  });

  it('does not complete a stream that never finished (the runtime reports it as truncated)', () => {
    const b = builder();
    const map = createOpenAIStreamMapper({ toolIdMap: new ToolIdMap() });
    b.start();
    map(chunk({ content: 'Hi' }), b);
    expect(map(OPENAI_STREAM_END, b)).toEqual([]);
    expect(b.finished).toBe(false);
  });
});

describe('error classification', () => {
  const table: Array<[number | undefined, string | null, string | null, string, string]> = [
    [429, 'rate_limit_exceeded', 'tokens', 'Rate limit reached', 'rate_limit'],
    [
      429,
      'insufficient_quota',
      'insufficient_quota',
      'You exceeded your current quota',
      'rate_limit',
    ],
    [
      400,
      'context_length_exceeded',
      'invalid_request_error',
      'maximum context length is 400000 tokens',
      'context_overflow',
    ],
    [
      400,
      null,
      'invalid_request_error',
      "This model's maximum context length is 128000 tokens.",
      'context_overflow',
    ],
    [
      400,
      'string_above_max_length',
      'invalid_request_error',
      "Invalid 'messages[2].tool_calls[0].id': string too long. Expected a string with maximum length 40, but got a string with length 56 instead.",
      'invalid_request',
    ],
    [401, 'invalid_api_key', 'invalid_request_error', 'Incorrect API key provided', 'auth'],
    [403, null, null, 'Country not supported', 'auth'],
    [500, null, 'server_error', 'The server had an error', 'server_error'],
    [503, null, 'server_error', 'The engine is currently overloaded', 'server_error'],
    [undefined, null, 'server_error', 'stream broke', 'server_error'],
    [
      404,
      'model_not_found',
      'invalid_request_error',
      'The model `gpt-9` does not exist',
      'invalid_request',
    ],
  ];
  for (const [status, code, type, message, expected] of table) {
    it(`${status ?? 'mid-stream'} ${code ?? type ?? '(none)'} → ${expected}`, () => {
      expect(classifyOpenAIError({ status, code, type, message })).toBe(expected);
    });
  }

  it('maps SDK errors with retry-after and keeps the API key out of messages', () => {
    const key = 'sk-proj-abcdefghijklmnopqrstuvwxyz012345';
    const apiError = APIError.generate(
      429,
      { error: { message: `limit for key ${key}`, type: 'requests', code: 'rate_limit_exceeded' } },
      undefined,
      new Headers({ 'retry-after-ms': '250' }),
    );
    const error = toOpenAIAdapterError(apiError, 'req_1', { apiKey: key });
    expect(error.error_class).toBe('rate_limit');
    expect(error).toBeInstanceOf(RateLimitError);
    expect((error as RateLimitError).retry_after_seconds).toBe(0.25);
    expect(error.message).not.toContain(key);
    expect(error.provider_message).not.toContain(key);
    expect(error.provider_status).toBe(429);
  });
});

describe('models', () => {
  it('resolves dated snapshots and fine-tunes to their base model', () => {
    expect(openAIModelInfo('gpt-4.1-2025-04-14')).toBe(openAIModelInfo('gpt-4.1'));
    expect(openAIModelInfo('ft:gpt-4.1-mini:acme::abc123')).toBe(openAIModelInfo('gpt-4.1-mini'));
  });

  it('is conservative about unknown models', () => {
    const unknown = openAIModelInfo('gpt-99-experimental');
    expect(unknown.capabilities.supports_images).toBe(false);
    expect(unknown.temperature).toBe('refused');
    expect(unknown.stopSequences).toBe('emulated');
  });

  it('declares honest capabilities for current models', () => {
    const gpt5 = openAIModelInfo('gpt-5').capabilities;
    expect(gpt5).toMatchObject({
      supports_thinking: false,
      supports_images: true,
      max_context_tokens: 400_000,
      max_output_tokens: 128_000,
    });
    expect(openAIModelInfo('gpt-5-chat-latest').capabilities.supports_tools).toBe(false);
  });
});

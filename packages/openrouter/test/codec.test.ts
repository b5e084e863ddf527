import { type LoopbackServer, startLoopbackServer } from '@yourtool/conformance';
import {
  checkStreamInvariants,
  createMemoryLogger,
  createMessage,
  newRequestId,
  type StreamEvent,
  ToolIdMap,
} from '@yourtool/core';
import { StreamBuilder } from '@yourtool/core/adapter';
import { createOpenAIStreamMapper, OPENAI_TOOL_ERROR_PREFIX } from '@yourtool/openai/codec';
import type OpenAI from 'openai';
import { APIError } from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  anthropicHistory,
  assistant,
  PNG,
  readFile,
  renderChart,
  req,
  session_id,
  text,
  user,
} from '../../openai/test/helpers.js';
import {
  classifyOpenRouterError,
  createOpenRouterReasoningMapper,
  decodeOpenRouterReasoning,
  encodeOpenRouterReasoning,
  fromOpenRouterChatCompletion,
  mapOpenRouterUsage,
  toOpenRouterParams,
} from '../src/codec.js';
import { OpenRouterAdapter, openRouterModelInfo } from '../src/index.js';

const CLAUDE = 'openrouter:anthropic/claude-sonnet-4.6';
const DEEPSEEK = 'openrouter:deepseek/deepseek-v3';

const encode = (model: string, request: ReturnType<typeof req>, map = new ToolIdMap()) => {
  const wireName = model.slice(model.indexOf(':') + 1);
  const logger = createMemoryLogger();
  return {
    ...toOpenRouterParams(request, {
      wireName,
      capabilities: openRouterModelInfo(wireName).capabilities,
      stopSequences: openRouterModelInfo(wireName).stopSequences,
      toolIdMap: map,
      logger,
    }),
    logger,
  };
};

describe('reasoning mapping (decision 0045)', () => {
  const details = [
    {
      type: 'reasoning.summary',
      summary: 'Plan: call the tool.',
      id: 'rs_1',
      format: 'openai-responses-v1',
      index: 0,
    },
    {
      type: 'reasoning.encrypted',
      data: 'gAAAAB-enc',
      id: 'rs_1',
      format: 'openai-responses-v1',
      index: 1,
    },
    {
      type: 'reasoning.text',
      text: 'step',
      signature: 'sig',
      format: 'anthropic-claude-v1',
      index: 2,
    },
  ];

  it('decodes reasoning details into thinking and redacted thinking, keeping their shapes', () => {
    const { blocks, shapes } = decodeOpenRouterReasoning({
      reasoning: 'ignored',
      reasoning_details: details,
    });
    expect(blocks).toEqual([
      { type: 'thinking', text: 'Plan: call the tool.' },
      { type: 'redacted_thinking', data: 'gAAAAB-enc' },
      { type: 'thinking', text: 'step', signature: 'sig' },
    ]);
    expect(shapes).toEqual([
      { type: 'reasoning.summary', id: 'rs_1', format: 'openai-responses-v1', index: 0 },
      { type: 'reasoning.encrypted', id: 'rs_1', format: 'openai-responses-v1', index: 1 },
      { type: 'reasoning.text', format: 'anthropic-claude-v1', index: 2 },
    ]);
    expect(decodeOpenRouterReasoning({ reasoning: 'plain chain of thought' }).blocks).toEqual([
      { type: 'thinking', text: 'plain chain of thought' },
    ]);
  });

  it('sends the same details back, in their original form, from the blocks and provider_raw', () => {
    const { blocks, shapes } = decodeOpenRouterReasoning({ reasoning_details: details });
    const message = assistant([...blocks, text('ok')], CLAUDE, {
      provider_raw: { openrouter: { reasoning_details: shapes } },
    });
    expect(encodeOpenRouterReasoning(blocks as never, message).reasoning_details).toEqual(details);
    const bare = assistant([...blocks, text('ok')], CLAUDE);
    expect(encodeOpenRouterReasoning(blocks as never, bare).reasoning_details).toEqual([
      { type: 'reasoning.text', text: 'Plan: call the tool.', index: 0 },
      { type: 'reasoning.encrypted', data: 'gAAAAB-enc', index: 1 },
      { type: 'reasoning.text', text: 'step', signature: 'sig', index: 2 },
    ]);
  });

  it('puts reasoning_details on the assistant turn for the same model only', () => {
    const history = [
      user(text('q')),
      assistant([{ type: 'thinking', text: 'hmm', signature: 'sig-1' }, text('a')], CLAUDE),
      user(text('more')),
    ];
    const same = encode(CLAUDE, req(CLAUDE, history));
    expect(same.params.messages[1]).toEqual({
      role: 'assistant',
      content: 'a',
      reasoning_details: [{ type: 'reasoning.text', text: 'hmm', signature: 'sig-1', index: 0 }],
    });
    const other = encode(
      'openrouter:anthropic/claude-opus-4.7',
      req('openrouter:anthropic/claude-opus-4.7', history),
    );
    expect(other.params.messages[1]).toEqual({ role: 'assistant', content: 'a' });
    expect(other.dropped.map((d) => d.block_type)).toEqual(['thinking']);
  });

  it('streams reasoning details as thinking deltas, the signature on the last one', () => {
    const builder = new StreamBuilder({ request_id: 'r', model: CLAUDE, provider: 'openrouter' });
    const reasoning = createOpenRouterReasoningMapper();
    const map = createOpenAIStreamMapper({
      provider: 'openrouter',
      toolIdMap: new ToolIdMap(),
      onDelta: reasoning.onDelta,
    });
    const chunk = (delta: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
      ({
        id: 'gen-1',
        object: 'chat.completion.chunk',
        created: 1,
        model: 'm',
        choices: [{ index: 0, delta, finish_reason: null, ...extra }],
        ...extra,
      }) as unknown as OpenAI.ChatCompletionChunk;
    const events: StreamEvent[] = [builder.start()];
    for (const c of [
      chunk({
        reasoning: 'A',
        reasoning_details: [{ type: 'reasoning.text', text: 'A', index: 0 }],
      }),
      chunk({
        reasoning: 'B',
        reasoning_details: [{ type: 'reasoning.text', text: 'B', index: 0 }],
      }),
      chunk({
        reasoning_details: [{ type: 'reasoning.text', text: '', signature: 'S', index: 0 }],
      }),
      chunk({ content: 'Hi' }),
      {
        id: 'gen-1',
        object: 'chat.completion.chunk',
        created: 1,
        model: 'm',
        choices: [{ index: 0, delta: {}, finish_reason: 'stop' }],
        usage: { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 },
      } as unknown as OpenAI.ChatCompletionChunk,
    ]) {
      events.push(...map(c, builder));
    }
    checkStreamInvariants(events);
    expect(events.filter((e) => e.type === 'thinking.delta').at(-1)).toMatchObject({
      signature: 'S',
    });
    expect(events.at(-1)).toMatchObject({
      type: 'message.complete',
      final_content: [
        { type: 'thinking', text: 'AB', signature: 'S' },
        { type: 'text', text: 'Hi' },
      ],
    });
    expect(reasoning.shapes()).toEqual([{ type: 'reasoning.text', index: 0 }]);
  });
});

describe('toOpenRouterParams: request mapping', () => {
  it('uses max_tokens, sends temperature and stop, and the slug as the model', () => {
    const { params } = encode(
      DEEPSEEK,
      req(DEEPSEEK, [user(text('q'))], { temperature: 0.3, stop_sequences: ['END'] }),
    );
    expect(params).toMatchObject({
      model: 'deepseek/deepseek-v3',
      max_tokens: 2048,
      temperature: 0.3,
      stop: ['END'],
    });
    expect(params).not.toHaveProperty('max_completion_tokens');
  });

  it('emulates stop sequences for OpenAI reasoning models behind OpenRouter', () => {
    const { params, emulatedStopSequences } = encode(
      'openrouter:openai/gpt-5',
      req('openrouter:openai/gpt-5', [user(text('q'))], { stop_sequences: ['END'] }),
    );
    expect(params).not.toHaveProperty('stop');
    expect(emulatedStopSequences).toEqual(['END']);
  });

  it('replays a history produced on Anthropic into a valid OpenRouter request', () => {
    const map = new ToolIdMap();
    const history = anthropicHistory(map);
    const { params, dropped } = encode(
      'openrouter:google/gemini-2.5-pro',
      req('openrouter:google/gemini-2.5-pro', history, { tools: [readFile, renderChart] }),
      map,
    );
    const roles = params.messages.map((m) => m.role);
    expect(roles).toEqual([
      'system',
      'user',
      'assistant',
      'tool',
      'tool',
      'user',
      'assistant',
      'tool',
      'user',
    ]);
    const json = JSON.stringify(params);
    expect(json, 'Claude signatures never reach another model').not.toContain('EqQBsig');
    expect(json).not.toContain('reasoning_details');
    expect(json).toContain(`data:image/png;base64,${PNG}`);
    expect(json).toContain(OPENAI_TOOL_ERROR_PREFIX);
    for (const m of params.messages) {
      if (m.role === 'tool') expect(m.tool_call_id.length).toBeLessThanOrEqual(40);
    }
    expect(dropped.map((d) => d.block_type)).toEqual(['thinking', 'redacted_thinking', 'thinking']);
  });

  it('drops images and tools for a model without them (conservative unknown slug)', () => {
    const unknown = 'openrouter:someone/new-model:free';
    const { params, dropped } = encode(
      unknown,
      req(
        unknown,
        [
          user(text('look'), {
            type: 'image',
            source: { kind: 'base64', data: PNG },
            media_type: 'image/png',
          }),
        ],
        { tools: [readFile] },
      ),
    );
    expect(params.messages).toEqual([{ role: 'user', content: 'look' }]);
    expect(params).not.toHaveProperty('tools');
    expect(dropped.map((d) => d.block_type)).toEqual(['image']);
  });
});

describe('fromOpenRouterChatCompletion', () => {
  it('maps usage with cache reads and writes, native finish reasons and cost to provider_raw', () => {
    const decoded = fromOpenRouterChatCompletion(
      {
        id: 'gen-1',
        object: 'chat.completion',
        created: 1,
        model: 'anthropic/claude-sonnet-4.6',
        provider: 'Anthropic',
        choices: [
          {
            index: 0,
            logprobs: null,
            finish_reason: 'stop',
            native_finish_reason: 'stop_sequence',
            message: { role: 'assistant', content: 'Counting', refusal: null },
          },
        ],
        usage: {
          prompt_tokens: 1300,
          completion_tokens: 20,
          total_tokens: 1320,
          cost: 0.0042,
          is_byok: false,
          prompt_tokens_details: { cached_tokens: 1000, cache_write_tokens: 200 },
        },
      } as unknown as OpenAI.ChatCompletion,
      new ToolIdMap(),
    );
    expect(decoded.usage).toEqual({
      input_tokens: 100,
      output_tokens: 20,
      cached_input_tokens: 1000,
      cache_creation_input_tokens: 200,
      provider_cost_usd: '0.0042',
    });
    expect(decoded.stop_reason).toBe('stop_sequence');
    expect(decoded.provider_raw).toMatchObject({
      openrouter: { provider: 'Anthropic', cost: 0.0042, native_finish_reason: 'stop_sequence' },
    });
    expect(mapOpenRouterUsage({ prompt_tokens: 10, completion_tokens: 1 }).input_tokens).toBe(10);
  });
});

describe('error classification', () => {
  const error = (status: number | undefined, body: Record<string, unknown>) =>
    APIError.generate(
      status,
      { error: body },
      undefined,
      status ? new Headers() : undefined,
    ) as APIError;
  const classify = (status: number | undefined, body: Record<string, unknown>) => {
    const e =
      status === undefined
        ? new APIError(undefined, body, undefined, undefined)
        : error(status, body);
    return classifyOpenRouterError(
      { status, code: body.code as number, type: null, message: String(body.message) },
      e,
    );
  };
  it.each([
    [402, { code: 402, message: 'Insufficient credits' }, 'rate_limit'],
    [
      403,
      { code: 403, message: 'flagged', metadata: { reasons: ['violence'], flagged_input: 'x' } },
      'invalid_request',
    ],
    [
      403,
      {
        code: 403,
        message: 'Budget limit exceeded',
        metadata: { limit_source: 'openrouter_key_limit' },
      },
      'rate_limit',
    ],
    [401, { code: 401, message: 'No auth credentials found' }, 'auth'],
    [
      400,
      { code: 400, message: "This endpoint's maximum context length is 1000000 tokens." },
      'context_overflow',
    ],
    [
      502,
      {
        code: 502,
        message: 'Provider returned error',
        metadata: { raw: '{"type":"error","error":{"type":"overloaded_error"}}' },
      },
      'rate_limit',
    ],
    [
      429,
      {
        code: 429,
        message: 'Provider returned error',
        metadata: {
          raw: '{"error":{"message":"Rate limit reached","code":"rate_limit_exceeded"}}',
        },
      },
      'rate_limit',
    ],
    [
      // classified by the upstream body's type, not by words in its text
      502,
      {
        code: 502,
        message: 'Provider returned error',
        metadata: { raw: 'upstream proxy failed; it logs overloaded_error on its own dashboard' },
      },
      'server_error',
    ],
    [
      400,
      {
        code: 400,
        message: 'Provider returned error',
        metadata: { raw: 'tool_use.id: String should match pattern' },
      },
      'invalid_request',
    ],
    [undefined, { code: 502, message: 'Upstream error mid-stream' }, 'server_error'],
    [503, { code: 503, message: 'No allowed providers are available' }, 'server_error'],
  ])('%s %j → %s', (status, body, expected) => {
    expect(classify(status, body)).toBe(expected);
  });
});

describe('OpenRouterAdapter', () => {
  let server: LoopbackServer;
  beforeAll(async () => {
    server = await startLoopbackServer();
  });
  afterAll(() => server.close());
  // each run counts its own requests (vitest --repeats runs a test again on the same server)
  beforeEach(() => server.reset());

  it('sends attribution headers, the slug, and the reasoning and provider fields', async () => {
    const adapter = new OpenRouterAdapter({
      api_key: 'sk-or-v1-00000000000000000000',
      base_url: server.url,
      options: {
        app_url: 'https://example.test',
        app_title: 'Example',
        provider: { order: ['DeepSeek'] },
      },
      extra_headers: { 'x-extra': '1' },
    });
    server.enqueue({
      type: 'json',
      body: {
        id: 'gen-2',
        object: 'chat.completion',
        created: 1,
        model: 'deepseek/deepseek-v3',
        choices: [
          { index: 0, finish_reason: 'stop', message: { role: 'assistant', content: 'ok' } },
        ],
        usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 },
      },
    });
    const res = await adapter.complete(
      {
        request_id: newRequestId(),
        model: DEEPSEEK,
        max_output_tokens: 100,
        messages: [createMessage({ session_id, role: 'user', content: [text('hi')] })],
      },
      { providerOptions: { openrouter: { reasoning: { effort: 'low' } } } },
    );
    expect(res.content).toEqual([{ type: 'text', text: 'ok' }]);
    const sent = server.requests[0]!;
    expect(sent.path).toBe('/chat/completions');
    expect(sent.headers['http-referer']).toBe('https://example.test');
    expect(sent.headers['x-title']).toBe('Example');
    expect(sent.headers['x-extra']).toBe('1');
    expect(sent.headers).not.toHaveProperty('openai-organization');
    expect(sent.body).toMatchObject({
      model: 'deepseek/deepseek-v3',
      reasoning: { effort: 'low' },
      provider: { order: ['DeepSeek'] },
    });
  });

  it('is honest about capabilities, with overrides for slugs it does not know', () => {
    const adapter = new OpenRouterAdapter(
      { api_key: 'sk-or-v1-00000000000000000000' },
      {
        capabilityOverrides: {
          'qwen/qwen3-coder': { supports_tools: true, max_context_tokens: 262_144 },
        },
      },
    );
    expect(adapter.capabilitiesFor('openrouter:qwen/qwen3-coder')).toMatchObject({
      supports_tools: true,
      supports_images: false,
      max_context_tokens: 262_144,
    });
    expect(adapter.capabilitiesFor('openrouter:deepseek/deepseek-v3').supports_images).toBe(false);
    expect(adapter.capabilities.supports_thinking).toBe(true);
  });
});

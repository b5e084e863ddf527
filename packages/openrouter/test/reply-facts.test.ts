import { type LoopbackServer, startLoopbackServer } from '@yourtool/conformance';
import {
  checkStreamInvariants,
  createMessage,
  newRequestId,
  newSessionId,
  type StreamEvent,
  ToolIdMap,
} from '@yourtool/core';
import type OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { numberToDecimalString } from '../src/codec/decimal.js';
import {
  fromOpenRouterChatCompletion,
  mapOpenRouterUsage,
  openRouterProviderCost,
} from '../src/codec.js';
import { OpenRouterAdapter } from '../src/index.js';

const AUTO = 'openrouter:openrouter/auto';
/** The permaslug OpenRouter names Claude Sonnet 4.6 by in its replies. */
const SONNET_SERVED = 'anthropic/claude-4.6-sonnet-20260217';

const usage = (extra: Record<string, unknown> = {}) => ({
  prompt_tokens: 812,
  completion_tokens: 64,
  total_tokens: 876,
  cost: 0.003396,
  is_byok: false,
  prompt_tokens_details: { cached_tokens: 0, cache_write_tokens: 0, audio_tokens: 0 },
  cost_details: {
    upstream_inference_cost: null,
    upstream_inference_prompt_cost: 0.002436,
    upstream_inference_completions_cost: 0.00096,
  },
  completion_tokens_details: { reasoning_tokens: 20, image_tokens: 0 },
  ...extra,
});

const ask = (model: string, stream = false) => ({
  request_id: newRequestId(),
  model,
  max_output_tokens: 256,
  ...(stream ? { stream: true } : {}),
  messages: [
    createMessage({
      session_id: newSessionId(),
      role: 'user',
      content: [{ type: 'text', text: 'Say hello.' }],
    }),
  ],
});

const sse = (chunks: unknown[]) => [
  ': OPENROUTER PROCESSING\n\n',
  ...chunks.map((c) => `data: ${JSON.stringify(c)}\n\n`),
  'data: [DONE]\n\n',
];

describe('OpenRouter reply facts through the SDK and the loopback server', () => {
  let server: LoopbackServer;
  let adapter: OpenRouterAdapter;
  beforeAll(async () => {
    server = await startLoopbackServer();
  });
  afterAll(() => server.close());
  beforeEach(() => {
    adapter = new OpenRouterAdapter({
      api_key: 'sk-or-v1-00000000000000000000',
      base_url: server.url,
    });
  });

  it('asks for usage accounting and returns the served model, reasoning tokens and cost', async () => {
    server.enqueue({
      type: 'json',
      body: {
        id: 'gen-facts-1',
        object: 'chat.completion',
        created: 1,
        model: SONNET_SERVED,
        provider: 'Anthropic',
        choices: [
          {
            index: 0,
            logprobs: null,
            finish_reason: 'stop',
            native_finish_reason: 'end_turn',
            message: { role: 'assistant', content: 'Hello!', refusal: null, reasoning: null },
          },
        ],
        usage: usage(),
      },
    });
    const res = await adapter.complete(ask(AUTO));
    expect(server.requests.at(-1)?.body).toMatchObject({
      model: 'openrouter/auto',
      usage: { include: true },
    });
    expect(res.model, 'the requested id: routing keys on it').toBe(AUTO);
    expect(res.served_model).toBe(`openrouter:${SONNET_SERVED}`);
    expect(res.usage).toEqual({
      input_tokens: 812,
      output_tokens: 64,
      cached_input_tokens: 0,
      cache_creation_input_tokens: 0,
      reasoning_tokens: 20,
      provider_cost_usd: '0.003396',
    });
    expect(res.provider_raw).toMatchObject({ openrouter: { cost: 0.003396, is_byok: false } });
  });

  it('does the same through stream(), on message.complete', async () => {
    const head = { id: 'gen-facts-2', object: 'chat.completion.chunk', created: 1 };
    const chunk = (delta: Record<string, unknown>, finish: string | null = null) => ({
      ...head,
      model: SONNET_SERVED,
      provider: 'Anthropic',
      choices: [
        { index: 0, delta, finish_reason: finish, native_finish_reason: finish && 'end_turn' },
      ],
    });
    server.enqueue({
      type: 'stream',
      contentType: 'text/event-stream',
      chunks: sse([
        chunk({ role: 'assistant', content: '' }),
        chunk({ content: 'Hello!' }),
        chunk({}, 'stop'),
        { ...head, model: SONNET_SERVED, choices: [], usage: usage({ cost: 5.66e-7 }) },
      ]),
    });
    const events: StreamEvent[] = [];
    for await (const event of adapter.stream(ask(AUTO, true))) events.push(event);
    checkStreamInvariants(events);
    expect(server.requests.at(-1)?.body).toMatchObject({
      stream: true,
      stream_options: { include_usage: true },
      usage: { include: true },
    });
    expect(events[0]).toMatchObject({ type: 'message.start', model: AUTO });
    expect(events.at(-1)).toMatchObject({
      type: 'message.complete',
      served_model: `openrouter:${SONNET_SERVED}`,
      usage: { reasoning_tokens: 20, provider_cost_usd: '0.000000566' },
      provider_raw: { openrouter: { cost: 5.66e-7 } },
    });
  });

  it('maps an upstream refusal reported with a stop finish to stop_reason refusal', async () => {
    server.enqueue({
      type: 'json',
      body: {
        id: 'gen-facts-3',
        object: 'chat.completion',
        created: 1,
        model: SONNET_SERVED,
        choices: [
          {
            index: 0,
            finish_reason: 'stop',
            native_finish_reason: 'refusal',
            message: { role: 'assistant', content: "I can't help with that." },
          },
        ],
        usage: usage(),
      },
    });
    const res = await adapter.complete(ask('openrouter:anthropic/claude-sonnet-4.6'));
    expect(res.stop_reason).toBe('refusal');
    expect(res.content).toEqual([{ type: 'text', text: "I can't help with that." }]);
  });
});

describe('OpenRouter cost figure', () => {
  it('is written as a plain decimal, digit for digit as the number came', () => {
    expect(numberToDecimalString(0.000171)).toBe('0.000171');
    expect(numberToDecimalString(3.6e-5)).toBe('0.000036');
    expect(numberToDecimalString(5.66e-7)).toBe('0.000000566');
    expect(numberToDecimalString(-2.5e-8)).toBe('-0.000000025');
    expect(numberToDecimalString(1.5e21)).toBe('1500000000000000000000');
    expect(numberToDecimalString(0.1 + 0.2)).toBe('0.30000000000000004');
    expect(numberToDecimalString(-0)).toBe('0');
    expect(numberToDecimalString(Number.NaN)).toBeNull();
    expect(numberToDecimalString(Number.POSITIVE_INFINITY)).toBeNull();
  });

  it("is the upstream's cost for a BYOK call, whose usage.cost is only OpenRouter's fee", () => {
    const byok = {
      prompt_tokens: 10,
      completion_tokens: 1,
      cost: 0.000009,
      is_byok: true,
      cost_details: { upstream_inference_cost: 0.00018 },
    };
    expect(openRouterProviderCost(byok)).toBe('0.00018');
    expect(openRouterProviderCost({ ...byok, cost_details: null })).toBe('0.000009');
    expect(openRouterProviderCost({ ...byok, is_byok: false })).toBe('0.000009');
  });

  it('is left out when OpenRouter sends none, as are reasoning tokens', () => {
    const mapped = mapOpenRouterUsage({ prompt_tokens: 10, completion_tokens: 1, cost: null });
    expect(mapped).not.toHaveProperty('provider_cost_usd');
    expect(mapped).not.toHaveProperty('reasoning_tokens');
    expect(
      mapOpenRouterUsage({
        prompt_tokens: 10,
        completion_tokens: 1,
        completion_tokens_details: { reasoning_tokens: -3 },
      }),
    ).not.toHaveProperty('reasoning_tokens');
  });
});

describe('fromOpenRouterChatCompletion: refusals', () => {
  const decode = (message: Record<string, unknown>, finish: string, native: string | null) =>
    fromOpenRouterChatCompletion(
      {
        id: 'gen-r',
        object: 'chat.completion',
        created: 1,
        model: 'anthropic/claude-sonnet-4.6',
        choices: [
          {
            index: 0,
            finish_reason: finish,
            native_finish_reason: native,
            message: { role: 'assistant', ...message },
          },
        ],
      } as unknown as OpenAI.ChatCompletion,
      new ToolIdMap(),
    );

  it('keeps the refusal text as text and as refusal, with stop_reason refusal', () => {
    const decoded = decode({ content: null, refusal: 'No.' }, 'stop', null);
    expect(decoded).toMatchObject({
      stop_reason: 'refusal',
      refusal: 'No.',
      content: [{ type: 'text', text: 'No.' }],
      served_model: 'openrouter:anthropic/claude-sonnet-4.6',
    });
  });

  it('lets tool calls win over a refusal finish, and reads content_filter as a refusal', () => {
    const call = {
      id: 'toolu_1',
      type: 'function',
      function: { name: 'read_file', arguments: '{}' },
    };
    expect(decode({ content: '', tool_calls: [call] }, 'tool_calls', 'refusal').stop_reason).toBe(
      'tool_use',
    );
    expect(decode({ content: '' }, 'content_filter', 'SAFETY').stop_reason).toBe('refusal');
    expect(decode({ content: 'Hi' }, 'stop', 'end_turn').stop_reason).toBe('end_turn');
  });
});

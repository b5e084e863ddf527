import { AnthropicAdapter } from '@yourtool/anthropic';
import { defaultPriceTable } from '@yourtool/pricing';
import {
  httpError,
  reset,
  type ScriptedProvider,
  startScriptedProvider,
  text,
  thinking,
  toolCall,
  usage,
} from '@yourtool/testing';
import * as ai7 from 'ai';
import * as ai6 from 'ai6';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLanguageModel, createLanguageModelV3 } from '../src/index.js';

const MODEL = 'anthropic:claude-sonnet-4-6';

let provider: ScriptedProvider;
let claude: AnthropicAdapter;

beforeAll(async () => {
  provider = await startScriptedProvider();
  claude = new AnthropicAdapter({ api_key: 'test-key', base_url: provider.url, max_retries: 1 });
});

afterAll(async () => {
  await claude.close();
  await provider.close();
});

/** The two majors: `ai` 7 on a v4 model, `ai` 6 on a v3 model. */
const MAJORS = [
  {
    name: 'ai 7 (v4)',
    sdk: ai7 as unknown as typeof ai7,
    model: () => createLanguageModel(claude, { model: MODEL, prices: defaultPriceTable() }),
  },
  {
    name: 'ai 6 (v3)',
    sdk: ai6 as unknown as typeof ai7,
    model: () =>
      createLanguageModelV3(claude, { model: MODEL, prices: defaultPriceTable() }) as never,
  },
];

type WireBlock = {
  type: string;
  thinking?: string;
  signature?: string;
  id?: string;
  tool_use_id?: string;
  content?: unknown;
};
type WireMessage = { role: string; content: string | WireBlock[] };

describe.each(MAJORS)('streamText on our Anthropic adapter, $name', ({ sdk, model }) => {
  it('runs a tool, then replays the signed thinking block on the next call', async () => {
    const before = provider.requests.length;
    provider.reply(
      thinking('The user wants a word looked up.', { signature: 'sig-abc', chunks: 2 }),
      toolCall('lookup', { word: 'hi' }, { chunks: 3 }),
      usage({
        input_tokens: 100,
        output_tokens: 20,
        cached_input_tokens: 30,
        cache_creation_input_tokens: 5,
      }),
    );
    provider.reply(
      text('"hi" is a greeting.', { chunks: 2 }),
      usage({ input_tokens: 150, output_tokens: 8 }),
    );
    const looked: string[] = [];
    const result = sdk.streamText({
      model: model(),
      system: 'Be brief.',
      prompt: 'What does hi mean?',
      tools: {
        lookup: sdk.tool({
          description: 'Looks a word up.',
          inputSchema: sdk.jsonSchema<{ word: string }>({
            type: 'object',
            properties: { word: { type: 'string' } },
            required: ['word'],
          }),
          execute: async ({ word }) => {
            looked.push(word);
            return `${word}: a greeting`;
          },
        }),
      },
      stopWhen: sdk.stepCountIs(3),
    });
    const types: string[] = [];
    for await (const part of result.fullStream) types.push(part.type);
    expect(await result.text).toBe('"hi" is a greeting.');
    expect(looked).toEqual(['hi']);
    expect(types).not.toContain('error');
    expect(types.indexOf('reasoning-start')).toBeLessThan(types.indexOf('reasoning-delta'));
    expect(types.indexOf('tool-input-start')).toBeLessThan(types.indexOf('tool-call'));

    const steps = await result.steps;
    expect(steps).toHaveLength(2);
    const first = steps[0]!;
    const reasoning = first.content.find((part) => part.type === 'reasoning');
    expect(reasoning?.providerMetadata?.yourtool?.signature).toBe('sig-abc');
    // our input_tokens excludes the cache: the AI SDK's total is the sum of the three counts
    expect(first.usage.inputTokens).toBe(135);
    expect(first.usage.inputTokenDetails).toEqual({
      noCacheTokens: 100,
      cacheReadTokens: 30,
      cacheWriteTokens: 5,
    });
    expect(first.usage.outputTokens).toBe(20);
    const own = first.providerMetadata?.yourtool as Record<string, unknown>;
    expect(own.model).toBe(MODEL);
    expect(own.served_model).toMatch(/^anthropic:/);
    expect(Number(own.cost_usd)).toBeGreaterThan(0);

    const replay = provider.requests[before + 1]!.body as {
      system: unknown;
      messages: WireMessage[];
    };
    const assistant = replay.messages.find((message) => message.role === 'assistant')!;
    const blocks = assistant.content as WireBlock[];
    expect(blocks[0]).toMatchObject({
      type: 'thinking',
      thinking: 'The user wants a word looked up.',
      signature: 'sig-abc',
    });
    expect(blocks[1]?.type).toBe('tool_use');
    const results = replay.messages.at(-1)!.content as WireBlock[];
    expect(results[0]).toMatchObject({ type: 'tool_result', tool_use_id: blocks[1]?.id });
  });

  it('generateText maps a forced tool choice and a camelCase tool name, and reports the finish reason', async () => {
    const before = provider.requests.length;
    provider.reply(toolCall('look_up', { word: 'yo' }));
    const result = await sdk.generateText({
      model: model(),
      prompt: 'Look up yo.',
      tools: {
        lookUp: sdk.tool({
          description: 'Looks a word up.',
          inputSchema: sdk.jsonSchema<{ word: string }>({
            type: 'object',
            properties: { word: { type: 'string' } },
          }),
        }),
      },
      toolChoice: { type: 'tool', toolName: 'lookUp' },
    });
    expect(result.finishReason).toBe('tool-calls');
    expect(result.toolCalls[0]).toMatchObject({ toolName: 'lookUp', input: { word: 'yo' } });
    // the canonical tool name rule is snake case: the AI SDK's key goes out derived, comes back as it was
    const body = provider.requests[before]!.body as {
      tool_choice?: unknown;
      tools: Array<{ name: string }>;
    };
    expect(body.tool_choice).toEqual({ type: 'tool', name: 'look_up' });
    expect(body.tools.map((tool) => tool.name)).toEqual(['look_up']);
  });

  it('an error after our retries is not retried again by the AI SDK', async () => {
    const before = provider.requests.length;
    provider.reply(httpError(500));
    provider.reply(httpError(500));
    const error = await sdk
      .generateText({ model: model(), prompt: 'Fail.', maxRetries: 2 })
      .catch((caught: unknown) => caught);
    // max_retries 1: two attempts by our adapter, none added by the AI SDK's own retry
    expect(provider.requests.length - before).toBe(2);
    expect(
      (error as { error_class?: string }).error_class ??
        (error as { lastError?: { error_class?: string } }).lastError?.error_class,
    ).toBe('server_error');
  });
});

describe('a stream that breaks mid-way, through the AI SDK model', () => {
  it('hands the partial text, then the error, then one finish last', async () => {
    provider.reply(reset(text('Partial answer that', { chunks: 2 })));
    const model = createLanguageModel(
      new AnthropicAdapter({ api_key: 'test-key', base_url: provider.url, max_retries: 0 }),
      {
        model: MODEL,
      },
    );
    const { stream } = await model.doStream({
      prompt: [{ role: 'user', content: [{ type: 'text', text: 'Go' }] }],
    });
    const parts: Array<{ type: string; error?: unknown }> = [];
    for await (const part of stream as unknown as AsyncIterable<{ type: string }>) parts.push(part);
    const types = parts.map((part) => part.type);
    expect(types.slice(0, 3)).toEqual(['stream-start', 'response-metadata', 'text-start']);
    expect(types.slice(-3)).toEqual(['text-end', 'error', 'finish']);
    const failure = parts.at(-2)?.error as { error_class?: string } | undefined;
    expect(failure?.error_class).toBe('network');
  });
});

import { fileURLToPath } from 'node:url';
import {
  type LoopbackServer,
  loadFixtureDirectory,
  startLoopbackServer,
} from '@yourtool/conformance';
import {
  AdapterOptionError,
  type CanonicalRequestInput,
  createMemoryLogger,
  createMessage,
  newRequestId,
  newSessionId,
  type StreamEvent,
} from '@yourtool/core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  AzureOpenAIAdapter,
  CONSERVATIVE_CAPABILITIES,
  DeepSeekAdapter,
  GroqAdapter,
  MistralAdapter,
  OpenAICompatibleAdapter,
  PRESETS,
  VllmAdapter,
} from '../src/index.js';

const fixtures = {
  vllm: loadFixtureDirectory(fileURLToPath(new URL('./fixtures-vllm', import.meta.url))),
  mistral: loadFixtureDirectory(fileURLToPath(new URL('./fixtures-mistral', import.meta.url))),
  deepseek: loadFixtureDirectory(fileURLToPath(new URL('./fixtures-deepseek', import.meta.url))),
};
const play = (set: keyof typeof fixtures, name: string) => {
  const found = fixtures[set][name];
  if (!found) throw new Error(`no fixture ${set}/${name}`);
  server.enqueue(...found);
};

let server: LoopbackServer;
beforeAll(async () => {
  server = await startLoopbackServer();
});
afterAll(() => server.close());
beforeEach(() => server.reset());

const session_id = newSessionId();
const request = (
  model: string,
  extra: Partial<CanonicalRequestInput> = {},
): CanonicalRequestInput => ({
  request_id: newRequestId(),
  model,
  max_output_tokens: 256,
  messages: [createMessage({ session_id, role: 'user', content: [{ type: 'text', text: 'Hi' }] })],
  ...extra,
});
const drain = async (events: AsyncIterable<StreamEvent>) => {
  const out: StreamEvent[] = [];
  for await (const event of events) out.push(event);
  return out;
};
const last = () => {
  const recorded = server.requests.at(-1);
  if (!recorded) throw new Error('no request reached the server');
  return { ...recorded, body: recorded.body as Record<string, unknown> };
};

describe('groq preset', () => {
  it('sends max_completion_tokens and asks for stream usage, with a bearer key', async () => {
    const groq = new GroqAdapter({ api_key: 'gsk_test_0000', base_url: server.url });
    expect(groq.name).toBe('groq');
    expect(groq.capabilitiesFor('groq:llama-3.3-70b-versatile')).toMatchObject({
      supports_tools: true,
      max_context_tokens: 131_072,
      max_output_tokens: 32_768,
    });
    play('vllm', 'text-stream');
    await drain(groq.stream(request('groq:llama-3.3-70b-versatile', { stream: true })));
    const sent = last();
    expect(sent.path).toBe('/chat/completions');
    expect(sent.headers.authorization).toBe('[REDACTED]');
    expect(sent.body).toMatchObject({
      model: 'llama-3.3-70b-versatile',
      max_completion_tokens: 256,
      stream: true,
      stream_options: { include_usage: true },
    });
    expect(sent.body.max_tokens).toBeUndefined();
    await groq.close();
  });

  it("defaults to Groq's base URL and key variable", () => {
    expect(PRESETS.groq.base_url).toBe('https://api.groq.com/openai/v1');
    const groq = new GroqAdapter();
    expect(groq.quirks).toMatchObject({
      apiKeyEnv: 'GROQ_API_KEY',
      maxTokensField: 'max_completion_tokens',
    });
  });
});

describe('mistral preset', () => {
  it('sends max_tokens and no stream_options; usage from the last chunk', async () => {
    const mistral = new MistralAdapter({ api_key: 'mistral-key', base_url: server.url });
    play('mistral', 'text-stream');
    const events = await drain(
      mistral.stream(request('mistral:mistral-large-latest', { stream: true })),
    );
    const sent = last();
    expect(sent.body.max_tokens).toBe(256);
    expect(sent.body).not.toHaveProperty('stream_options');
    expect(sent.body).not.toHaveProperty('max_completion_tokens');
    const complete = events.at(-1);
    expect(complete?.type === 'message.complete' && complete.usage.estimated).toBeFalsy();
    await mistral.close();
  });
});

describe('vllm preset', () => {
  it('calls a keyless server without an Authorization header', async () => {
    const vllm = new VllmAdapter({ base_url: server.url });
    play('vllm', 'text');
    await vllm.complete(request('vllm:some-model'));
    expect(last().headers).not.toHaveProperty('authorization');
    expect(last().body.max_tokens).toBe(256);
    expect(vllm.capabilitiesFor('vllm:some-model')).toEqual(CONSERVATIVE_CAPABILITIES);
    await vllm.close();
  });

  it('reads the older reasoning_content field as thinking too', async () => {
    const vllm = new VllmAdapter({
      base_url: server.url,
      options: { models: { m: { supports_thinking: true } } },
    });
    server.enqueue({
      type: 'json',
      status: 200,
      body: {
        id: 'chatcmpl-1',
        object: 'chat.completion',
        created: 1,
        model: 'm',
        choices: [
          {
            index: 0,
            message: { role: 'assistant', content: 'Hi.', reasoning_content: 'Short.' },
            finish_reason: 'stop',
          },
        ],
        usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 },
      },
    });
    const reply = await vllm.complete(request('vllm:m'));
    expect(reply.content).toEqual([
      { type: 'thinking', text: 'Short.' },
      { type: 'text', text: 'Hi.' },
    ]);
    await vllm.close();
  });

  it('refuses to be built without a base URL', () => {
    expect(() => new VllmAdapter()).toThrow(AdapterOptionError);
    expect(() => new VllmAdapter()).toThrow(/vllm: base_url: required: .*VLLM_BASE_URL/);
  });
});

describe('azure preset', () => {
  it('deployments API: api-version query, deployment path, api-key header', async () => {
    const azure = new AzureOpenAIAdapter({
      api_key: 'azure-key-0000',
      base_url: server.url,
      options: { azure: { api_version: '2024-10-21', deployments: { 'gpt-4.1': 'prod-gpt41' } } },
    });
    play('vllm', 'text');
    await azure.complete(request('azure:gpt-4.1', { temperature: 0.2 }));
    const sent = last();
    expect(sent.path).toBe(
      '/openai/deployments/prod-gpt41/chat/completions?api-version=2024-10-21',
    );
    expect(sent.headers['api-key']).toBe('[REDACTED]');
    expect(sent.headers).not.toHaveProperty('authorization');
    expect(sent.body).toMatchObject({
      model: 'prod-gpt41',
      max_completion_tokens: 256,
      temperature: 0.2,
    });
    // capabilities of an OpenAI model come from @yourtool/openai's table
    expect(azure.capabilitiesFor('azure:gpt-4.1').supports_images).toBe(true);
    await azure.close();
  });

  it('v1 API: no api-version, deployment in model, key in api-key', async () => {
    const logger = createMemoryLogger();
    const azure = new AzureOpenAIAdapter(
      {
        api_key: 'azure-key-0000',
        base_url: `${server.url}/openai/v1`,
        options: { azure: { deployments: { 'gpt-5': 'my-gpt5' } } },
      },
      { logger },
    );
    play('vllm', 'text');
    await azure.complete(request('azure:gpt-5', { temperature: 0.2, stop_sequences: ['END'] }));
    const sent = last();
    expect(sent.path).toBe('/openai/v1/chat/completions');
    expect(sent.headers['api-key']).toBe('[REDACTED]');
    expect(sent.headers).not.toHaveProperty('authorization');
    expect(sent.body.model).toBe('my-gpt5');
    // GPT-5 refuses temperature and stop (OpenAI's table): left out, with a WARN for temperature
    expect(sent.body).not.toHaveProperty('temperature');
    expect(sent.body).not.toHaveProperty('stop');
    expect(logger.warnings().some((w) => w.obj.parameter === 'temperature')).toBe(true);
    await azure.close();
  });
});

describe('deepseek preset', () => {
  it('reads reasoning_content as thinking, whole and streamed', async () => {
    const deepseek = new DeepSeekAdapter({ api_key: 'sk-ds', base_url: server.url });
    const expected = [
      { type: 'thinking', text: 'The user wants a greeting. Keep it short.' },
      { type: 'text', text: 'Hi there!' },
    ];
    play('deepseek', 'thinking');
    expect((await deepseek.complete(request('deepseek:deepseek-reasoner'))).content).toEqual(
      expected,
    );
    play('deepseek', 'thinking-stream');
    const events = await drain(
      deepseek.stream(request('deepseek:deepseek-reasoner', { stream: true })),
    );
    const complete = events.at(-1);
    expect(complete?.type === 'message.complete' && complete.final_content).toEqual(expected);
    expect(events.filter((e) => e.type === 'thinking.delta')).toHaveLength(2);
    expect(last().body.max_tokens).toBe(256);
    await deepseek.close();
  });
});

describe('configured quirks', () => {
  it('drops refused parameters with a WARN, emulates refused stop, merges extra_body', async () => {
    const logger = createMemoryLogger();
    const adapter = new OpenAICompatibleAdapter(
      {
        api_key: 'k',
        base_url: server.url,
        options: {
          provider: 'together',
          models: { m: { supports_structured_output: true } },
          unsupported_parameters: ['temperature', 'stop', 'response_format', 'stream_options'],
          extra_body: { chat_template_kwargs: { enable_thinking: false } },
        },
      },
      { logger },
    );
    expect(adapter.name).toBe('together');
    play('vllm', 'text-stream');
    await drain(
      adapter.stream(
        request('together:m', {
          stream: true,
          temperature: 0.5,
          stop_sequences: ['END'],
          output_schema: { type: 'object', properties: {}, additionalProperties: false },
        }),
      ),
    );
    const sent = last();
    for (const field of ['temperature', 'stop', 'response_format', 'stream_options']) {
      expect(sent.body, field).not.toHaveProperty(field);
    }
    expect(sent.body.chat_template_kwargs).toEqual({ enable_thinking: false });
    const dropped = logger.warnings().filter((w) => w.obj.event === 'parameter_dropped');
    expect(dropped.map((w) => w.obj.parameter).sort()).toEqual(['response_format', 'temperature']);
    await adapter.close();
  });

  it('derives tool ids from configured rules', async () => {
    const adapter = new OpenAICompatibleAdapter({
      api_key: 'k',
      base_url: server.url,
      options: {
        provider: 'strict',
        models: { m: { supports_tools: true } },
        tool_id: { pattern: '^[a-z0-9]{6}$', max_length: 6 },
      },
    });
    play('vllm', 'text');
    const id = 'tu_01JZ00000000000000000000T1';
    await adapter.complete(
      request('strict:m', {
        messages: [
          createMessage({ session_id, role: 'user', content: [{ type: 'text', text: 'Go' }] }),
          createMessage({
            session_id,
            role: 'assistant',
            content: [{ type: 'tool_use', id, name: 'f', input: {} }],
            metadata: { model: 'other:x' },
          }),
          createMessage({
            session_id,
            role: 'tool',
            content: [
              {
                type: 'tool_result',
                tool_use_id: id,
                content: [{ type: 'text', text: 'ok' }],
                is_error: false,
              },
            ],
            metadata: { parent_tool_use_id: id },
          }),
        ],
        tools: [
          {
            name: 'f',
            description: 'f',
            input_schema: { type: 'object', properties: {} },
            side_effects: 'none',
            requires_workspace: false,
          },
        ],
      }),
    );
    const messages = last().body.messages as Array<{
      tool_calls?: Array<{ id: string }>;
      tool_call_id?: string;
    }>;
    const callId = messages.flatMap((m) => m.tool_calls ?? [])[0]?.id;
    expect(callId).toMatch(/^[a-z0-9]{6}$/);
    expect(messages.find((m) => m.tool_call_id)?.tool_call_id).toBe(callId);
    await adapter.close();
  });

  it('refuses bad options', () => {
    expect(
      () =>
        new OpenAICompatibleAdapter({ base_url: 'http://x', options: { preset: 'nope' as never } }),
    ).toThrow(/unknown preset/);
    expect(
      () => new OpenAICompatibleAdapter({ base_url: 'http://x', options: { provider: 'Bad Key' } }),
    ).toThrow(AdapterOptionError);
    expect(
      () =>
        new OpenAICompatibleAdapter({
          base_url: 'http://x',
          options: { tool_id: { pattern: '(' } },
        }),
    ).toThrow(/tool_id.pattern/);
    expect(new OpenAICompatibleAdapter({ base_url: 'http://x' }).name).toBe('openai-compatible');
  });

  it('refuses a call without a key where one is required, before sending anything', async () => {
    const adapter = new OpenAICompatibleAdapter({
      base_url: server.url,
      options: { provider: 'nokey', api_key_env: 'YOURTOOL_TEST_UNSET_KEY' },
    });
    await expect(adapter.complete(request('nokey:m'))).rejects.toThrow(/YOURTOOL_TEST_UNSET_KEY/);
    expect(server.requests).toHaveLength(0);
  });
});

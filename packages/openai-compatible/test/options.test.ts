import {
  AdapterOptionError,
  createMessage,
  InvalidRequestError,
  newRequestId,
  newSessionId,
} from '@yourtool/core';
import { describe, expect, it } from 'vitest';
import {
  GroqAdapter,
  OpenAICompatibleAdapter,
  OpenAICompatibleOptionsSchema,
  PRESET_NAMES,
  PRESETS,
  resolveQuirks,
  toolIdRulesFromConfig,
  VllmAdapter,
} from '../src/index.js';

/**
 * The adapter's options are a schema checked once, at construction (snake_case, as in
 * models.yaml): an unknown key, a wrong type or a value outside its set is an
 * `AdapterOptionError` naming `options.<field>`, never a model quietly left unconfigured.
 */

const build = (options: Record<string, unknown>) =>
  new OpenAICompatibleAdapter({ base_url: 'http://127.0.0.1:9/v1', options });

/** The error `run` throws (it must throw one). */
function thrownBy(run: () => unknown): AdapterOptionError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(AdapterOptionError);
    return error as AdapterOptionError;
  }
  throw new Error('nothing was thrown');
}

/** [path at fault, options, text of the reason]. */
const INVALID: Array<[string, Record<string, unknown>, string]> = [
  // the issue's: an unknown preset, a bad tool_id.pattern, include_usage: "no"
  ['options.preset', { preset: 'nope' }, 'unknown preset (known: groq, mistral, vllm'],
  ['options.preset', { preset: 5 }, 'unknown preset'],
  ['options.tool_id.pattern', { tool_id: { pattern: '(' } }, 'not a regular expression'],
  ['options.tool_id.pattern', { tool_id: { pattern: 5 } }, 'expected string'],
  ['options.include_usage', { include_usage: 'no' }, 'expected boolean'],
  // every other option with a wrong type or value
  ['options.provider', { provider: 'Bad Key' }, 'lower-case letters'],
  ['options.provider', { provider: 7 }, 'expected string'],
  ['options.api_key_env', { api_key_env: 5 }, 'expected string'],
  ['options.base_url_env', { base_url_env: false }, 'expected string'],
  ['options.requires_api_key', { requires_api_key: 'false' }, 'expected boolean'],
  ['options.models', { models: ['m'] }, 'expected record'],
  ['options.models.m.supports_tools', { models: { m: { supports_tools: 'yes' } } }, 'boolean'],
  [
    'options.models.m',
    { models: { m: { supports_tool: true } } },
    'unknown option "supports_tool"',
  ],
  ['options.models.m.max_context_tokens', { models: { m: { max_context_tokens: -1 } } }, '>0'],
  ['options.models.m.stop_sequences', { models: { m: { stop_sequences: 'no' } } }, '"emulated"'],
  ['options.models.m.temperature', { models: { m: { temperature: 'off' } } }, 'boolean'],
  ['options.default_model', { default_model: 3 }, 'expected string'],
  ['options.max_tokens_field', { max_tokens_field: 'max_output_tokens' }, '"max_tokens"'],
  ['options.reasoning_field', { reasoning_field: 'thoughts' }, '"reasoning_content"'],
  ['options.reasoning_replay', { reasoning_replay: 'yes' }, 'expected boolean'],
  [
    'options.reasoning_required_with_tool_calls',
    { reasoning_required_with_tool_calls: 1 },
    'expected boolean',
  ],
  ['options.request_order', { request_order: 'no_user_after_tool' }, 'expected array'],
  ['options.request_order[0]', { request_order: ['alternate_roles'] }, '"no_user_after_tool"'],
  ['options.tool_id', { tool_id: '^[a-z]+$' }, 'expected object'],
  ['options.tool_id.max_length', { tool_id: { max_length: 0 } }, '>0'],
  ['options.tool_id.max_length', { tool_id: { max_length: 'nine' } }, 'expected number'],
  ['options.tool_id', { tool_id: { length: 9 } }, 'unknown option "length"'],
  ['options.unsupported_parameters', { unsupported_parameters: 'stop' }, 'expected array'],
  ['options.unsupported_parameters[0]', { unsupported_parameters: [5] }, 'expected string'],
  ['options.extra_body', { extra_body: 'x' }, 'expected record'],
  ['options.azure', { azure: '2024-10-21' }, 'expected object'],
  ['options.azure.api_version', { azure: { api_version: 20241021 } }, 'expected string'],
  ['options.azure.deployments.gpt', { azure: { deployments: { gpt: 1 } } }, 'expected string'],
];

describe('openai-compatible options', () => {
  it.each(INVALID)('%s: %j is an AdapterOptionError naming it', (path, options, reason) => {
    const error = thrownBy(() => build(options));
    expect(error.path).toBe(path);
    expect(error.reason).toContain(reason);
    expect(error.message).toContain(path);
  });

  it('names the adapter by its provider key, or its preset, in the error', () => {
    expect(thrownBy(() => build({ provider: 'local', include_usage: 'no' })).adapter).toBe('local');
    expect(thrownBy(() => build({ preset: 'groq', include_usage: 'no' })).adapter).toBe('groq');
    expect(thrownBy(() => build({ include_usage: 'no' })).adapter).toBe('openai-compatible');
    expect(
      thrownBy(() => new GroqAdapter({ options: { include_usage: 'no' } } as never)).path,
    ).toBe('options.include_usage');
  });

  it('a missing base URL (no base_url, no environment variable, no preset URL) names base_url', () => {
    const error = thrownBy(
      () => new OpenAICompatibleAdapter({ options: { provider: 'optstest' } }),
    );
    expect(error.path).toBe('base_url');
    expect(error.adapter).toBe('optstest');
    expect(error.reason).toContain('OPTSTEST_BASE_URL');
    expect(thrownBy(() => new VllmAdapter()).reason).toContain('VLLM_BASE_URL');
  });

  it('the error never quotes the value it refused', () => {
    const secret = 'sk-live-should-not-appear-0000';
    const error = thrownBy(() => build({ api_key_env: 0, extra_body: secret }));
    expect(error.message).not.toContain(secret);
    expect(thrownBy(() => build({ preset: secret })).message).not.toContain(secret);
  });

  it('takes every option with a right value, and every preset', () => {
    const options = {
      provider: 'local',
      api_key_env: 'LOCAL_KEY',
      base_url_env: 'LOCAL_URL',
      requires_api_key: false,
      models: { m: { supports_tools: true, max_context_tokens: 8192, stop_sequences: 'emulated' } },
      default_model: 'm',
      include_usage: false,
      max_tokens_field: 'max_completion_tokens',
      reasoning_field: 'reasoning',
      reasoning_replay: true,
      reasoning_required_with_tool_calls: true,
      request_order: ['no_user_after_tool', 'prefix_last_assistant'],
      tool_id: { pattern: '^[a-z0-9]{9}$', max_length: 9 },
      unsupported_parameters: ['stop'],
      extra_body: { chat_template_kwargs: { enable_thinking: true } },
      azure: { api_version: '2024-10-21', deployments: { m: 'prod-m' } },
    };
    expect(OpenAICompatibleOptionsSchema.parse(options)).toEqual(options);
    const adapter = build(options);
    expect(adapter.name).toBe('local');
    expect(adapter.quirks).toMatchObject({
      includeUsage: false,
      maxTokensField: 'max_completion_tokens',
      toolIdRules: { pattern: /^[a-z0-9]{9}$/, maxLength: 9 },
    });
    for (const preset of PRESET_NAMES)
      expect(build({ preset }).name).toBe(PRESETS[preset].provider);
    expect(Object.keys(PRESETS).sort()).toEqual([...PRESET_NAMES].sort());
  });

  it('resolveQuirks and toolIdRulesFromConfig refuse the same way', () => {
    expect(thrownBy(() => resolveQuirks({ include_usage: 'no' } as never)).path).toBe(
      'options.include_usage',
    );
    expect(thrownBy(() => toolIdRulesFromConfig({ pattern: '[' }, 'x')).path).toBe(
      'options.tool_id.pattern',
    );
    expect(thrownBy(() => toolIdRulesFromConfig({ max_length: 0 }, 'x')).path).toBe(
      'options.tool_id.max_length',
    );
  });
});

describe('openai-compatible per-call options (providerOptions[provider key])', () => {
  // the conformance runs check this for the mistral, vllm and azure presets; here the generic
  // adapter and every preset, against a port nothing listens on (a request would be a network error)
  const keyed = (options: Record<string, unknown>) =>
    new OpenAICompatibleAdapter({
      api_key: 'sk-per-call-options-0000',
      base_url: 'http://127.0.0.1:9/v1',
      max_retries: 0,
      options,
    });
  const adapters = [
    ['generic', keyed({ provider: 'local' })],
    ...PRESET_NAMES.map(
      (preset) =>
        [
          preset,
          keyed({
            preset,
            ...(preset === 'azure' ? { azure: { api_version: '2024-10-21' } } : {}),
          }),
        ] as const,
    ),
  ] as const;

  it.each(adapters)(
    '%s: an unknown key fails the call, naming it, before any request',
    async (_, adapter) => {
      const request = {
        request_id: newRequestId(),
        model: `${adapter.name}:m`,
        max_output_tokens: 100,
        messages: [
          createMessage({
            session_id: newSessionId(),
            role: 'user',
            content: [{ type: 'text', text: 'hi' }],
          }),
        ],
      };
      const options = { providerOptions: { [adapter.name]: { reasoningEffort: 'low' } } };
      const error = await adapter.complete(request, options).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(InvalidRequestError);
      expect((error as Error).message).toBe(
        `providerOptions.${adapter.name}: unknown option "reasoningEffort"`,
      );
      await adapter.close();
    },
  );
});

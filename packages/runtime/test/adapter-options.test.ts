import { MemorySessionStore } from '@yourtool/core/memory-store';
import { RouterConfigError } from '@yourtool/router';
import { describe, expect, it, vi } from 'vitest';
import { createRuntime } from '../src/index.js';

/**
 * Adapter options through createRuntime (issue 26): each adapter checks its `options` from
 * models.yaml against its schema when the registry builds it, so an option with a wrong type or
 * an unknown key fails createRuntime with a RouterConfigError naming
 * `adapters.<key>.options.<field>`, with nothing stored, instead of a model quietly not
 * configured and every turn failing later with NoRouteError.
 */

/** A store that records every write. */
function recordingStore() {
  const store = new MemorySessionStore();
  const writes = ['createSession', 'updateSession', 'appendMessage', 'updateMessage'].map((name) =>
    vi.spyOn(store, name as 'createSession'),
  );
  return { store, writes };
}

/**
 * createRuntime with `models` refused: the RouterConfigError it rejected with, after checking
 * that nothing was written to the store.
 */
async function refusedModels(models: string): Promise<RouterConfigError> {
  const { store, writes } = recordingStore();
  const thrown = await createRuntime({ models, store, logger: false, env: {} }).catch(
    (error: unknown) => error,
  );
  expect(thrown).toBeInstanceOf(RouterConfigError);
  for (const write of writes) expect(write).not.toHaveBeenCalled();
  expect((await store.listSessions()).sessions).toEqual([]);
  return thrown as RouterConfigError;
}

describe('anthropic, google and ollama options: a wrong type or an unknown key is a RouterConfigError', () => {
  /** Each adapter entry as models.yaml has it, `options` left to the case, and one model of it. */
  const ENTRIES = {
    anthropic: {
      key: 'claude',
      entry: 'type: anthropic, api_key: sk-ant-adapter-options-0000',
      model: 'anthropic:claude-sonnet-4-6: { adapter: claude, wire_name: claude-sonnet-4-6 }',
    },
    google: {
      key: 'gemini',
      entry: 'type: google, api_key: gemini-adapter-options-0000',
      model: 'google:gemini-2.5-flash: { adapter: gemini, wire_name: gemini-2.5-flash }',
    },
    ollama: {
      key: 'local',
      entry: 'type: ollama, base_url: "http://127.0.0.1:9"',
      model: 'ollama:qwen3:8b: { adapter: local, wire_name: "qwen3:8b" }',
    },
  } as const;

  const yaml = (type: keyof typeof ENTRIES, options: Record<string, unknown>) => {
    const { key, entry, model } = ENTRIES[type];
    return `
adapters:
  ${key}: { ${entry}, options: ${JSON.stringify(options)} }
models:
  ${model}
`;
  };

  // [adapter type, option, a value of the wrong type, text the issue's message holds]
  const WRONG_TYPES: Array<[keyof typeof ENTRIES, string, unknown, string]> = [
    ['anthropic', 'prompt_caching', 'no', 'expected boolean'],
    ['anthropic', 'anthropic_version', 20230601, 'expected string'],
    ['anthropic', 'thinking', true, 'expected "adaptive", "off"'],
    ['google', 'vertexai', 'false', 'expected boolean'],
    ['google', 'project', 42, 'expected string'],
    ['google', 'location', true, 'expected string'],
    ['google', 'api_version', 1, 'expected string'],
    ['google', 'thinking', 'high', 'expected "on", "off"'],
    ['google', 'safety_settings', 'BLOCK_NONE', 'expected array'],
    ['ollama', 'num_ctx', '4096', 'expected number'],
    ['ollama', 'think', 'yes', 'expected true, false'],
    ['ollama', 'keep_alive', true, 'expected a duration'],
    ['ollama', 'truncate', 'no', 'expected boolean'],
    ['ollama', 'shift', 1, 'expected boolean'],
    ['ollama', 'model_options', 'top_p=0.9', 'expected record'],
    ['ollama', 'detect_capabilities', 'false', 'expected boolean'],
    ['ollama', 'token_estimate_factor', '1.2', 'expected number'],
    ['ollama', 'default_model', 42, 'expected string'],
  ];

  it.each(WRONG_TYPES)(
    '%s options.%s: %j is refused, naming adapters.<key>.options.<field>, nothing stored',
    async (type, field, value, text) => {
      const error = await refusedModels(yaml(type, { [field]: value }));
      const path = `adapters.${ENTRIES[type].key}.options.${field}`;
      expect(error.issues).toEqual([{ path, message: expect.stringContaining(text) }]);
      expect(error.message).toContain(path);
    },
  );

  it.each(Object.keys(ENTRIES) as Array<keyof typeof ENTRIES>)(
    '%s: an unknown option is refused, naming adapters.<key>.options, the key and a close option',
    async (type) => {
      const error = await refusedModels(yaml(type, { prompt_cache: true }));
      // only Anthropic has an option close to it
      const hint = type === 'anthropic' ? '; did you mean "prompt_caching"?' : '';
      expect(error.issues).toEqual([
        {
          path: `adapters.${ENTRIES[type].key}.options`,
          message: `unknown option "prompt_cache"${hint}`,
        },
      ]);
    },
  );

  it.each(Object.keys(ENTRIES) as Array<keyof typeof ENTRIES>)(
    '%s: valid options are taken',
    async (type) => {
      const valid = {
        anthropic: { prompt_caching: false, thinking: 'adaptive' },
        google: { vertexai: false, thinking: { level: 'low' } },
        ollama: { num_ctx: 8192, detect_capabilities: false, keep_alive: '5m' },
      }[type];
      const { store } = recordingStore();
      const runtime = await createRuntime({
        models: yaml(type, valid),
        store,
        logger: false,
        env: {},
      });
      await runtime.close();
    },
  );
});

/**
 * openai, openai-compatible and openrouter: each adapter entry as models.yaml has it (`options`
 * left to the case) and one model of it.
 */
const WIRE_ENTRIES = {
  openai: {
    key: 'gpt',
    entry: 'type: openai, api_key: sk-adapter-options-0000',
    id: 'openai:gpt-5',
    wire: 'gpt-5',
  },
  'openai-compatible': {
    key: 'local',
    entry: 'type: openai-compatible, base_url: "http://127.0.0.1:9/v1", api_key: local-0000',
    id: 'openai-compatible:qwen3',
    wire: 'qwen3',
  },
  openrouter: {
    key: 'router',
    entry: 'type: openrouter, api_key: sk-or-v1-adapter-options-0000',
    id: 'openrouter:deepseek/deepseek-v3',
    wire: 'deepseek/deepseek-v3',
  },
} as const;
type WireType = keyof typeof WIRE_ENTRIES;

const wireYaml = (type: WireType, options: Record<string, unknown>) => {
  const { key, entry, id, wire } = WIRE_ENTRIES[type];
  return `
adapters:
  ${key}: { ${entry}, options: ${JSON.stringify(options)} }
models:
  ${id}: { adapter: ${key}, wire_name: ${wire} }
`;
};

/** [adapter type, options, the field at fault under options, text of the issue's message]. */
const WIRE_INVALID: Array<[WireType, Record<string, unknown>, string, string]> = [
  // the issue's: options.api: bogus, an unknown preset, a bad tool_id.pattern, include_usage: "no"
  ['openai', { api: 'bogus' }, 'api', 'expected one of "chat_completions"|"responses"'],
  ['openai-compatible', { preset: 'nope' }, 'preset', 'unknown preset (known: groq'],
  [
    'openai-compatible',
    { tool_id: { pattern: '(' } },
    'tool_id.pattern',
    'not a regular expression',
  ],
  ['openai-compatible', { include_usage: 'no' }, 'include_usage', 'expected boolean'],
  // and each option with a wrong type (or a value outside its set)
  ['openai', { api: 5 }, 'api', 'expected one of'],
  ['openai', { reasoning_effort: 'extreme' }, 'reasoning_effort', 'expected one of'],
  ['openai', { reasoning_summary: 1 }, 'reasoning_summary', 'expected one of'],
  ['openai', { organization: 42 }, 'organization', 'expected string'],
  ['openai', { project: true }, 'project', 'expected string'],
  ['openai', { strict_structured_output: 'no' }, 'strict_structured_output', 'expected boolean'],
  ['openai-compatible', { preset: 5 }, 'preset', 'unknown preset'],
  ['openai-compatible', { tool_id: { pattern: 5 } }, 'tool_id.pattern', 'expected string'],
  ['openai-compatible', { provider: 7 }, 'provider', 'expected string'],
  ['openai-compatible', { api_key_env: 5 }, 'api_key_env', 'expected string'],
  ['openai-compatible', { base_url_env: false }, 'base_url_env', 'expected string'],
  ['openai-compatible', { requires_api_key: 'false' }, 'requires_api_key', 'expected boolean'],
  ['openai-compatible', { models: ['qwen3'] }, 'models', 'expected record'],
  [
    'openai-compatible',
    { models: { qwen3: { supports_tools: 'yes' } } },
    'models.qwen3.supports_tools',
    'expected boolean',
  ],
  ['openai-compatible', { default_model: 3 }, 'default_model', 'expected string'],
  [
    'openai-compatible',
    { max_tokens_field: 'max_output_tokens' },
    'max_tokens_field',
    'expected one of',
  ],
  ['openai-compatible', { reasoning_field: 'thoughts' }, 'reasoning_field', 'expected one of'],
  ['openai-compatible', { reasoning_replay: 'yes' }, 'reasoning_replay', 'expected boolean'],
  [
    'openai-compatible',
    { reasoning_required_with_tool_calls: 1 },
    'reasoning_required_with_tool_calls',
    'expected boolean',
  ],
  ['openai-compatible', { request_order: 'no_user_after_tool' }, 'request_order', 'expected array'],
  ['openai-compatible', { tool_id: '^[a-z]+$' }, 'tool_id', 'expected object'],
  [
    'openai-compatible',
    { tool_id: { max_length: 'nine' } },
    'tool_id.max_length',
    'expected number',
  ],
  [
    'openai-compatible',
    { unsupported_parameters: 'stop' },
    'unsupported_parameters',
    'expected array',
  ],
  ['openai-compatible', { extra_body: 'x' }, 'extra_body', 'expected record'],
  ['openai-compatible', { azure: '2024-10-21' }, 'azure', 'expected object'],
  ['openrouter', { app_url: 5 }, 'app_url', 'expected string'],
  ['openrouter', { app_title: true }, 'app_title', 'expected string'],
  ['openrouter', { reasoning: 'high' }, 'reasoning', 'expected object'],
  ['openrouter', { reasoning: { effort: 'extreme' } }, 'reasoning.effort', 'expected one of'],
  ['openrouter', { reasoning: { max_tokens: 'many' } }, 'reasoning.max_tokens', 'expected number'],
  // a string provider is the router's provider key (options.provider), so a list here
  ['openrouter', { provider: ['DeepSeek'] }, 'provider', 'expected record'],
];

describe('openai, openai-compatible and openrouter options: an invalid option is a RouterConfigError', () => {
  it.each(WIRE_INVALID)(
    '%s %j is refused, naming adapters.<key>.options.%s, nothing stored',
    async (type, options, field, text) => {
      const error = await refusedModels(wireYaml(type, options));
      const path = `adapters.${WIRE_ENTRIES[type].key}.options.${field}`;
      expect(error.issues).toEqual([{ path, message: expect.stringContaining(text) }]);
      expect(error.message).toContain(path);
    },
  );

  it.each(Object.keys(WIRE_ENTRIES) as WireType[])(
    '%s: an unknown option is refused, naming adapters.<key>.options and the key',
    async (type) => {
      const error = await refusedModels(wireYaml(type, { prompt_cache: true }));
      expect(error.issues).toEqual([
        {
          path: `adapters.${WIRE_ENTRIES[type].key}.options`,
          message: 'unknown option "prompt_cache"',
        },
      ]);
    },
  );

  it.each([
    ['openai-compatible', 'provider: adapteropts', 'adapteropts:m', 'ADAPTEROPTS_BASE_URL'],
    ['vllm', '', 'vllm:m', 'VLLM_BASE_URL'],
  ])(
    'openai-compatible without a base URL (type %s) is refused, naming adapters.<key>.base_url',
    async (type, options, model, variable) => {
      const saved = process.env[variable];
      delete process.env[variable];
      try {
        const error = await refusedModels(`
adapters:
  local: { type: ${type}, api_key: local-0000, options: { ${options} } }
models:
  ${model}: { adapter: local, wire_name: m }
`);
        expect(error.issues).toEqual([
          { path: 'adapters.local.base_url', message: expect.stringContaining(variable) },
        ]);
      } finally {
        if (saved !== undefined) process.env[variable] = saved;
      }
    },
  );

  it.each(Object.keys(WIRE_ENTRIES) as WireType[])(
    '%s: valid options are taken, the model ready',
    async (type) => {
      const valid = {
        openai: { api: 'responses', reasoning_effort: 'low', organization: 'org-1' },
        'openai-compatible': {
          include_usage: false,
          tool_id: { pattern: '^[a-zA-Z0-9]{9}$', max_length: 9 },
          models: { qwen3: { supports_tools: true } },
        },
        openrouter: { app_title: 'Example', reasoning: { effort: 'low' } },
      }[type];
      const { store, writes } = recordingStore();
      const runtime = await createRuntime({
        models: wireYaml(type, valid),
        store,
        logger: false,
        env: {},
      });
      expect(runtime.registry.get(WIRE_ENTRIES[type].id)).toMatchObject({
        status: 'ready',
        not_configured_reason: null,
      });
      await runtime.close();
      for (const write of writes) expect(write).not.toHaveBeenCalled();
    },
  );
});

// The registry as models.yaml builds it (a relative import: the router is not a dependency).
import { ModelRegistry } from '@yourtool/router';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  AzureOpenAIAdapter,
  DeepSeekAdapter,
  GroqAdapter,
  MistralAdapter,
  OpenAICompatibleAdapter,
  type OpenAICompatibleConfig,
  VllmAdapter,
} from '../src/index.js';

/**
 * `setupProblem()` per preset (issue 24, item 6): a preset that needs a key and has none in the
 * config or its environment variable says so, naming both and quoting nothing; a keyless server
 * (`requires_api_key: false`, the vllm preset) never has that problem.
 */

const KEY = 'sk-compat-setupproblem-SECRET-00000000';
const BASE = 'http://127.0.0.1:9/v1';
afterEach(() => {
  vi.unstubAllEnvs();
});

const keyed: Array<[string, string, (config: OpenAICompatibleConfig) => OpenAICompatibleAdapter]> =
  [
    ['groq', 'GROQ_API_KEY', (c) => new GroqAdapter(c)],
    ['mistral', 'MISTRAL_API_KEY', (c) => new MistralAdapter(c)],
    ['deepseek', 'DEEPSEEK_API_KEY', (c) => new DeepSeekAdapter(c)],
    ['azure', 'AZURE_OPENAI_API_KEY', (c) => new AzureOpenAIAdapter(c)],
    [
      'a custom provider',
      'ACME_API_KEY',
      (c) => new OpenAICompatibleAdapter({ ...c, options: { provider: 'acme', ...c.options } }),
    ],
  ];

describe('setupProblem of presets that need a key', () => {
  for (const [name, env, create] of keyed) {
    it(`${name}: names api_key and ${env} when neither holds a key`, () => {
      vi.stubEnv(env, undefined);
      const problem = create({ base_url: BASE }).setupProblem();
      expect(problem).toContain('api_key');
      expect(problem).toContain(env);
    });

    it(`${name}: null with a key in the config or in ${env}`, () => {
      vi.stubEnv(env, undefined);
      expect(create({ base_url: BASE, api_key: KEY }).setupProblem()).toBeNull();
      vi.stubEnv(env, KEY);
      expect(create({ base_url: BASE }).setupProblem()).toBeNull();
    });
  }

  it('follows an api_key_env the options name instead of the preset’s', () => {
    vi.stubEnv('MISTRAL_API_KEY', KEY);
    vi.stubEnv('TEAM_MISTRAL_KEY', undefined);
    const problem = new MistralAdapter({
      base_url: BASE,
      options: { api_key_env: 'TEAM_MISTRAL_KEY' },
    }).setupProblem();
    expect(problem).toContain('TEAM_MISTRAL_KEY');
    expect(problem).not.toContain(KEY);
  });
});

describe('setupProblem of keyless servers', () => {
  it('vllm (requires_api_key: false): null without any key', () => {
    vi.stubEnv('VLLM_API_KEY', undefined);
    expect(new VllmAdapter({ base_url: BASE }).setupProblem()).toBeNull();
  });

  it('a custom server with requires_api_key: false: null without any key', () => {
    vi.stubEnv('LOCAL_API_KEY', undefined);
    const adapter = new OpenAICompatibleAdapter({
      base_url: BASE,
      options: { provider: 'local', requires_api_key: false },
    });
    expect(adapter.setupProblem()).toBeNull();
  });
});

describe('a models.yaml with a Mistral and a vLLM entry and an empty environment', () => {
  it('marks Mistral not_configured with the adapter’s reason, vLLM ready', () => {
    vi.stubEnv('MISTRAL_API_KEY', undefined);
    vi.stubEnv('VLLM_API_KEY', undefined);
    const yaml = `
adapters:
  mistral: { type: mistral }
  vllm: { type: vllm, base_url: ${BASE} }
models:
  mistral:mistral-large-latest: { adapter: mistral, wire_name: mistral-large-latest }
  vllm:Qwen/Qwen3-8B: { adapter: vllm, wire_name: Qwen/Qwen3-8B }
`;
    const registry = ModelRegistry.fromYaml(yaml, {
      factories: {
        mistral: (config, runtime) => new MistralAdapter(config as OpenAICompatibleConfig, runtime),
        vllm: (config, runtime) => new VllmAdapter(config as OpenAICompatibleConfig, runtime),
      },
      env: {},
    });
    const mistral = registry.get('mistral:mistral-large-latest');
    expect(mistral.status).toBe('not_configured');
    expect(mistral.not_configured_reason).toContain('MISTRAL_API_KEY');
    expect(registry.get('vllm:Qwen/Qwen3-8B').status).toBe('ready');
  });
});

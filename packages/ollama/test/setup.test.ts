import type { AdapterConfigInput } from '@yourtool/core';
import { type AdapterFactory, ModelRegistry } from '@yourtool/router';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { OllamaAdapter } from '../src/index.js';

/**
 * `setupProblem()` (issue 24 item 6): a local or self-hosted Ollama needs no key, so it is
 * always ready; ollama.com refuses calls without one, so an adapter pointed there with no key
 * says why before routing.
 */

const KEY = 'ollama-setup-test-key-0000000000';

beforeEach(() => {
  vi.stubEnv('OLLAMA_API_KEY', undefined);
  vi.stubEnv('OLLAMA_HOST', undefined);
});
afterEach(() => {
  vi.unstubAllEnvs();
});

const adapter = (config: AdapterConfigInput = {}) => new OllamaAdapter(config);

describe('OllamaAdapter.setupProblem', () => {
  it('a local or self-hosted server needs no key: null', () => {
    expect(adapter().setupProblem()).toBeNull();
    expect(adapter({ base_url: 'http://gpu-box.lan:11434' }).setupProblem()).toBeNull();
  });

  it('ollama.com without a key: a reason naming where a key is looked for', () => {
    const problem = adapter({ base_url: 'https://ollama.com' }).setupProblem();
    expect(problem).toContain('api_key');
    expect(problem).toContain('OLLAMA_API_KEY');
  });

  it('ollama.com with a key in the config, the variable or an Authorization header: null', () => {
    const cloud = { base_url: 'https://ollama.com' };
    expect(adapter({ ...cloud, api_key: KEY }).setupProblem()).toBeNull();
    expect(
      adapter({ ...cloud, extra_headers: { Authorization: `Bearer ${KEY}` } }).setupProblem(),
    ).toBeNull();
    vi.stubEnv('OLLAMA_API_KEY', KEY);
    expect(adapter(cloud).setupProblem()).toBeNull();
  });

  it('the registry: a local model is ready, an ollama.com one without a key not_configured', () => {
    const yaml = (base: string) => `adapters:
  ollama:
    type: ollama
    base_url: ${base}
models:
  ollama:qwen3:8b:
    adapter: ollama
    wire_name: qwen3:8b
`;
    const factories: Record<string, AdapterFactory> = {
      ollama: (config, runtime) => new OllamaAdapter(config, runtime),
    };
    const [local] = ModelRegistry.fromYaml(yaml('http://127.0.0.1:11434'), {
      factories,
      env: {},
    }).models();
    expect(local?.status).toBe('ready');
    const [cloud] = ModelRegistry.fromYaml(yaml('https://ollama.com'), {
      factories,
      env: {},
    }).models();
    expect(cloud?.status).toBe('not_configured');
    expect(cloud?.not_configured_reason).toContain('OLLAMA_API_KEY');
  });
});

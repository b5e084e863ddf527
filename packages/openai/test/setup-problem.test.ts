import { createMemoryLogger } from '@yourtool/core';
// The registry as models.yaml builds it (a relative import: the router is not a dependency).
import { ModelRegistry } from '@yourtool/router';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { OpenAIAdapter, OpenAIResponsesAdapter } from '../src/index.js';

/**
 * `setupProblem()` (issue 24, item 6): an adapter with no API key anywhere says so before any
 * call, naming where a key is looked for and never quoting one; the registry then marks its
 * models `not_configured` so nothing is routed to them.
 */

const KEY = 'sk-proj-setupproblem-SECRET-0000000000';
afterEach(() => {
  vi.unstubAllEnvs();
});

describe('OpenAIAdapter.setupProblem', () => {
  for (const api of ['chat_completions', 'responses'] as const) {
    it(`(${api}) names api_key and OPENAI_API_KEY when neither holds a key`, () => {
      vi.stubEnv('OPENAI_API_KEY', undefined);
      const problem = new OpenAIAdapter({ options: { api } }).setupProblem();
      expect(problem).toContain('api_key');
      expect(problem).toContain('OPENAI_API_KEY');
    });

    it(`(${api}) is null with a key in the config or in OPENAI_API_KEY, and never quotes it`, () => {
      vi.stubEnv('OPENAI_API_KEY', undefined);
      expect(new OpenAIAdapter({ api_key: KEY, options: { api } }).setupProblem()).toBeNull();
      vi.stubEnv('OPENAI_API_KEY', KEY);
      expect(new OpenAIAdapter({ options: { api } }).setupProblem()).toBeNull();
    });
  }

  it('OpenAIResponsesAdapter on its own says the same', () => {
    vi.stubEnv('OPENAI_API_KEY', undefined);
    expect(new OpenAIResponsesAdapter().setupProblem()).toContain('OPENAI_API_KEY');
    expect(new OpenAIResponsesAdapter({ api_key: KEY }).setupProblem()).toBeNull();
  });
});

describe('a models.yaml entry of type openai', () => {
  const yaml = `
adapters:
  openai: { type: openai }
  keyed: { type: openai, api_key_env: TEAM_OPENAI_KEY, options: { api: responses } }
models:
  openai:gpt-5: { adapter: openai, wire_name: gpt-5 }
  openai:gpt-5-mini: { adapter: keyed, wire_name: gpt-5-mini }
`;
  const registry = (env: Record<string, string>) =>
    ModelRegistry.fromYaml(yaml, {
      factories: { openai: (config, runtime) => new OpenAIAdapter(config, runtime) },
      env,
      logger: createMemoryLogger(),
    });

  it('is not_configured, with the adapter’s reason, when no key is set anywhere', () => {
    vi.stubEnv('OPENAI_API_KEY', undefined);
    const models = registry({});
    expect(models.get('openai:gpt-5')).toMatchObject({ status: 'not_configured' });
    expect(models.get('openai:gpt-5').not_configured_reason).toContain('OPENAI_API_KEY');
    expect(models.get('openai:gpt-5-mini').status).toBe('not_configured');
  });

  it('is ready when the key is in the environment, and no reason quotes it', () => {
    vi.stubEnv('OPENAI_API_KEY', KEY);
    const models = registry({ TEAM_OPENAI_KEY: KEY });
    expect(models.get('openai:gpt-5').status).toBe('ready');
    expect(models.get('openai:gpt-5-mini').status).toBe('ready');
    expect(JSON.stringify(models.models())).not.toContain(KEY);
  });
});

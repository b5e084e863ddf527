import { inspect } from 'node:util';
import { AdapterOptionError } from '@yourtool/core';
import { describe, expect, it } from 'vitest';
import {
  type AdapterEntry,
  ModelNotConfiguredError,
  ModelRegistry,
  NoRouteError,
  parseRegistryConfig,
  parseRoutingConfig,
  providerOf,
  Router,
  RouterConfigError,
  UnknownModelError,
} from '../src/index.js';
import { DeclaringAdapter, ENV, factories, MODELS_YAML, session_id, user } from './helpers.js';

const load = (env: Record<string, string> = ENV, yaml = MODELS_YAML) =>
  ModelRegistry.fromYaml(yaml, { factories: factories(), env });

describe('ModelRegistry', () => {
  it('loads the contract §7.1 shape, with wire names, tiers and aliases', () => {
    const registry = load();
    expect(registry.models().map((m) => m.id)).toEqual([
      'anthropic:claude-opus-4-7',
      'anthropic:claude-sonnet-4-6',
      'anthropic:claude-haiku-4-5',
      'openai:gpt-5',
      'openai:gpt-5-mini',
      'ollama:llama3.2:3b',
    ]);
    expect(registry.get('sonnet')).toMatchObject({
      id: 'anthropic:claude-sonnet-4-6',
      tier: 'balanced',
      can_delegate: true,
      wire_name: 'claude-sonnet-4-6',
      status: 'ready',
    });
    expect(registry.resolve('deep')).toBe('anthropic:claude-opus-4-7');
    expect(registry.resolve('ollama:llama3.2:3b')).toBe('ollama:llama3.2:3b');
    expect(registry.modelsOfTier('fast').map((m) => m.id)).toEqual([
      'anthropic:claude-haiku-4-5',
      'openai:gpt-5-mini',
    ]);
  });

  it('builds each adapter once with its config, wire names and capability overrides', () => {
    const registry = load();
    const anthropic = registry.adapterFor('sonnet') as DeclaringAdapter;
    expect(registry.adapterFor('opus')).toBe(anthropic);
    expect(anthropic.config).toMatchObject({
      api_key: 'sk-ant-test',
      base_url: 'https://api.anthropic.com',
      max_retries: 2,
      timeout_seconds: 600,
      idle_timeout_seconds: 45,
    });
    expect(anthropic.runtime.wireNames['anthropic:claude-haiku-4-5']).toBe('claude-haiku-4-5');
    expect(registry.capabilitiesFor('llama')).toMatchObject({
      supports_images: false,
      supports_tools: false,
      max_context_tokens: 8192,
    });
    expect((registry.adapterFor('llama') as DeclaringAdapter).config).not.toHaveProperty('api_key');
  });

  it('marks models of an adapter without its API key as not configured, naming the variable', () => {
    const registry = load({ ANTHROPIC_API_KEY: 'sk-ant-test' });
    const gpt = registry.get('gpt5');
    expect(gpt.status).toBe('not_configured');
    expect(gpt.not_configured_reason).toBe('the environment variable OPENAI_API_KEY is not set');
    expect(() => registry.adapterFor('gpt5')).toThrowError(ModelNotConfiguredError);
    expect(() => registry.adapterFor('gpt5')).toThrow(
      /openai:gpt-5 is not configured: the environment variable OPENAI_API_KEY is not set/,
    );
    expect(registry.get('sonnet').status).toBe('ready');
  });

  it('refuses an unknown name with the closest matches', () => {
    const registry = load();
    expect(() => registry.resolve('sonet')).toThrowError(UnknownModelError);
    try {
      registry.resolve('sonet');
    } catch (error) {
      expect((error as UnknownModelError).suggestions[0]).toBe('sonnet');
      expect((error as Error).message).toContain('did you mean "sonnet"');
    }
    expect(registry.suggest('gpt-5')).toContain('openai:gpt-5');
    expect(registry.suggest('claude-haiku')).toContain('anthropic:claude-haiku-4-5');
    expect(registry.suggest('zzzzzzzz')).toEqual([]);
  });

  it("an entry's options.provider is the provider key its models use", () => {
    const config = parseRegistryConfig(`
adapters:
  together: { type: openai-compatible, options: { provider: together } }
  lmstudio: { type: openai-compatible }
models:
  together:llama: { adapter: together, wire_name: llama }
  openai-compatible:qwen: { adapter: lmstudio, wire_name: qwen }
`);
    expect(providerOf(config.adapters.together as AdapterEntry)).toBe('together');
    expect(providerOf(config.adapters.lmstudio as AdapterEntry)).toBe('openai-compatible');
    expect(() =>
      parseRegistryConfig(`
adapters:
  together: { type: openai-compatible, options: { provider: together } }
models:
  openai-compatible:llama: { adapter: together, wire_name: llama }
`),
    ).toThrow(
      'model provider "openai-compatible" does not match adapter "together" serving provider "together" (options.provider)',
    );
  });

  it('refuses a key put in api_key_env without quoting it, in the error, its message or its inspection', () => {
    const key = 'sk-ant-api03-Zq7hX2mB9vLrT4kW8nYc1pDf6sGj3aQe5uIo0-xyzAA';
    for (const yaml of [
      `adapters:\n  anthropic: { type: anthropic, api_key_env: "${key}" }\nmodels:\n  anthropic:claude-x: { adapter: anthropic, wire_name: x }\n`,
      `adapters:\n  anthropic:\n    type: anthropic\n    api_key_env: ${key}\nmodels:\n  anthropic:claude-x: { adapter: anthropic, wire_name: x }\n`,
    ]) {
      let thrown: unknown;
      try {
        ModelRegistry.fromYaml(yaml, { factories: factories(), env: {} }, 'models.yaml');
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(RouterConfigError);
      const error = thrown as RouterConfigError;
      expect(error.issues.map((i) => i.path)).toContain('adapters.anthropic.api_key_env');
      expect(error.message).toContain('must name an environment variable');
      for (const text of [
        error.message,
        inspect(error, { depth: 10 }),
        JSON.stringify(error.issues),
      ]) {
        expect(text).not.toContain(key);
        expect(text).not.toContain(key.slice(0, 20));
      }
    }
  });

  it('marks the models of an adapter that reports a setup problem not_configured, with its reason', () => {
    class Keyless extends DeclaringAdapter {
      setupProblem(): string | null {
        return this.config.api_key
          ? null
          : 'no API key: set api_key, api_key_env or OPENAI_API_KEY';
      }
    }
    const yaml = `
adapters:
  openai: { type: openai }
  anthropic: { type: anthropic, api_key: sk-ant-present-0000000000 }
models:
  openai:gpt-5: { adapter: openai, wire_name: gpt-5 }
  anthropic:claude-x: { adapter: anthropic, wire_name: x }
`;
    const registry = ModelRegistry.fromYaml(yaml, {
      factories: {
        openai: (config, runtime) => new Keyless('openai', config, runtime),
        anthropic: (config, runtime) => new Keyless('anthropic', config, runtime),
      },
      env: {},
    });
    expect(registry.get('openai:gpt-5')).toMatchObject({
      status: 'not_configured',
      not_configured_reason: 'no API key: set api_key, api_key_env or OPENAI_API_KEY',
    });
    expect(registry.get('anthropic:claude-x').status).toBe('ready');
    const router = new Router({
      registry,
      config: parseRoutingConfig('global_default: openai:gpt-5'),
    });
    const refused = (() => {
      try {
        router.route({ session_id, messages: [user('hi')], max_output_tokens: 64 });
      } catch (error) {
        return error;
      }
    })();
    expect(refused).toBeInstanceOf(NoRouteError);
    expect((refused as Error).message).toContain('no API key');
  });

  it('an option the adapter refuses is a configuration error naming adapters.<key>.<path>', () => {
    const yaml = `
adapters:
  google: { type: google, options: { vertexai: "false" } }
models:
  google:gemini-x: { adapter: google, wire_name: gemini-x }
`;
    let thrown: unknown;
    try {
      ModelRegistry.fromYaml(
        yaml,
        {
          factories: {
            google: () => {
              throw new AdapterOptionError('google', 'options.vertexai', 'expected boolean');
            },
          },
          env: {},
        },
        'models.yaml',
      );
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(RouterConfigError);
    expect((thrown as RouterConfigError).issues).toEqual([
      { path: 'adapters.google.options.vertexai', message: 'expected boolean' },
    ]);
    expect((thrown as Error).message).toContain('models.yaml');
  });

  it('reports every invalid entry with its path', () => {
    const bad = `
adapters:
  anthropic: { type: anthropic, api_key_env: K, base_urll: https://x }
  openai: { type: openai }
models:
  anthropic:claude-x: { adapter: nowhere, wire_name: x }
  openai:gpt-x: { adapter: anthropic, wire_name: x, aliases: [dup] }
  openai:gpt-y: { adapter: openai, wire_name: y, aliases: [dup], tier: 3 }
`;
    try {
      ModelRegistry.fromYaml(bad, { factories: factories(), env: {} }, 'models.yaml');
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(RouterConfigError);
      const paths = (error as RouterConfigError).issues.map((i) => i.path);
      expect(paths).toContain('adapters.anthropic');
      expect(paths).toContain('models.openai:gpt-y.tier');
    }
    const semantic = `
adapters:
  anthropic: { type: anthropic }
models:
  anthropic:claude-x: { adapter: nowhere, wire_name: x }
  openai:gpt-x: { adapter: anthropic, wire_name: x, aliases: [dup] }
  anthropic:claude-y: { adapter: anthropic, wire_name: y, aliases: [dup] }
`;
    try {
      ModelRegistry.fromYaml(semantic, { factories: factories(), env: {} }, 'models.yaml');
      expect.unreachable();
    } catch (error) {
      expect((error as RouterConfigError).issues).toEqual([
        {
          path: 'models["anthropic:claude-x"].adapter',
          message: 'no adapter "nowhere" in adapters',
        },
        {
          path: 'models["openai:gpt-x"].adapter',
          message: 'model provider "openai" does not match adapter "anthropic" of type "anthropic"',
        },
        {
          path: 'models["anthropic:claude-y"].aliases',
          message: '"dup" already names openai:gpt-x',
        },
      ]);
      expect((error as Error).message).toContain('models.yaml is invalid');
    }
    expect(() => ModelRegistry.fromYaml('adapters: [', { factories: factories() })).toThrow(
      /not valid YAML/,
    );
  });

  it('closes every adapter', async () => {
    const registry = load();
    await registry.close();
    expect((registry.adapterFor('sonnet') as DeclaringAdapter).closed).toBe(true);
  });

  describe('secrets in config errors', () => {
    /** Everything an error shows: message, stack, issues, its cause chain, util.inspect. */
    const everything = (error: unknown): string => {
      const parts: string[] = [];
      let current: unknown = error;
      for (let depth = 0; current !== undefined && current !== null && depth < 10; depth++) {
        if (current instanceof Error) {
          parts.push(current.message, current.stack ?? '', JSON.stringify(current));
          current = current.cause;
        } else {
          parts.push(String(current));
          break;
        }
      }
      parts.push(inspect(error, { depth: 10 }));
      return parts.join('\n');
    };
    const thrown = (yaml: string): RouterConfigError => {
      try {
        ModelRegistry.fromYaml(yaml, { factories: factories(), env: {} }, 'models.yaml');
      } catch (error) {
        expect(error).toBeInstanceOf(RouterConfigError);
        return error as RouterConfigError;
      }
      throw new Error('expected a RouterConfigError');
    };

    it('redacts the api_key line a YAML syntax error quotes (block style, any value)', () => {
      const error = thrown(`
adapters:
  anthropic:
    type: anthropic
    api_key: correct-horse-battery: staple
models: {}
`);
      expect(error.message).toContain('not valid YAML');
      expect(error.message, 'still says where').toContain('line 5');
      const shown = everything(error);
      expect(shown).not.toContain('correct-horse-battery');
      expect(shown).not.toContain('staple');
      expect(shown).toContain('[REDACTED]');
    });

    it('redacts a key-shaped api_key and a quoted one in a flow mapping', () => {
      const keyShaped = thrown(`
adapters:
  anthropic:
    type: anthropic
    api_key: sk-ant-api03-Q2xhdWRlU2VjcmV0S2V5: x
models: {}
`);
      expect(everything(keyShaped)).not.toContain('Q2xhdWRlU2VjcmV0S2V5');
      const flow = thrown(`
adapters:
  anthropic: { type: anthropic, api_key: 'hunter2-horse-battery', base_url: [ }
models: {}
`);
      expect(flow.message).toContain('not valid YAML');
      expect(everything(flow)).not.toContain('hunter2-horse-battery');
    });

    it('redacts the key from a schema error and from a not-configured reason', () => {
      const schema = thrown(`
adapters:
  anthropic: { type: anthropic, api_key: sk-ant-api03-SchemaErrorKey0000, base_url: not-a-url }
models: {}
`);
      expect(schema.issues.map((i) => i.path)).toEqual(['adapters.anthropic.base_url']);
      expect(everything(schema)).not.toContain('SchemaErrorKey0000');
      const registry = ModelRegistry.fromYaml(
        `
adapters:
  anthropic: { type: anthropic, api_key: hunter2-horse-battery }
models:
  anthropic:claude-x: { adapter: anthropic, wire_name: x }
`,
        {
          factories: {
            anthropic: (config) => {
              throw new Error(`the key ${String(config.api_key)} is malformed`);
            },
          },
        },
      );
      expect(registry.get('anthropic:claude-x').not_configured_reason).toBe(
        'the adapter could not be created: the key [REDACTED] is malformed',
      );
    });
  });
});

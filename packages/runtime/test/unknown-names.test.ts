import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemorySessionStore } from '@yourtool/core/memory-store';
import { describe, expect, it, vi } from 'vitest';
import {
  createRuntime,
  InvalidRuntimeOptionError,
  RouterConfigError,
  type RuntimeOptions,
  RuntimeSetupError,
} from '../src/index.js';

/**
 * Unknown names through createRuntime (issue 35): an option that is no option, a models.yaml
 * adapter type no package or factory builds, and a misspelt field of models.yaml or
 * routing.yaml are refused, each naming the nearest known name when one is close, with nothing
 * stored.
 */

const MODELS = `
adapters:
  anthropic: { type: anthropic, api_key: sk-ant-unknown-names-0000, base_url: http://127.0.0.1:9 }
models:
  anthropic:claude-sonnet-4-6: { adapter: anthropic, wire_name: claude-sonnet-4-6, aliases: [sonnet] }
`;

/** The error createRuntime rejects `options` with, after checking nothing was stored. */
async function refused(options: Record<string, unknown>): Promise<unknown> {
  const store = new MemorySessionStore();
  const writes = ['createSession', 'updateSession', 'appendMessage', 'updateMessage'].map((name) =>
    vi.spyOn(store, name as 'createSession'),
  );
  const thrown = await createRuntime({
    store,
    logger: false,
    env: {},
    ...options,
  } as unknown as RuntimeOptions).then(
    async (runtime) => {
      await runtime.close();
      throw new Error('createRuntime took the options');
    },
    (error: unknown) => error,
  );
  for (const write of writes) expect(write).not.toHaveBeenCalled();
  expect((await store.listSessions()).sessions).toEqual([]);
  return thrown;
}

describe('createRuntime: an option that is no option', () => {
  it('is refused with the option it was meant to be (before, maxStep: 3 was ignored)', async () => {
    const error = await refused({ models: MODELS, maxStep: 3 });
    expect(error).toBeInstanceOf(InvalidRuntimeOptionError);
    expect(error).toMatchObject({
      code: 'invalid_option',
      option: 'maxStep',
      message: 'unknown option "maxStep"; did you mean "maxSteps"?',
    });
  });

  it('is refused before anything else: a misspelt models is named as such, not as missing', async () => {
    expect(await refused({ model: MODELS })).toMatchObject({
      option: 'model',
      message: 'unknown option "model"; did you mean "models"?',
    });
  });

  it('is named alone when no option is close, before a store URL is opened', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'runtime-unknown-')), 'sessions.db');
    expect(await refused({ models: MODELS, store: `sqlite:${file}`, colour: 'red' })).toMatchObject(
      { option: 'colour', message: 'unknown option "colour"' },
    );
    expect(existsSync(file)).toBe(false);
  });
});

describe('createRuntime: an adapter type no package or factory builds', () => {
  it('type: antropic is named as an unknown type with "anthropic" suggested, not as a provider mismatch', async () => {
    const error = await refused({
      models: `
adapters:
  anthropic: { type: antropic, api_key: sk-ant-unknown-names-0000 }
models:
  anthropic:claude-sonnet-4-6: { adapter: anthropic, wire_name: claude-sonnet-4-6 }
`,
    });
    expect(error).toBeInstanceOf(RuntimeSetupError);
    expect(error).toMatchObject({
      code: 'unknown_adapter_type',
      message:
        '<models>: adapters.anthropic.type: unknown adapter type "antropic"; did you mean "anthropic"? (for a type of your own, pass its factory in the factories option)',
    });
  });

  it('a type like no known one lists the known types', async () => {
    const error = (await refused({
      models: `
adapters:
  cohere: { type: cohere, api_key: k }
models:
  cohere:command-r: { adapter: cohere, wire_name: command-r }
`,
    })) as RuntimeSetupError;
    expect(error.code).toBe('unknown_adapter_type');
    expect(error.message).toContain(
      'adapters.cohere.type: unknown adapter type "cohere"; the known types are anthropic, vertex-anthropic, bedrock, google, openai, openrouter, ollama, openai-compatible, azure, deepseek, groq, mistral, vllm',
    );
  });

  it('a type of the factories option counts as known, and is suggested', async () => {
    const error = await refused({
      models: `
adapters:
  proxy: { type: anthropic-prxy, api_key: k }
models:
  anthropic-proxy:claude-sonnet-4-6: { adapter: proxy, wire_name: claude-sonnet-4-6 }
`,
      factories: { 'anthropic-proxy': () => ({}) as never },
    });
    expect(error).toMatchObject({
      code: 'unknown_adapter_type',
      message: expect.stringContaining(
        'unknown adapter type "anthropic-prxy"; did you mean "anthropic-proxy"?',
      ),
    });
  });
});

describe('createRuntime: a misspelt field of models.yaml or routing.yaml', () => {
  it('models.yaml names the field it was meant to be', async () => {
    const error = await refused({
      models: `
adapters:
  anthropic: { type: anthropic, api_key: sk-ant-unknown-names-0000 }
models:
  anthropic:claude-sonnet-4-6: { adapter: anthropic, wire_name: claude-sonnet-4-6, alias: [sonnet] }
`,
    });
    expect(error).toBeInstanceOf(RouterConfigError);
    expect((error as RouterConfigError).issues).toEqual([
      {
        path: 'models.anthropic:claude-sonnet-4-6',
        message: 'unknown field "alias"; did you mean "aliases"?',
      },
    ]);
  });

  it('routing.yaml names the field it was meant to be', async () => {
    const error = await refused({
      models: MODELS,
      routing: `
global_default: sonnet
rules:
  - name: quick
    when: { max_estimated_token: 200 }
    use: sonnet
`,
    });
    expect(error).toBeInstanceOf(RouterConfigError);
    expect((error as RouterConfigError).issues).toEqual([
      {
        path: 'rules[0].when',
        message: 'unknown field "max_estimated_token"; did you mean "max_estimated_tokens"?',
      },
    ]);
  });

  it('an adapter option names the option it was meant to be, under adapters.<key>.options', async () => {
    const error = await refused({
      models: `
adapters:
  anthropic: { type: anthropic, api_key: sk-ant-unknown-names-0000, options: { prompt_cachng: false } }
models:
  anthropic:claude-sonnet-4-6: { adapter: anthropic, wire_name: claude-sonnet-4-6 }
`,
    });
    expect(error).toBeInstanceOf(RouterConfigError);
    expect((error as RouterConfigError).issues).toEqual([
      {
        path: 'adapters.anthropic.options',
        message: 'unknown option "prompt_cachng"; did you mean "prompt_caching"?',
      },
    ]);
  });
});

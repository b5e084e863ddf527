import { type LoopbackServer, startLoopbackServer } from '@yourtool/conformance';
import {
  AdapterOptionError,
  createMessage,
  InvalidRequestError,
  newRequestId,
  newSessionId,
} from '@yourtool/core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { OpenRouterAdapter, OpenRouterConfigOptionsSchema } from '../src/index.js';

/**
 * OpenRouter's options are a schema checked once at construction (`options`, snake_case: an
 * unknown key or a wrong type is an `AdapterOptionError` naming `options.<field>`) and per call
 * (`providerOptions.openrouter`: an `InvalidRequestError` naming the field, nothing sent).
 */

const KEY = 'sk-or-v1-options-0000000000000000';
let server: LoopbackServer;
beforeAll(async () => {
  server = await startLoopbackServer();
});
afterAll(() => server.close());
beforeEach(() => server.reset());

const session_id = newSessionId();
const ask = () => ({
  request_id: newRequestId(),
  model: 'openrouter:deepseek/deepseek-v3',
  max_output_tokens: 100,
  messages: [createMessage({ session_id, role: 'user', content: [{ type: 'text', text: 'hi' }] })],
});
const REPLY = {
  type: 'json' as const,
  body: {
    id: 'gen-options',
    object: 'chat.completion',
    created: 1,
    model: 'deepseek/deepseek-v3',
    choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: 'ok' } }],
    usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 },
  },
};

/** [path at fault, options, text of the reason]. */
const INVALID: Array<[string, Record<string, unknown>, string]> = [
  ['options.app_url', { app_url: 5 }, 'expected string'],
  ['options.app_title', { app_title: true }, 'expected string'],
  ['options.reasoning', { reasoning: 'high' }, 'expected object'],
  ['options.reasoning.effort', { reasoning: { effort: 'extreme' } }, '"high"'],
  ['options.reasoning.max_tokens', { reasoning: { max_tokens: 'many' } }, 'expected number'],
  ['options.reasoning.max_tokens', { reasoning: { max_tokens: -1 } }, '>0'],
  ['options.reasoning.exclude', { reasoning: { exclude: 'yes' } }, 'expected boolean'],
  ['options.reasoning.enabled', { reasoning: { enabled: 1 } }, 'expected boolean'],
  ['options.reasoning', { reasoning: { budget: 1024 } }, 'unknown option "budget"'],
  ['options.provider', { provider: 'DeepSeek' }, 'expected record'],
];

describe('OpenRouter config options', () => {
  it.each(INVALID)('%s: %j is an AdapterOptionError naming it', (path, options, reason) => {
    let thrown: unknown;
    try {
      new OpenRouterAdapter({ options });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(AdapterOptionError);
    const error = thrown as AdapterOptionError;
    expect(error.adapter).toBe('openrouter');
    expect(error.path).toBe(path);
    expect(error.reason).toContain(reason);
  });

  it('takes every option with a right value', async () => {
    const options = {
      app_url: 'https://example.test',
      app_title: 'Example',
      reasoning: { effort: 'low', max_tokens: 512, exclude: false, enabled: true },
      provider: { order: ['DeepSeek'], allow_fallbacks: false },
    };
    expect(OpenRouterConfigOptionsSchema.parse(options)).toEqual(options);
    const adapter = new OpenRouterAdapter({ api_key: KEY, base_url: server.url, options });
    server.enqueue(REPLY);
    await adapter.complete(ask());
    const sent = server.requests[0]!;
    expect(sent.headers['http-referer']).toBe('https://example.test');
    expect(sent.headers['x-title']).toBe('Example');
    expect(sent.body).toMatchObject({ reasoning: options.reasoning, provider: options.provider });
  });

  it('extra_headers win over the attribution options', async () => {
    const adapter = new OpenRouterAdapter({
      api_key: KEY,
      base_url: server.url,
      extra_headers: { 'X-Title': 'From headers' },
      options: { app_title: 'From options' },
    });
    server.enqueue(REPLY);
    await adapter.complete(ask());
    expect(server.requests[0]?.headers['x-title']).toBe('From headers');
  });
});

describe('OpenRouter per-call options (providerOptions.openrouter)', () => {
  it('each replaces the configured default', async () => {
    const adapter = new OpenRouterAdapter({
      api_key: KEY,
      base_url: server.url,
      options: { reasoning: { effort: 'low' }, provider: { order: ['A'] } },
    });
    server.enqueue(REPLY);
    await adapter.complete(ask(), {
      providerOptions: {
        openrouter: { reasoning: { max_tokens: 1024 }, provider: { order: ['B'] } },
      },
    });
    expect(server.requests[0]?.body).toMatchObject({
      reasoning: { max_tokens: 1024 },
      provider: { order: ['B'] },
    });
  });

  it.each([
    ['providerOptions.openrouter.reasoning.effort', { reasoning: { effort: 'extreme' } }],
    ['providerOptions.openrouter.reasoning', { reasoning: 'high' }],
    ['providerOptions.openrouter.provider', { provider: ['DeepSeek'] }],
    ['providerOptions.openrouter', { route: 'fallback' }],
  ])('%s: %j is an InvalidRequestError naming it, nothing sent', async (path, options) => {
    const adapter = new OpenRouterAdapter({ api_key: KEY, base_url: server.url });
    const error = await adapter
      .complete(ask(), { providerOptions: { openrouter: options } })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidRequestError);
    expect((error as Error).message).toContain(`${path}:`);
    expect(server.requests).toHaveLength(0);
  });
});

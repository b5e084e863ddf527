/**
 * The adapter's options (issue 26): `config.options` (snake_case, as in models.yaml) is checked
 * once, at construction, against a strict schema: an unknown key or a wrong type is an
 * `AdapterOptionError` naming the field. `providerOptions.anthropic` (camelCase) is checked on
 * every call: a bad one fails the call with `InvalidRequestError` naming it, before any request.
 */
import { fileURLToPath } from 'node:url';
import {
  type LoopbackServer,
  loadFixtureDirectory,
  startLoopbackServer,
} from '@yourtool/conformance';
import {
  AdapterOptionError,
  type CallOptions,
  createMessage,
  InvalidRequestError,
  newRequestId,
} from '@yourtool/core';
import { collectStream } from '@yourtool/core/adapter';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AnthropicAdapter, type AnthropicConfigOptions } from '../src/index.js';

const fixtures = loadFixtureDirectory(fileURLToPath(new URL('./fixtures', import.meta.url)));
const KEY = 'sk-ant-api03-optionsTestKey000000000000000000000000000000000000-AA';

let server: LoopbackServer;
beforeAll(async () => {
  server = await startLoopbackServer();
});
afterAll(() => server.close());
beforeEach(() => server.reset());

const adapter = (options: unknown = {}) =>
  new AnthropicAdapter({
    api_key: KEY,
    base_url: server.url,
    max_retries: 0,
    options: options as Record<string, unknown>,
  });

const ask = () => ({
  request_id: newRequestId(),
  model: 'anthropic:claude-sonnet-4-6',
  max_output_tokens: 4096,
  system_prompt: 'Be brief.',
  messages: [
    createMessage({
      session_id: 'sess_opts',
      role: 'user',
      content: [{ type: 'text', text: 'hi' }],
    }),
  ],
});

/** What constructing the adapter with `options` threw. */
function refused(options: unknown): AdapterOptionError {
  const thrown = (() => {
    try {
      adapter(options);
    } catch (error) {
      return error;
    }
    return undefined;
  })();
  expect(thrown).toBeInstanceOf(AdapterOptionError);
  return thrown as AdapterOptionError;
}

describe('config options: checked once, at construction', () => {
  // [field, a wrong value, text the reason holds]
  const WRONG: Array<[string, unknown, string]> = [
    ['prompt_caching', 'no', 'expected boolean'],
    ['prompt_caching', 1, 'expected boolean'],
    ['anthropic_version', 20230601, 'expected string'],
    ['anthropic_version', '', '>=1 characters'],
    ['thinking', 'on', 'expected "adaptive", "off"'],
    ['thinking', true, 'expected "adaptive", "off"'],
    ['thinking', { budget_tokens: '2048' }, 'expected "adaptive", "off"'],
    ['thinking', { type: 'enabled' }, 'expected "adaptive", "off"'],
    ['thinking', { budget_tokens: 1.5 }, 'expected "adaptive", "off"'],
  ];

  it.each(WRONG)('%s: %j is an AdapterOptionError naming the field', (field, value, reason) => {
    const error = refused({ [field]: value });
    expect(error.code).toBe('invalid_adapter_option');
    expect(error.adapter).toBe('anthropic');
    expect(error.path).toBe(`options.${field}`);
    expect(error.reason).toContain(reason);
    expect(error.message).toContain(`options.${field}`);
  });

  it('options that are not an object are refused', () => {
    expect(() => adapter('thinking')).toThrow();
  });

  it('every valid option is taken', () => {
    const options: AnthropicConfigOptions[] = [
      {},
      { prompt_caching: false },
      { anthropic_version: '2023-06-01' },
      { thinking: 'adaptive' },
      { thinking: 'off' },
      { thinking: { type: 'adaptive' } },
      { thinking: { type: 'enabled', budget_tokens: 2048 } },
      { thinking: { budget_tokens: 2048 } },
    ];
    for (const o of options) expect(() => adapter(o)).not.toThrow();
  });

  it('prompt_caching: false sends no cache breakpoints; anthropic_version is the header', async () => {
    const a = adapter({ prompt_caching: false, anthropic_version: '2023-06-01' });
    server.enqueue(...(fixtures.text ?? []));
    await a.complete(ask());
    const request = server.requests[0];
    expect(request?.headers['anthropic-version']).toBe('2023-06-01');
    expect(JSON.stringify(request?.body)).not.toContain('cache_control');
  });

  it('thinking is the default of every call', async () => {
    const a = adapter({ thinking: { budget_tokens: 2048 } });
    server.enqueue(...(fixtures.text ?? []));
    await a.complete({ ...ask(), model: 'anthropic:claude-sonnet-4-5' });
    expect(server.requests[0]?.body).toMatchObject({
      thinking: { type: 'enabled', budget_tokens: 2048 },
    });
  });
});

describe('per-call options: providerOptions.anthropic, camelCase, checked on every call', () => {
  // [field, a wrong value, text the message holds]
  const WRONG: Array<[string, unknown, string]> = [
    ['promptCaching', 'no', 'expected boolean'],
    ['thinking', 'on', 'expected "adaptive", "off"'],
    ['thinking', { budget_tokens: -1 }, 'thinking.budget_tokens: Too small'],
  ];

  it.each(WRONG)(
    '%s: %j fails the call naming the field, nothing sent',
    async (field, value, text) => {
      const options = { providerOptions: { anthropic: { [field]: value } } } as CallOptions;
      const error = await adapter()
        .complete(ask(), options)
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(InvalidRequestError);
      expect((error as Error).message).toContain(`providerOptions.anthropic.${field}`);
      expect((error as Error).message).toContain(text);
      const streamed = await collectStream(adapter().stream({ ...ask(), stream: true }, options));
      expect(streamed.error).toBeInstanceOf(InvalidRequestError);
      expect(server.requests).toHaveLength(0);
    },
  );

  it("a call's option wins over the configured one", async () => {
    const a = adapter({ prompt_caching: true });
    server.enqueue(...(fixtures.text ?? []));
    await a.complete(ask(), { providerOptions: { anthropic: { promptCaching: false } } });
    expect(JSON.stringify(server.requests[0]?.body)).not.toContain('cache_control');
    server.enqueue(...(fixtures.text ?? []));
    await a.complete(ask());
    expect(JSON.stringify(server.requests[1]?.body)).toContain('cache_control');
  });
});

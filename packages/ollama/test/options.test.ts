/**
 * The adapter's options (issue 26): `config.options` (snake_case, as in models.yaml) is checked
 * once, at construction, against a strict schema: an unknown key, a wrong type or a value out
 * of range is an `AdapterOptionError` naming the field. `providerOptions.ollama` (camelCase,
 * `keep_alive` still taken as the deprecated spelling of `keepAlive`) is checked on every call:
 * a bad one fails the call with `InvalidRequestError` naming it, before any request.
 */
import { type LoopbackServer, startLoopbackServer } from '@yourtool/conformance';
import {
  AdapterOptionError,
  type CallOptions,
  createMessage,
  InvalidRequestError,
  newRequestId,
} from '@yourtool/core';
import { collectStream } from '@yourtool/core/adapter';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { OllamaAdapter, type OllamaConfigOptions } from '../src/index.js';

let server: LoopbackServer;
beforeAll(async () => {
  server = await startLoopbackServer();
});
afterAll(() => server.close());
beforeEach(() => server.reset());

const adapter = (options: unknown = {}) =>
  new OllamaAdapter({
    base_url: server.url,
    max_retries: 0,
    options: { detect_capabilities: false, ...(options as Record<string, unknown>) },
  });

const ask = () => ({
  request_id: newRequestId(),
  model: 'ollama:qwen3:8b',
  max_output_tokens: 256,
  messages: [
    createMessage({
      session_id: 'sess_opts',
      role: 'user',
      content: [{ type: 'text', text: 'hi' }],
    }),
  ],
});

const reply = () => ({
  type: 'json' as const,
  body: {
    model: 'qwen3:8b',
    created_at: '2026-05-14T09:30:10.5Z',
    message: { role: 'assistant', content: 'Hi.' },
    done: true,
    done_reason: 'stop',
    prompt_eval_count: 20,
    eval_count: 3,
  },
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
    ['num_ctx', '4096', 'expected number'],
    ['num_ctx', 0, 'Too small'],
    ['num_ctx', 1.5, 'expected int'],
    ['think', 'yes', 'expected true, false, "low", "medium" or "high"'],
    ['think', 1, 'expected true, false, "low", "medium" or "high"'],
    ['keep_alive', true, 'expected a duration such as "5m", or a number of seconds'],
    ['keep_alive', '', '>=1 character'],
    ['truncate', 'no', 'expected boolean'],
    ['shift', 1, 'expected boolean'],
    ['model_options', 'top_p=0.9', 'expected record'],
    ['model_options', [1], 'expected record'],
    ['detect_capabilities', 'false', 'expected boolean'],
    ['token_estimate_factor', '1.2', 'expected number'],
    ['token_estimate_factor', 9, 'Too big'],
    ['token_estimate_factor', 0.5, 'Too small'],
    ['default_model', 42, 'expected string'],
    ['default_model', 'llama3.2', 'expected "provider:name"'],
  ];

  it.each(WRONG)('%s: %j is an AdapterOptionError naming the field', (field, value, reason) => {
    const error = refused({ [field]: value });
    expect(error.code).toBe('invalid_adapter_option');
    expect(error.adapter).toBe('ollama');
    expect(error.path).toBe(`options.${field}`);
    expect(error.reason).toContain(reason);
    expect(error.message).toContain(`options.${field}`);
  });

  it('every valid option is taken', () => {
    const options: OllamaConfigOptions[] = [
      {},
      { num_ctx: 8192 },
      { think: true },
      { think: 'high' },
      { keep_alive: '5m' },
      { keep_alive: -1 },
      { truncate: true, shift: true },
      { model_options: { top_p: 0.9, seed: 1 } },
      { detect_capabilities: true },
      { token_estimate_factor: 1 },
      { token_estimate_factor: 4 },
      { default_model: 'ollama:qwen3:8b' },
    ];
    for (const o of options) expect(() => adapter(o)).not.toThrow();
  });

  it('the parsed options take effect', async () => {
    const a = adapter({
      num_ctx: 8192,
      keep_alive: '5m',
      truncate: true,
      model_options: { seed: 7 },
      default_model: 'ollama:qwen3:8b',
    });
    expect(a.capabilities.max_context_tokens).toBe(8192);
    expect(a.capabilitiesDetected('ollama:qwen3:8b')).toBe(true);
    server.enqueue(reply());
    await a.complete(ask());
    expect(server.requests[0]?.body).toMatchObject({
      keep_alive: '5m',
      truncate: true,
      options: { num_ctx: 8192, seed: 7 },
    });
  });
});

describe('per-call options: providerOptions.ollama, camelCase, checked on every call', () => {
  // [field, a wrong value, text the message holds]
  const WRONG: Array<[string, unknown, string]> = [
    ['think', 'max', 'expected true, false'],
    ['keepAlive', true, 'expected a duration'],
    ['keep_alive', {}, 'expected a duration'],
    ['options', 5, 'expected record'],
  ];

  it.each(WRONG)(
    '%s: %j fails the call naming the field, nothing sent',
    async (field, value, text) => {
      const options = { providerOptions: { ollama: { [field]: value } } } as CallOptions;
      const error = await adapter()
        .complete(ask(), options)
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(InvalidRequestError);
      expect((error as Error).message).toContain(`providerOptions.ollama.${field}`);
      expect((error as Error).message).toContain(text);
      const streamed = await collectStream(adapter().stream({ ...ask(), stream: true }, options));
      expect(streamed.error).toBeInstanceOf(InvalidRequestError);
      expect(server.requests).toHaveLength(0);
    },
  );

  it('keepAlive, or its deprecated spelling keep_alive, but not both', async () => {
    const a = adapter({ keep_alive: '1m' });
    server.enqueue(reply(), reply());
    await a.complete(ask(), { providerOptions: { ollama: { keepAlive: 30 } } });
    await a.complete(ask(), { providerOptions: { ollama: { keep_alive: '2m' } } });
    expect(server.requests.map((r) => (r.body as { keep_alive: unknown }).keep_alive)).toEqual([
      30,
      '2m',
    ]);
    const error = await a
      .complete(ask(), { providerOptions: { ollama: { keepAlive: 30, keep_alive: 30 } } })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidRequestError);
    expect((error as Error).message).toContain('providerOptions.ollama.keep_alive');
    expect((error as Error).message).toContain('not both');
    expect(server.requests).toHaveLength(2);
  });
});

/**
 * The adapter's options (issue 26): `config.options` (snake_case, as in models.yaml) is checked
 * once, at construction, against a strict schema: an unknown key or a wrong type is an
 * `AdapterOptionError` naming the field (`vertexai: "false"` no longer switches to Vertex AI).
 * `providerOptions.google` (camelCase) is checked on every call: a bad one fails the call with
 * `InvalidRequestError` naming it, before any request.
 */
import { fileURLToPath } from 'node:url';
import { HarmBlockThreshold, HarmCategory } from '@google/genai';
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
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { GoogleAdapter, type GoogleConfigOptions } from '../src/index.js';

const fixtures = loadFixtureDirectory(fileURLToPath(new URL('./fixtures', import.meta.url)));
const KEY = 'AIzaSyD-optionsTestKey00000000000000000';

let server: LoopbackServer;
beforeAll(async () => {
  server = await startLoopbackServer();
});
afterAll(() => server.close());
beforeEach(() => {
  server.reset();
  for (const name of ['GEMINI_API_KEY', 'GOOGLE_API_KEY', 'GOOGLE_GENAI_USE_VERTEXAI'])
    vi.stubEnv(name, undefined);
});
afterEach(() => {
  vi.unstubAllEnvs();
});

const adapter = (options: unknown = {}, api_key: string | null = KEY) =>
  new GoogleAdapter({
    ...(api_key ? { api_key } : {}),
    base_url: server.url,
    max_retries: 0,
    options: options as Record<string, unknown>,
  });

const ask = () => ({
  request_id: newRequestId(),
  model: 'google:gemini-2.5-flash',
  max_output_tokens: 1024,
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

const SAFETY = [
  {
    category: HarmCategory.HARM_CATEGORY_HATE_SPEECH,
    threshold: HarmBlockThreshold.BLOCK_ONLY_HIGH,
  },
];

describe('config options: checked once, at construction', () => {
  // [field, a wrong value, path of the error, text the reason holds]
  const WRONG: Array<[string, unknown, string, string]> = [
    ['vertexai', 'false', 'options.vertexai', 'expected boolean'],
    ['vertexai', 'true', 'options.vertexai', 'expected boolean'],
    ['vertexai', 0, 'options.vertexai', 'expected boolean'],
    ['project', 42, 'options.project', 'expected string'],
    ['project', '', 'options.project', '>=1 characters'],
    ['location', true, 'options.location', 'expected string'],
    ['api_version', 1, 'options.api_version', 'expected string'],
    ['thinking', 'high', 'options.thinking', 'expected "on", "off"'],
    ['thinking', true, 'options.thinking', 'expected "on", "off"'],
    ['thinking', { level: 'max' }, 'options.thinking', 'or { level } with minimal, low'],
    ['thinking', { budget_tokens: '1024' }, 'options.thinking', 'expected "on", "off"'],
    ['safety_settings', 'BLOCK_NONE', 'options.safety_settings', 'expected array'],
    [
      'safety_settings',
      [{ category: 'HATE', threshold: 'BLOCK_NONE' }],
      'options.safety_settings[0].category',
      'Invalid option',
    ],
    [
      'safety_settings',
      [{ category: 'HARM_CATEGORY_HATE_SPEECH' }],
      'options.safety_settings[0].threshold',
      'Invalid option',
    ],
  ];

  it.each(WRONG)(
    '%s: %j is an AdapterOptionError naming the field',
    (field, value, path, reason) => {
      const error = refused({ [field]: value });
      expect(error.code).toBe('invalid_adapter_option');
      expect(error.adapter).toBe('google');
      expect(error.path).toBe(path);
      expect(error.reason).toContain(reason);
      expect(error.message).toContain(path);
    },
  );

  it('vertexai: "false" is refused rather than switching to Vertex AI', () => {
    const error = refused({ vertexai: 'false' });
    expect(error.message).toBe('google: options.vertexai: expected boolean');
  });

  it('every valid option is taken', () => {
    const options: GoogleConfigOptions[] = [
      {},
      { vertexai: false },
      { vertexai: true, project: 'my-project', location: 'us-central1', api_version: 'v1' },
      { thinking: 'on' },
      { thinking: 'off' },
      { thinking: { budget_tokens: 0 } },
      { thinking: { level: 'minimal' } },
      { safety_settings: SAFETY },
    ];
    for (const o of options) expect(() => adapter(o)).not.toThrow();
  });

  it('vertexai: false is the Gemini API (a key is needed); true is Vertex AI', () => {
    expect(adapter({ vertexai: false }, null).setupProblem()).toContain('no API key');
    expect(adapter({ vertexai: true }, null).setupProblem()).toBeNull();
  });

  it('thinking and safety_settings are the defaults of every call', async () => {
    const a = adapter({ thinking: { budget_tokens: 2048 }, safety_settings: SAFETY });
    server.enqueue(...(fixtures.text ?? []));
    await a.complete(ask());
    expect(server.requests[0]?.body).toMatchObject({
      safetySettings: SAFETY,
      generationConfig: { thinkingConfig: { thinkingBudget: 2048 } },
    });
  });
});

describe('per-call options: providerOptions.google, camelCase, checked on every call', () => {
  // [field, a wrong value, text the message holds]
  const WRONG: Array<[string, unknown, string]> = [
    ['thinking', 'high', 'expected "on", "off"'],
    ['thinking', { level: 'max' }, 'or { level } with minimal, low'],
    ['safetySettings', { category: 'HARM_CATEGORY_HATE_SPEECH' }, 'expected array'],
  ];

  it.each(WRONG)(
    '%s: %j fails the call naming the field, nothing sent',
    async (field, value, text) => {
      const options = { providerOptions: { google: { [field]: value } } } as CallOptions;
      const error = await adapter()
        .complete(ask(), options)
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(InvalidRequestError);
      expect((error as Error).message).toContain(`providerOptions.google.${field}`);
      expect((error as Error).message).toContain(text);
      const streamed = await collectStream(adapter().stream({ ...ask(), stream: true }, options));
      expect(streamed.error).toBeInstanceOf(InvalidRequestError);
      expect(server.requests).toHaveLength(0);
    },
  );

  it("a call's option wins over the configured one", async () => {
    const a = adapter({ thinking: { budget_tokens: 2048 } });
    server.enqueue(...(fixtures.text ?? []));
    await a.complete(ask(), { providerOptions: { google: { thinking: { budget_tokens: 512 } } } });
    expect(server.requests[0]?.body).toMatchObject({
      generationConfig: { thinkingConfig: { thinkingBudget: 512 } },
    });
  });
});

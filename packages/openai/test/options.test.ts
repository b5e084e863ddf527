import { fileURLToPath } from 'node:url';
import {
  type LoopbackServer,
  loadFixtureDirectory,
  startLoopbackServer,
} from '@yourtool/conformance';
import {
  AdapterOptionError,
  createMessage,
  InvalidRequestError,
  newRequestId,
  newSessionId,
} from '@yourtool/core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  OpenAIAdapter,
  OpenAIChatCompletionsAdapter,
  OpenAIConfigOptionsSchema,
  OpenAIResponsesAdapter,
} from '../src/index.js';

/**
 * The OpenAI adapter's options are a schema checked once at construction (`options`, snake_case,
 * as in models.yaml: an unknown key or a wrong type or value is an `AdapterOptionError` naming
 * `options.<field>`) and per call (`providerOptions.openai`, camelCase: an `InvalidRequestError`
 * naming `providerOptions.openai.<field>`, before anything is sent).
 */

const chatFixtures = loadFixtureDirectory(fileURLToPath(new URL('./fixtures', import.meta.url)));
const responsesFixtures = loadFixtureDirectory(
  fileURLToPath(new URL('./fixtures-responses', import.meta.url)),
);
const KEY = 'sk-test-options-000000000000';
let server: LoopbackServer;
beforeAll(async () => {
  server = await startLoopbackServer();
});
afterAll(() => server.close());
beforeEach(() => server.reset());

const session_id = newSessionId();
const ask = (model = 'openai:gpt-5') => ({
  request_id: newRequestId(),
  model,
  max_output_tokens: 256,
  messages: [createMessage({ session_id, role: 'user', content: [{ type: 'text', text: 'hi' }] })],
});

const ADAPTERS = [
  ['OpenAIAdapter', (options: Record<string, unknown>) => new OpenAIAdapter({ options })],
  [
    'OpenAIChatCompletionsAdapter',
    (options: Record<string, unknown>) => new OpenAIChatCompletionsAdapter({ options }),
  ],
  [
    'OpenAIResponsesAdapter',
    (options: Record<string, unknown>) => new OpenAIResponsesAdapter({ options }),
  ],
] as const;

/** [field, bad value, text of the reason]: one invalid value of each option, and a wrong type. */
const INVALID: Array<[string, unknown, string]> = [
  ['api', 'bogus', '"chat_completions"'],
  ['api', 5, 'expected'],
  ['reasoning_effort', 'extreme', '"minimal"'],
  ['reasoning_effort', 1, 'expected'],
  ['reasoning_summary', 'verbose', '"concise"'],
  ['reasoning_summary', true, 'expected'],
  ['organization', 42, 'expected string'],
  ['project', ['p'], 'expected string'],
  ['strict_structured_output', 'no', 'expected boolean'],
];

describe('OpenAI config options', () => {
  for (const [label, build] of ADAPTERS) {
    it.each(INVALID)(
      `${label}: options.%s = %j is an AdapterOptionError naming it`,
      (field, value, reason) => {
        let thrown: unknown;
        try {
          build({ [field]: value });
        } catch (error) {
          thrown = error;
        }
        expect(thrown).toBeInstanceOf(AdapterOptionError);
        const error = thrown as AdapterOptionError;
        expect(error.adapter).toBe('openai');
        expect(error.path).toBe(`options.${field}`);
        expect(error.reason).toContain(reason);
        expect(error.message).toContain(`options.${field}`);
      },
    );
  }

  // OpenAIAdapter and OpenAIResponsesAdapter: the config-options-unknown-key scenario; this
  // class runs no conformance suite of its own
  it('OpenAIChatCompletionsAdapter: an unknown option is refused, naming it', () => {
    expect(() => new OpenAIChatCompletionsAdapter({ options: { reasoning_efort: 'low' } })).toThrow(
      /options: unknown option "reasoning_efort"/,
    );
  });

  it('takes every option with a right value', () => {
    const options = {
      api: 'responses',
      reasoning_summary: 'auto',
      organization: 'org-1',
      project: 'proj-1',
      reasoning_effort: 'low',
      strict_structured_output: false,
    };
    expect(OpenAIConfigOptionsSchema.parse(options)).toEqual(options);
    expect(new OpenAIAdapter({ options }).api).toBe('responses');
    expect(new OpenAIAdapter({ options: { ...options, api: 'chat_completions' } }).api).toBe(
      'chat_completions',
    );
    expect(new OpenAIAdapter().api).toBe('chat_completions');
  });

  it('sends organization and project as headers, on both transports', async () => {
    const options = { organization: 'org-options', project: 'proj-options' };
    const chat = new OpenAIAdapter({ api_key: KEY, base_url: server.url, options });
    server.enqueue(...(chatFixtures.text ?? []));
    await chat.complete(ask());
    const responses = new OpenAIAdapter({
      api_key: KEY,
      base_url: server.url,
      options: { ...options, api: 'responses' },
    });
    server.enqueue(...(responsesFixtures.text ?? []));
    await responses.complete(ask());
    expect(server.requests.map((r) => [r.path, r.headers['openai-organization']])).toEqual([
      ['/chat/completions', 'org-options'],
      ['/responses', 'org-options'],
    ]);
    expect(server.requests.map((r) => r.headers['openai-project'])).toEqual([
      'proj-options',
      'proj-options',
    ]);
    await Promise.all([chat.close(), responses.close()]);
  });
});

describe('OpenAI per-call options (providerOptions.openai)', () => {
  const transports = [
    ['chat_completions', chatFixtures],
    ['responses', responsesFixtures],
  ] as const;

  for (const [api, fixtures] of transports) {
    it(`${api}: reasoningEffort and reasoningSummary (camelCase) reach the wire`, async () => {
      const adapter = new OpenAIAdapter({ api_key: KEY, base_url: server.url, options: { api } });
      server.enqueue(...(fixtures.text ?? []));
      await adapter.complete(ask(), {
        providerOptions: { openai: { reasoningEffort: 'high', reasoningSummary: 'concise' } },
      });
      const body = server.requests[0]?.body as Record<string, unknown>;
      if (api === 'responses') {
        expect(body.reasoning).toMatchObject({ effort: 'high', summary: 'concise' });
      } else {
        expect(body.reasoning_effort).toBe('high');
      }
      await adapter.close();
    });

    it(`${api}: the snake_case spelling is still read (deprecated)`, async () => {
      const adapter = new OpenAIAdapter({ api_key: KEY, base_url: server.url, options: { api } });
      server.enqueue(...(fixtures.text ?? []));
      await adapter.complete(ask(), { providerOptions: { openai: { reasoning_effort: 'low' } } });
      const body = server.requests[0]?.body as Record<string, unknown>;
      if (api === 'responses') expect(body.reasoning).toMatchObject({ effort: 'low' });
      else expect(body.reasoning_effort).toBe('low');
      await adapter.close();
    });

    it.each([
      ['reasoningEffort', 'extreme'],
      ['reasoningSummary', 7],
      ['reasoningEfort', 'low'],
    ])(
      `${api}: providerOptions.openai.%s = %j is an InvalidRequestError naming it, nothing sent`,
      async (field, value) => {
        const adapter = new OpenAIAdapter({ api_key: KEY, base_url: server.url, options: { api } });
        const error = await adapter
          .complete(ask(), { providerOptions: { openai: { [field]: value } } })
          .catch((e: unknown) => e);
        expect(error).toBeInstanceOf(InvalidRequestError);
        expect((error as Error).message).toContain(
          field === 'reasoningEfort' ? 'providerOptions.openai' : `providerOptions.openai.${field}`,
        );
        expect(server.requests).toHaveLength(0);
        await adapter.close();
      },
    );
  }
});

import { type LoopbackServer, startLoopbackServer } from '@yourtool/conformance';
import { type AdapterConfigInput, AuthError, createMessage, newRequestId } from '@yourtool/core';
import { collectStream } from '@yourtool/core/adapter';
import { type AdapterFactory, ModelRegistry } from '@yourtool/router';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { GoogleAdapter } from '../src/index.js';

/**
 * `setupProblem()` (issue 24 item 6): a Gemini adapter with no API key and no Vertex AI says
 * why before routing, so the registry keeps its models from being routed to; the adapter is
 * still created (capabilities answer), and a call made anyway fails `auth` without a request.
 */

const CREDENTIAL_VARIABLES = ['GEMINI_API_KEY', 'GOOGLE_API_KEY', 'GOOGLE_GENAI_USE_VERTEXAI'];
const KEY = 'AIzaSyD-setupTestKey0000000000000000000';

let server: LoopbackServer;
beforeAll(async () => {
  server = await startLoopbackServer();
});
afterAll(() => server.close());
beforeEach(() => {
  server.reset();
  for (const name of CREDENTIAL_VARIABLES) vi.stubEnv(name, undefined);
});
afterEach(() => {
  vi.unstubAllEnvs();
});

const adapter = (config: AdapterConfigInput = {}) =>
  new GoogleAdapter({ base_url: server.url, max_retries: 0, ...config });

const ask = () => ({
  request_id: newRequestId(),
  model: 'google:gemini-2.5-flash',
  max_output_tokens: 64,
  messages: [
    createMessage({
      session_id: 'sess_setup',
      role: 'user',
      content: [{ type: 'text', text: 'hi' }],
    }),
  ],
});

describe('GoogleAdapter.setupProblem', () => {
  it('no key and no Vertex AI: created anyway, with a reason naming where a key is looked for', () => {
    const a = adapter();
    expect(a.capabilitiesFor('google:gemini-2.5-flash').supports_tools).toBe(true);
    const problem = a.setupProblem();
    expect(problem).toContain('api_key');
    expect(problem).toContain('GEMINI_API_KEY');
    expect(problem).toContain('GOOGLE_API_KEY');
    expect(problem).toContain('options.vertexai');
  });

  it('a key in the config or either variable: null; a blank variable does not count', () => {
    expect(adapter({ api_key: KEY }).setupProblem()).toBeNull();
    vi.stubEnv('GEMINI_API_KEY', '  ');
    expect(adapter().setupProblem()).not.toBeNull();
    vi.stubEnv('GOOGLE_API_KEY', KEY);
    expect(adapter().setupProblem()).toBeNull();
    vi.stubEnv('GOOGLE_API_KEY', undefined);
    vi.stubEnv('GEMINI_API_KEY', KEY);
    expect(adapter().setupProblem()).toBeNull();
  });

  it('Vertex AI needs no key here (Application Default Credentials): the option or the SDK variable', () => {
    expect(
      adapter({
        options: { vertexai: true, project: 'my-project', location: 'us-central1' },
      }).setupProblem(),
    ).toBeNull();
    vi.stubEnv('GOOGLE_GENAI_USE_VERTEXAI', 'true');
    expect(adapter().setupProblem()).toBeNull();
    expect(adapter({ options: { vertexai: false } }).setupProblem()).not.toBeNull();
  });

  it('a call made without a key fails auth at once, without a request', async () => {
    const a = adapter();
    const error = await a.complete(ask()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AuthError);
    expect((error as AuthError).message).toContain('GEMINI_API_KEY');
    const streamed = await collectStream(a.stream({ ...ask(), stream: true }));
    expect(streamed.error).toBeInstanceOf(AuthError);
    expect(server.requests).toHaveLength(0);
  });

  it('the registry marks the model not_configured with the reason, and ready once a key is set', () => {
    const yaml = `adapters:
  google:
    type: google
models:
  google:gemini-2.5-flash:
    adapter: google
    wire_name: gemini-2.5-flash
`;
    const factories: Record<string, AdapterFactory> = {
      google: (config, runtime) => new GoogleAdapter(config, runtime),
    };
    const [model] = ModelRegistry.fromYaml(yaml, { factories, env: {} }).models();
    expect(model?.status).toBe('not_configured');
    expect(model?.not_configured_reason).toBe(adapter().setupProblem());
    vi.stubEnv('GEMINI_API_KEY', KEY);
    const [ready] = ModelRegistry.fromYaml(yaml, { factories, env: {} }).models();
    expect(ready?.status).toBe('ready');
  });
});

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type LoopbackServer, startLoopbackServer } from '@yourtool/conformance';
import { type AdapterConfigInput, AuthError, createMessage, newRequestId } from '@yourtool/core';
import { collectStream } from '@yourtool/core/adapter';
import { type AdapterFactory, ModelRegistry } from '@yourtool/router';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { AnthropicAdapter } from '../src/index.js';

/**
 * `setupProblem()` (issue 24 item 6): an adapter with no credential anywhere says why before
 * routing, so the registry keeps its models from being routed to; a call made anyway fails
 * `auth` without reaching the network.
 */

/** Every variable the adapter or the SDK's credential chain reads a credential from. */
const CREDENTIAL_VARIABLES = [
  'ANTHROPIC_API_KEY',
  'ANTHROPIC_AUTH_TOKEN',
  'ANTHROPIC_CUSTOM_HEADERS',
  'ANTHROPIC_PROFILE',
  'ANTHROPIC_FEDERATION_RULE_ID',
  'ANTHROPIC_ORGANIZATION_ID',
];
const KEY = 'sk-ant-api03-setupTestKey00000000000000000000000000000000000000-AA';

let server: LoopbackServer;
let configDir: string;
beforeAll(async () => {
  server = await startLoopbackServer();
});
afterAll(() => server.close());
beforeEach(() => {
  server.reset();
  for (const name of CREDENTIAL_VARIABLES) vi.stubEnv(name, undefined);
  // an empty config directory: no credential profile on the machine running the tests counts
  configDir = mkdtempSync(join(tmpdir(), 'anthropic-config-'));
  vi.stubEnv('ANTHROPIC_CONFIG_DIR', configDir);
});
afterEach(() => {
  vi.unstubAllEnvs();
  rmSync(configDir, { recursive: true, force: true });
});

const adapter = (config: AdapterConfigInput = {}) =>
  new AnthropicAdapter({ base_url: server.url, max_retries: 0, ...config });

const ask = () => ({
  request_id: newRequestId(),
  model: 'anthropic:claude-sonnet-4-6',
  max_output_tokens: 64,
  messages: [
    createMessage({
      session_id: 'sess_setup',
      role: 'user',
      content: [{ type: 'text', text: 'hi' }],
    }),
  ],
});

describe('AnthropicAdapter.setupProblem', () => {
  it('no key anywhere: a reason naming where a key is looked for', () => {
    const problem = adapter().setupProblem();
    expect(problem).toContain('api_key');
    expect(problem).toContain('ANTHROPIC_API_KEY');
    expect(problem).toContain('ANTHROPIC_AUTH_TOKEN');
  });

  it('a key in the config, the API key or auth token variable, or a credential header: null', () => {
    expect(adapter({ api_key: KEY }).setupProblem()).toBeNull();
    expect(adapter({ extra_headers: { 'X-Api-Key': KEY } }).setupProblem()).toBeNull();
    vi.stubEnv('ANTHROPIC_API_KEY', KEY);
    expect(adapter().setupProblem()).toBeNull();
    vi.stubEnv('ANTHROPIC_API_KEY', undefined);
    vi.stubEnv('ANTHROPIC_AUTH_TOKEN', KEY);
    expect(adapter().setupProblem()).toBeNull();
  });

  it("the SDK's default credential chain counts: a profile config file, or federation variables", () => {
    mkdirSync(join(configDir, 'configs'));
    writeFileSync(join(configDir, 'configs', 'default.json'), '{"authentication":{}}');
    expect(adapter().setupProblem()).toBeNull();
    rmSync(join(configDir, 'configs'), { recursive: true });
    expect(adapter().setupProblem()).not.toBeNull();
    vi.stubEnv('ANTHROPIC_FEDERATION_RULE_ID', 'fdrl_0000');
    vi.stubEnv('ANTHROPIC_ORGANIZATION_ID', '00000000-0000-4000-8000-000000000000');
    expect(adapter().setupProblem()).toBeNull();
  });

  it('a call made without a key fails auth at once, without a request; capabilities still answer', async () => {
    const a = adapter();
    expect(a.capabilitiesFor('anthropic:claude-sonnet-4-6').supports_tools).toBe(true);
    const error = await a.complete(ask()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AuthError);
    expect((error as AuthError).message).toContain('ANTHROPIC_API_KEY');
    const streamed = await collectStream(a.stream({ ...ask(), stream: true }));
    expect(streamed.error).toBeInstanceOf(AuthError);
    expect(server.requests).toHaveLength(0);
  });

  it('the registry marks the model not_configured with the reason, and ready once a key is set', () => {
    const yaml = `adapters:
  anthropic:
    type: anthropic
models:
  anthropic:claude-sonnet-4-6:
    adapter: anthropic
    wire_name: claude-sonnet-4-6
`;
    const factories: Record<string, AdapterFactory> = {
      anthropic: (config, runtime) => new AnthropicAdapter(config, runtime),
    };
    const [model] = ModelRegistry.fromYaml(yaml, { factories, env: {} }).models();
    expect(model?.status).toBe('not_configured');
    expect(model?.not_configured_reason).toBe(adapter().setupProblem());
    vi.stubEnv('ANTHROPIC_API_KEY', KEY);
    const [ready] = ModelRegistry.fromYaml(yaml, { factories, env: {} }).models();
    expect(ready?.status).toBe('ready');
    expect(ready?.not_configured_reason).toBeNull();
  });
});

import { type LoopbackServer, startLoopbackServer } from '@yourtool/conformance';
import {
  type AdapterError,
  type CanonicalRequestInput,
  createMemoryLogger,
  InvalidRequestError,
  type MemoryLogger,
  type Message,
  newRequestId,
} from '@yourtool/core';
// The registry as models.yaml builds it (a relative import: the router is not a dependency).
import { ModelRegistry } from '@yourtool/router';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { assistant, readFile, text, user } from '../../openai/test/helpers.js';
import { OpenRouterAdapter } from '../src/index.js';

/**
 * Issue 24 through the real SDK on the loopback server: a history left empty by the encoder (the
 * Chat Completions codec's guard) and the setup problem of an adapter without a key (item 6).
 * Tool names outside the rule (item 5) are the conformance scenarios `tool-name-derived` and
 * `tool-name-derived-stream`, which every adapter runs.
 */

const CLAUDE = 'openrouter:anthropic/claude-sonnet-4.6';
const KEY = 'sk-or-v1-setupproblem-SECRET-000000000000';

let server: LoopbackServer;
let logger: MemoryLogger;
beforeAll(async () => {
  server = await startLoopbackServer();
});
afterAll(() => server.close());

beforeEach(() => {
  server.reset();
  logger = createMemoryLogger();
});
afterEach(() => {
  vi.unstubAllEnvs();
});

const adapter = () =>
  new OpenRouterAdapter({ api_key: 'sk-or-test-0000', base_url: server.url }, { logger });

const ask = (messages: Message[], stream = false): CanonicalRequestInput => ({
  request_id: newRequestId(),
  model: CLAUDE,
  max_output_tokens: 256,
  messages,
  tools: [readFile],
  stream,
});

describe('OpenRouter: a history the encoder leaves empty', () => {
  it('a blank user message and a reasoning-only turn are refused, nothing sent', async () => {
    const error = await adapter()
      .complete(
        ask([
          user(text(' ')),
          assistant([{ type: 'thinking', text: 'Only reasoning.', signature: 'sig-1' }], CLAUDE),
        ]),
      )
      .then(
        () => null,
        (e: unknown) => e as AdapterError,
      );
    expect(server.requests, 'messages: [] must never reach the API').toHaveLength(0);
    expect(error).toBeInstanceOf(InvalidRequestError);
    expect(error?.message).toMatch(
      /^nothing to send to openrouter:anthropic\/claude-sonnet-4\.6: /,
    );
    expect(error?.retryable).toBe(false);
  });
});

describe('OpenRouterAdapter.setupProblem', () => {
  it('names api_key and OPENROUTER_API_KEY when neither holds a key', () => {
    vi.stubEnv('OPENROUTER_API_KEY', undefined);
    const problem = new OpenRouterAdapter().setupProblem();
    expect(problem).toContain('api_key');
    expect(problem).toContain('OPENROUTER_API_KEY');
  });

  it('is null with a key in the config or the environment', () => {
    vi.stubEnv('OPENROUTER_API_KEY', undefined);
    expect(new OpenRouterAdapter({ api_key: KEY }).setupProblem()).toBeNull();
    vi.stubEnv('OPENROUTER_API_KEY', KEY);
    expect(new OpenRouterAdapter().setupProblem()).toBeNull();
  });

  it('makes a models.yaml entry not_configured with that reason when no key is set', () => {
    const yaml = `
adapters:
  openrouter: { type: openrouter }
models:
  openrouter:anthropic/claude-sonnet-4.6: { adapter: openrouter, wire_name: anthropic/claude-sonnet-4.6 }
`;
    const registry = () =>
      ModelRegistry.fromYaml(yaml, {
        factories: { openrouter: (config, runtime) => new OpenRouterAdapter(config, runtime) },
        env: {},
      });
    vi.stubEnv('OPENROUTER_API_KEY', undefined);
    const model = registry().get(CLAUDE);
    expect(model.status).toBe('not_configured');
    expect(model.not_configured_reason).toContain('OPENROUTER_API_KEY');
    vi.stubEnv('OPENROUTER_API_KEY', KEY);
    expect(registry().get(CLAUDE).status).toBe('ready');
    expect(JSON.stringify(registry().models())).not.toContain(KEY);
  });
});

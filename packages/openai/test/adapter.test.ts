import { fileURLToPath } from 'node:url';
import {
  type LoopbackServer,
  loadFixtureDirectory,
  startLoopbackServer,
} from '@yourtool/conformance';
import {
  AuthError,
  createMemoryLogger,
  createMessage,
  InvalidRequestError,
  newRequestId,
  newSessionId,
} from '@yourtool/core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { OpenAIAdapter } from '../src/index.js';

const fixtures = loadFixtureDirectory(fileURLToPath(new URL('./fixtures', import.meta.url)));
let server: LoopbackServer;
beforeAll(async () => {
  server = await startLoopbackServer();
});
afterAll(() => server.close());
beforeEach(() => server.reset());

const session_id = newSessionId();
const ask = (model: string, extra: Record<string, unknown> = {}) => ({
  request_id: newRequestId(),
  model,
  max_output_tokens: 256,
  messages: [createMessage({ session_id, role: 'user', content: [{ type: 'text', text: 'hi' }] })],
  ...extra,
});

describe('OpenAIAdapter', () => {
  it('sends extra headers, reasoning_effort for reasoning models, and asks streams for usage', async () => {
    const adapter = new OpenAIAdapter({
      api_key: 'sk-test-0000000000000000',
      base_url: server.url,
      extra_headers: { 'x-team': 'blue' },
      options: { reasoning_effort: 'low' },
    });
    server.enqueue(...(fixtures['text-stream'] ?? []));
    for await (const _ of adapter.stream(ask('openai:gpt-5', { stream: true }))) {
      // drain
    }
    const sent = server.requests[0]!;
    expect(sent.path).toBe('/chat/completions');
    expect(sent.headers['x-team']).toBe('blue');
    expect(sent.headers.authorization).toBe('[REDACTED]');
    expect(sent.body).toMatchObject({
      model: 'gpt-5',
      stream: true,
      stream_options: { include_usage: true },
      reasoning_effort: 'low',
      max_completion_tokens: 256,
    });
  });

  it('leaves reasoning_effort out for a model that does not reason, with a WARN', async () => {
    const logger = createMemoryLogger();
    const adapter = new OpenAIAdapter(
      { api_key: 'sk-test-0000000000000000', base_url: server.url },
      { logger },
    );
    server.enqueue(...(fixtures.text ?? []));
    await adapter.complete(ask('openai:gpt-4.1'), {
      providerOptions: { openai: { reasoning_effort: 'high' } },
    });
    expect(server.requests[0]!.body).not.toHaveProperty('reasoning_effort');
    expect(logger.warnings()[0]?.obj).toMatchObject({
      event: 'parameter_dropped',
      parameter: 'reasoning_effort',
    });
  });

  it('fails with AuthError when there is no API key, and refuses other providers’ models', async () => {
    const saved = process.env.OPENAI_API_KEY;
    delete process.env.OPENAI_API_KEY;
    try {
      const adapter = new OpenAIAdapter({ base_url: server.url, max_retries: 2 });
      await expect(adapter.complete(ask('openai:gpt-5'))).rejects.toBeInstanceOf(AuthError);
      const keyed = new OpenAIAdapter({
        api_key: 'sk-test-0000000000000000',
        base_url: server.url,
      });
      await expect(keyed.complete(ask('anthropic:claude-sonnet-4-6'))).rejects.toBeInstanceOf(
        InvalidRequestError,
      );
      expect(server.requests).toHaveLength(0);
    } finally {
      if (saved !== undefined) process.env.OPENAI_API_KEY = saved;
    }
  });

  it('applies capability overrides by canonical id or wire name', () => {
    const adapter = new OpenAIAdapter(
      { api_key: 'sk-test-0000000000000000' },
      { capabilityOverrides: { 'gpt-4o': { supports_images: false } } },
    );
    expect(adapter.capabilitiesFor('openai:gpt-4o').supports_images).toBe(false);
    expect(adapter.capabilities.max_context_tokens).toBe(400_000);
  });
});

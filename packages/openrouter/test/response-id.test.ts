import { fileURLToPath } from 'node:url';
import {
  type LoopbackServer,
  loadFixtureDirectory,
  startLoopbackServer,
} from '@yourtool/conformance';
import {
  type CanonicalRequestInput,
  createMessage,
  newRequestId,
  newSessionId,
  type StreamEvent,
} from '@yourtool/core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { OpenRouterAdapter } from '../src/index.js';

// The provider's id of a reply is a canonical field, `provider_response_id`, on the response and
// on `message.complete` (decision 0157): nothing but the adapter reads `provider_raw`. Through the
// official SDK on the loopback server, with the recorded text fixtures.

const fixtures = loadFixtureDirectory(fileURLToPath(new URL('./fixtures', import.meta.url)));

let server: LoopbackServer;
beforeAll(async () => {
  server = await startLoopbackServer();
});
afterAll(() => server.close());
beforeEach(() => server.reset());

const request = (stream: boolean): CanonicalRequestInput => ({
  request_id: newRequestId(),
  model: 'openrouter:anthropic/claude-sonnet-4.6',
  messages: [
    createMessage({
      session_id: newSessionId(),
      role: 'user',
      content: [{ type: 'text', text: 'Hello' }],
    }),
  ],
  max_output_tokens: 256,
  stream,
});

describe('provider_response_id', () => {
  it('is the reply id of a complete() call and of a stream’s message.complete', async () => {
    const adapter = new OpenRouterAdapter({
      api_key: 'sk-or-response-id-0000000',
      base_url: server.url,
      max_retries: 0,
    });
    server.enqueue(...(fixtures.text ?? []), ...(fixtures['text-stream'] ?? []));
    const response = await adapter.complete(request(false));
    expect(response.provider_response_id).toBe('gen-1763800000-Conformance0001');
    const events: StreamEvent[] = [];
    for await (const event of adapter.stream(request(true))) events.push(event);
    expect(events.at(-1)).toMatchObject({
      type: 'message.complete',
      provider_response_id: 'gen-1763800000-Conformance0017',
    });
  });
});

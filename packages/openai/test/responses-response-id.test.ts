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
import { OpenAIResponsesAdapter } from '../src/index.js';

// The provider's id of a reply is a canonical field, `provider_response_id`, on the response and
// on `message.complete` (decision 0157): nothing but the adapter reads `provider_raw`. Through the
// official SDK on the loopback server, with the recorded text fixtures.

const fixtures = loadFixtureDirectory(
  fileURLToPath(new URL('./fixtures-responses', import.meta.url)),
);

let server: LoopbackServer;
beforeAll(async () => {
  server = await startLoopbackServer();
});
afterAll(() => server.close());
beforeEach(() => server.reset());

const request = (stream: boolean): CanonicalRequestInput => ({
  request_id: newRequestId(),
  model: 'openai:gpt-5',
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
    const adapter = new OpenAIResponsesAdapter({
      api_key: 'sk-response-id-0000000000',
      base_url: server.url,
      max_retries: 0,
    });
    server.enqueue(...(fixtures.text ?? []), ...(fixtures['text-stream'] ?? []));
    const response = await adapter.complete(request(false));
    expect(response.provider_response_id).toBe(
      'resp_3e055be83e055be93e055bea3e055beb3e055bec3e055bed',
    );
    const events: StreamEvent[] = [];
    for await (const event of adapter.stream(request(true))) events.push(event);
    expect(events.at(-1)).toMatchObject({
      type: 'message.complete',
      provider_response_id: 'resp_40c7c2ad40c7c2ae40c7c2af40c7c2b040c7c2b140c7c2b2',
    });
  });
});

/**
 * The provider's id of a reply is a canonical field, `provider_response_id`, on the response and
 * on `message.complete` (decision 0157): nothing but the adapter reads `provider_raw`. Every
 * adapter package that sets it runs this from its own `test/response-id.test.ts`, through its
 * real SDK against the loopback server, with its recorded `text` and `text-stream` fixtures.
 */

import {
  type LoopbackServer,
  loadFixtureDirectory,
  startLoopbackServer,
} from '@yourtool/conformance';
import type { AdapterConfigInput, ProviderAdapter, StreamEvent } from '@yourtool/core';
import { createMessage, newRequestId, newSessionId } from '@yourtool/core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';

/** What the suite needs of one adapter. */
export interface ResponseIdOptions {
  /** A model id the adapter serves (`provider:name`). */
  model: string;
  /** The folder of recorded fixtures holding `text` and `text-stream`. */
  fixturesDir: string;
  /** The adapter for the loopback server's `base_url`, with `max_retries: 0`. */
  createAdapter(
    config: Pick<AdapterConfigInput, 'api_key' | 'base_url' | 'max_retries'>,
  ): ProviderAdapter;
  /** The reply ids the two fixtures carry, as the provider wrote them. */
  ids: { text: string; textStream: string };
}

/** Registers the test: `provider_response_id` of a complete() call and of a stream. */
export function describeResponseId(options: ResponseIdOptions): void {
  const fixtures = loadFixtureDirectory(options.fixturesDir);
  let server: LoopbackServer;
  beforeAll(async () => {
    server = await startLoopbackServer();
  });
  afterAll(() => server.close());
  beforeEach(() => server.reset());

  const request = (stream: boolean) => ({
    request_id: newRequestId(),
    model: options.model,
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
      const adapter = options.createAdapter({
        api_key: 'response-id-test-key-0000',
        base_url: server.url,
        max_retries: 0,
      });
      server.enqueue(...(fixtures.text ?? []), ...(fixtures['text-stream'] ?? []));
      const response = await adapter.complete(request(false));
      expect(response.provider_response_id).toBe(options.ids.text);
      const events: StreamEvent[] = [];
      for await (const event of adapter.stream(request(true))) events.push(event);
      expect(events.at(-1)).toMatchObject({
        type: 'message.complete',
        provider_response_id: options.ids.textStream,
      });
    });
  });
}

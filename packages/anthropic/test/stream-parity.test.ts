/**
 * Core reads the SSE body itself (decision 0147): every recorded stream must map to exactly what
 * it mapped to when the SDK's own stream parsed it. Each fixture runs through the adapter and
 * through the same adapter whose `open` returns the SDK's parsed stream (the path it replaced).
 */
import { fileURLToPath } from 'node:url';
import Anthropic from '@anthropic-ai/sdk';
import {
  type LoopbackServer,
  loadFixtureDirectory,
  type ScriptedResponse,
  startLoopbackServer,
} from '@yourtool/conformance';
import { createMessage, newRequestId, newSessionId, type ProviderAdapter } from '@yourtool/core';
import { WireAdapter, type WireAttempt } from '@yourtool/core/adapter';
import { recordedSseStreams, streamOutcome } from '@yourtool/testkit/stream-parity';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anthropicParts } from '../src/adapter.js';
import type { AnthropicParams } from '../src/codec/request.js';
import { AnthropicAdapter } from '../src/index.js';
import type { AnthropicChunk } from '../src/transport.js';

const KEY = 'sk-ant-parity-0000000000';
const fixtures = loadFixtureDirectory(fileURLToPath(new URL('./fixtures', import.meta.url)));

let server: LoopbackServer;
beforeAll(async () => {
  server = await startLoopbackServer();
});
afterAll(() => server.close());

const config = () => ({ api_key: KEY, base_url: server.url, max_retries: 0 });

/** The adapter as it was: the SDK's own parsed stream (its transport's `open` replaced). */
function sdkStreamAdapter(): ProviderAdapter {
  const client = new Anthropic({
    apiKey: KEY,
    baseURL: server.url,
    maxRetries: 0,
    logLevel: 'off',
  });
  const open = async (params: AnthropicParams, { signal }: WireAttempt) =>
    (await client.messages.create({ ...params, stream: true }, { signal })) as never;
  return new WireAdapter<AnthropicParams, Anthropic.Message, AnthropicChunk>(
    { name: 'anthropic', label: 'Anthropic' },
    config(),
    {},
    (context) => {
      const parts = anthropicParts(context);
      const { transport } = parts;
      return {
        ...parts,
        transport: {
          send: (params, attempt) => transport.send(params, attempt),
          open,
          toAdapterError: (error, request) => transport.toAdapterError(error, request),
          serverUrl: () => transport.serverUrl?.(),
        },
      };
    },
  );
}

function run(adapter: ProviderAdapter, responses: ScriptedResponse[], request_id: string) {
  server.reset();
  server.enqueue(...responses);
  const session_id = newSessionId();
  return streamOutcome(
    adapter.stream({
      request_id,
      model: 'anthropic:claude-sonnet-4-6',
      max_output_tokens: 256,
      messages: [
        createMessage({ session_id, role: 'user', content: [{ type: 'text', text: 'hi' }] }),
      ],
    }),
  );
}

describe('recorded stream fixtures map as through the SDK', () => {
  for (const [scenario, streams] of recordedSseStreams(fixtures)) {
    it(scenario, async () => {
      const request_id = newRequestId();
      const ours = await run(new AnthropicAdapter(config()), streams, request_id);
      const theirs = await run(sdkStreamAdapter(), streams, request_id);
      expect(ours).toEqual(theirs);
      expect((ours.events as unknown[]).length).toBeGreaterThan(1);
    });
  }
});

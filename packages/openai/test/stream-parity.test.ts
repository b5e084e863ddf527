/**
 * Core reads the SSE body itself (decision 0147): every recorded Chat Completions and Responses
 * stream must map to exactly what it mapped to when the SDK's own stream parsed it. Each fixture
 * runs through the adapter and through the same adapter whose `open` returns the SDK's parsed
 * stream (the path it replaced).
 */
import { fileURLToPath } from 'node:url';
import {
  type LoopbackServer,
  loadFixtureDirectory,
  type ScriptedResponse,
  startLoopbackServer,
} from '@yourtool/conformance';
import { createMessage, newRequestId, newSessionId, type ProviderAdapter } from '@yourtool/core';
import {
  type AdapterContext,
  WireAdapter,
  type WireAttempt,
  type WireParts,
  type WireTransport,
} from '@yourtool/core/adapter';
import { recordedSseStreams, streamOutcome } from '@yourtool/testkit/stream-parity';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withStreamEnd } from '../src/codec/stream.js';
import { OpenAIChatCompletionsAdapter, OpenAIResponsesAdapter } from '../src/index.js';
import type { OpenAIResponsesEncoding } from '../src/responses/request.js';
import {
  type ChatCompletionsEncoding,
  openAIChatCompletionsParts,
  openAIResponsesParts,
} from '../src/wire.js';

const KEY = 'sk-parity-000000000000000000';
const load = (dir: string) => loadFixtureDirectory(fileURLToPath(new URL(dir, import.meta.url)));

let server: LoopbackServer;
beforeAll(async () => {
  server = await startLoopbackServer();
});
afterAll(() => server.close());

const config = () => ({ api_key: KEY, base_url: `${server.url}/v1`, max_retries: 0 });
const client = () => new OpenAI({ apiKey: KEY, baseURL: `${server.url}/v1`, maxRetries: 0 });

/** An adapter of `parts` whose transport's `open` is `open` (the rest is the transport's own). */
function withOpen<E, R, C>(
  config: Record<string, unknown>,
  parts: (context: AdapterContext) => WireParts<E, R, C>,
  open: WireTransport<E, R, C>['open'],
): ProviderAdapter {
  return new WireAdapter<E, R, C>({ name: 'openai' }, config, {}, (context) => {
    const built = parts(context);
    const { transport } = built;
    return {
      ...built,
      transport: {
        send: (encoded, attempt) => transport.send(encoded, attempt),
        open,
        toAdapterError: (error, request) => transport.toAdapterError(error, request),
        serverUrl: () => transport.serverUrl?.(),
      },
    };
  });
}

/** The Chat Completions adapter as it was: the SDK's parsed stream with the end marker. */
function sdkChatAdapter(): ProviderAdapter {
  const sdk = client();
  return withOpen(
    config(),
    openAIChatCompletionsParts,
    async (encoding: ChatCompletionsEncoding, { signal }: WireAttempt) => {
      const stream = await sdk.chat.completions.create(
        {
          ...encoding.params,
          ...encoding.extraBody,
          stream: true as const,
          ...(encoding.includeUsage === false ? {} : { stream_options: { include_usage: true } }),
        },
        { signal },
      );
      return withStreamEnd(stream) as never;
    },
  );
}

/** The Responses adapter as it was: the SDK's parsed stream. */
function sdkResponsesAdapter(): ProviderAdapter {
  const sdk = client();
  return withOpen(
    config(),
    openAIResponsesParts,
    async (encoding: OpenAIResponsesEncoding, { signal }: WireAttempt) => {
      const { params } = encoding as { params: Record<string, unknown> };
      return (await sdk.responses.create({ ...params, stream: true } as never, {
        signal,
      })) as never;
    },
  );
}

type StreamingAdapter = ProviderAdapter;

function run(adapter: StreamingAdapter, responses: ScriptedResponse[], request_id: string) {
  server.reset();
  server.enqueue(...responses);
  const session_id = newSessionId();
  return streamOutcome(
    adapter.stream({
      request_id,
      model: 'openai:gpt-5',
      max_output_tokens: 256,
      messages: [
        createMessage({ session_id, role: 'user', content: [{ type: 'text', text: 'hi' }] }),
      ],
    }),
  );
}

const cases: Array<[string, string, () => StreamingAdapter, () => StreamingAdapter]> = [
  [
    'Chat Completions',
    './fixtures',
    () => new OpenAIChatCompletionsAdapter(config()),
    sdkChatAdapter,
  ],
  [
    'Responses',
    './fixtures-responses',
    () => new OpenAIResponsesAdapter(config()),
    sdkResponsesAdapter,
  ],
];

for (const [api, dir, ours, theirs] of cases) {
  describe(`${api}: recorded stream fixtures map as through the SDK`, () => {
    for (const [scenario, streams] of recordedSseStreams(load(dir))) {
      it(scenario, async () => {
        const request_id = newRequestId();
        const mine = await run(ours(), streams, request_id);
        const sdk = await run(theirs(), streams, request_id);
        expect(mine).toEqual(sdk);
        expect((mine.events as unknown[]).length).toBeGreaterThan(1);
      });
    }
  });
}

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
import { createMessage, newRequestId, newSessionId, type StreamEvent } from '@yourtool/core';
import type { WireAttempt } from '@yourtool/core/adapter';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChatCompletionsEncoding } from '../src/chat-adapter.js';
import { withStreamEnd } from '../src/codec/stream.js';
import { OpenAIResponsesAdapter } from '../src/index.js';
import { OpenAIChatCompletionsAdapter } from '../src/openai-chat-adapter.js';
import type { OpenAIResponsesEncoding } from '../src/responses/request.js';

const KEY = 'sk-parity-000000000000000000';
const load = (dir: string) => loadFixtureDirectory(fileURLToPath(new URL(dir, import.meta.url)));

let server: LoopbackServer;
beforeAll(async () => {
  server = await startLoopbackServer();
});
afterAll(() => server.close());

const config = () => ({ api_key: KEY, base_url: `${server.url}/v1`, max_retries: 0 });
const client = () => new OpenAI({ apiKey: KEY, baseURL: `${server.url}/v1`, maxRetries: 0 });

/** The Chat Completions adapter as it was: the SDK's parsed stream with the end marker. */
function sdkChatAdapter(): OpenAIChatCompletionsAdapter {
  const sdk = client();
  return new (class extends OpenAIChatCompletionsAdapter {
    protected override async open(encoding: ChatCompletionsEncoding, { signal }: WireAttempt) {
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
    }
  })(config());
}

/** The Responses adapter as it was: the SDK's parsed stream. */
function sdkResponsesAdapter(): OpenAIResponsesAdapter {
  const sdk = client();
  return new (class extends OpenAIResponsesAdapter {
    protected override async open(encoding: OpenAIResponsesEncoding, { signal }: WireAttempt) {
      const { params } = encoding as { params: Record<string, unknown> };
      return (await sdk.responses.create({ ...params, stream: true } as never, {
        signal,
      })) as never;
    }
  })(config());
}

/** Latencies and per-call tool ids differ between runs; nothing else may. */
function normalized(events: StreamEvent[]): unknown {
  const ids = new Map<string, string>();
  const text = JSON.stringify(events, (key, value) => (key === 'latency_ms' ? 0 : value));
  return JSON.parse(
    text.replace(/tu_[0-9A-Z]{26}/g, (id) => {
      if (!ids.has(id)) ids.set(id, `tu_${ids.size}`);
      return ids.get(id) as string;
    }),
  );
}

type StreamingAdapter = OpenAIChatCompletionsAdapter | OpenAIResponsesAdapter;

async function run(adapter: StreamingAdapter, responses: ScriptedResponse[], request_id: string) {
  server.reset();
  server.enqueue(...responses);
  const events: StreamEvent[] = [];
  let error: unknown;
  try {
    const session_id = newSessionId();
    const request = {
      request_id,
      model: 'openai:gpt-5',
      max_output_tokens: 256,
      messages: [
        createMessage({ session_id, role: 'user', content: [{ type: 'text', text: 'hi' }] }),
      ],
    };
    for await (const event of adapter.stream(request)) events.push(event);
  } catch (caught) {
    error = caught;
  }
  const e = error as (Error & { error_class?: string; provider_status?: number }) | undefined;
  return {
    events: normalized(events),
    error: e && { class: e.error_class, status: e.provider_status, message: e.message },
  };
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
    for (const [scenario, responses] of Object.entries(load(dir))) {
      const streams = (responses ?? []).filter(
        (r) => r.type === 'stream' && r.ending !== 'stall' && r.contentType === 'text/event-stream',
      );
      if (streams.length === 0) continue;
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

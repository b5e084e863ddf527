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
import { createMessage, newRequestId, newSessionId, type StreamEvent } from '@yourtool/core';
import type { WireAttempt } from '@yourtool/core/adapter';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnthropicParams } from '../src/codec/request.js';
import { AnthropicAdapter } from '../src/index.js';

const KEY = 'sk-ant-parity-0000000000';
const fixtures = loadFixtureDirectory(fileURLToPath(new URL('./fixtures', import.meta.url)));

let server: LoopbackServer;
beforeAll(async () => {
  server = await startLoopbackServer();
});
afterAll(() => server.close());

const config = () => ({ api_key: KEY, base_url: server.url, max_retries: 0 });

/** The adapter as it was: the SDK's own parsed stream. */
function sdkStreamAdapter(): AnthropicAdapter {
  const client = new Anthropic({
    apiKey: KEY,
    baseURL: server.url,
    maxRetries: 0,
    logLevel: 'off',
  });
  return new (class extends AnthropicAdapter {
    protected override async open(params: AnthropicParams, { signal }: WireAttempt) {
      return (await client.messages.create({ ...params, stream: true }, { signal })) as never;
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

async function run(adapter: AnthropicAdapter, responses: ScriptedResponse[], request_id: string) {
  server.reset();
  server.enqueue(...responses);
  const events: StreamEvent[] = [];
  let error: unknown;
  try {
    const session_id = newSessionId();
    const request = {
      request_id,
      model: 'anthropic:claude-sonnet-4-6',
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

describe('recorded stream fixtures map as through the SDK', () => {
  for (const [scenario, responses] of Object.entries(fixtures)) {
    const streams = (responses ?? []).filter(
      (r) => r.type === 'stream' && r.ending !== 'stall' && r.contentType === 'text/event-stream',
    );
    if (streams.length === 0) continue;
    it(scenario, async () => {
      const request_id = newRequestId();
      const ours = await run(new AnthropicAdapter(config()), streams, request_id);
      const theirs = await run(sdkStreamAdapter(), streams, request_id);
      expect(ours).toEqual(theirs);
      expect((ours.events as unknown[]).length).toBeGreaterThan(1);
    });
  }
});

/**
 * Replies recorded right (issue 23), through the real SDK to the loopback server: the refusal
 * stop reason in both call shapes, the served model, an empty reply cut at the limit while
 * thinking, and usage without reasoning tokens (the Messages API does not report them).
 */

import { fileURLToPath } from 'node:url';
import {
  type LoopbackServer,
  loadFixtureDirectory,
  type ScriptedResponse,
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
import { AnthropicAdapter } from '../src/index.js';

const fixtures = loadFixtureDirectory(fileURLToPath(new URL('./fixtures', import.meta.url)));

let server: LoopbackServer;
beforeAll(async () => {
  server = await startLoopbackServer();
});
afterAll(() => server.close());
beforeEach(() => server.reset());

const session_id = newSessionId();
const ask = (extra: Partial<CanonicalRequestInput> = {}): CanonicalRequestInput => ({
  request_id: newRequestId(),
  model: 'anthropic:claude-sonnet-4-6',
  max_output_tokens: 256,
  messages: [createMessage({ session_id, role: 'user', content: [{ type: 'text', text: 'hi' }] })],
  ...extra,
});

const adapter = () =>
  new AnthropicAdapter({ api_key: 'sk-ant-test-0000000000', base_url: server.url });

const fixture = (name: string): ScriptedResponse => {
  const response = fixtures[name]?.[0];
  if (!response) throw new Error(`no fixture ${name}`);
  return response;
};

const jsonReply = (name: string): Record<string, unknown> => {
  const response = fixture(name);
  if (response.type !== 'json') throw new Error(`${name} is a JSON reply`);
  return structuredClone(response.body) as Record<string, unknown>;
};

/** The text-stream fixture with its `message_delta` rewritten by `edit`. */
const editedTextStream = (edit: (delta: Record<string, unknown>) => void): ScriptedResponse => {
  const response = fixture('text-stream');
  if (response.type !== 'stream') throw new Error('text-stream is a stream');
  const chunks = response.chunks.map((chunk) => {
    if (!chunk.startsWith('event: message_delta')) return chunk;
    const data = JSON.parse(chunk.slice(chunk.indexOf('data: ') + 6)) as {
      delta: Record<string, unknown>;
    };
    edit(data.delta);
    return `event: message_delta\ndata: ${JSON.stringify(data)}\n\n`;
  });
  return { ...response, chunks };
};

async function collect(stream: AsyncIterable<StreamEvent>): Promise<StreamEvent[]> {
  const events: StreamEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

const completeOf = (events: StreamEvent[]) => {
  const last = events.at(-1);
  if (last?.type !== 'message.complete') throw new Error('the stream did not complete');
  return last;
};

describe('refusal: stop_reason "refusal" is the canonical refusal, not end_turn', () => {
  it('complete(): the refusal text stays the reply; stop_details is kept in provider_raw', async () => {
    server.enqueue(fixture('refusal'));
    const res = await adapter().complete(ask());
    expect(res.stop_reason).toBe('refusal');
    expect(res.content).toEqual([{ type: 'text', text: "I can't help with that." }]);
    // Anthropic's explanation describes the policy, it is not what the assistant said.
    expect(res.refusal).toBeUndefined();
    expect(res.provider_raw).toMatchObject({
      anthropic: {
        stop_reason: 'refusal',
        stop_details: { type: 'refusal', category: 'cyber', explanation: expect.any(String) },
      },
    });
  });

  it('stream(): a refusal in message_delta ends the stream as refusal, the streamed text kept', async () => {
    server.enqueue(
      editedTextStream((delta) => {
        delta.stop_reason = 'refusal';
        delta.stop_details = { type: 'refusal', category: null, explanation: null };
      }),
    );
    const done = completeOf(await collect(adapter().stream(ask({ stream: true }))));
    expect(done.stop_reason).toBe('refusal');
    expect(done.final_content).toEqual([
      { type: 'text', text: 'Hello! How can I help you today?' },
    ]);
    expect(done.provider_raw).toMatchObject({
      anthropic: { stop_reason: 'refusal', stop_details: { type: 'refusal', category: null } },
    });
  });
});

describe('served model: the model the reply names, under the requested provider key', () => {
  it('complete() and stream() report message.model as served_model; model stays requested', async () => {
    server.enqueue(fixture('text'), fixture('served-model-stream'));
    const res = await adapter().complete(ask());
    expect(res.model).toBe('anthropic:claude-sonnet-4-6');
    expect(res.served_model).toBe('anthropic:claude-sonnet-4-6');
    const done = completeOf(await collect(adapter().stream(ask({ stream: true }))));
    expect(done.served_model).toBe('anthropic:served-model-2026-11-01');
  });

  it('a reply that names no model leaves served_model unset', async () => {
    const body = jsonReply('text');
    body.model = '';
    server.enqueue({ type: 'json', body });
    const res = await adapter().complete(ask());
    expect(res.served_model).toBeUndefined();
  });
});

describe('an empty reply cut at max_tokens is returned', () => {
  it('complete(): a thinking-only reply stopped at max_tokens keeps the thinking, no text', async () => {
    const body = jsonReply('empty-reply-length');
    body.content = [{ type: 'thinking', thinking: 'Let me consider the zeta', signature: 'EqA1' }];
    server.enqueue({ type: 'json', body });
    const res = await adapter().complete(ask());
    expect(res.stop_reason).toBe('max_tokens');
    expect(res.content).toEqual([
      { type: 'thinking', text: 'Let me consider the zeta', signature: 'EqA1' },
    ]);
    expect(res.usage).toMatchObject({ input_tokens: 40, output_tokens: 256 });
  });

  it('stream(): a stream with no content block that stops at max_tokens completes empty', async () => {
    const response = editedTextStream((delta) => {
      delta.stop_reason = 'max_tokens';
    });
    if (response.type !== 'stream') throw new Error('a stream');
    server.enqueue({
      ...response,
      chunks: response.chunks.filter((c) => !c.startsWith('event: content_block')),
    });
    const events = await collect(adapter().stream(ask({ stream: true })));
    const done = completeOf(events);
    expect(done.stop_reason).toBe('max_tokens');
    expect(done.final_content).toEqual([]);
    expect(events.map((e) => e.type)).toEqual(['message.start', 'message.complete']);
  });
});

describe('usage: the Messages API reports no reasoning tokens', () => {
  it('leaves reasoning_tokens absent in both call shapes', async () => {
    server.enqueue(fixture('thinking'), fixture('thinking-stream'));
    const res = await adapter().complete(ask());
    expect(res.usage).not.toHaveProperty('reasoning_tokens');
    const done = completeOf(await collect(adapter().stream(ask({ stream: true }))));
    expect(done.usage).not.toHaveProperty('reasoning_tokens');
  });
});

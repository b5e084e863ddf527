/**
 * Replies recorded right (issue 23), through the official SDK to the loopback server: safety
 * finishes and blocked prompts as refusals, the served model (`modelVersion`), thoughts as
 * `reasoning_tokens` and empty replies cut at MAX_TOKENS. A streamed tool name outside the
 * canonical rule is the conformance scenario `tool-name-outside-rule-stream`.
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
  createMemoryLogger,
  createMessage,
  InvalidRequestError,
  newRequestId,
  newSessionId,
  type StreamEvent,
} from '@yourtool/core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { GoogleAdapter } from '../src/index.js';

const fixtures = loadFixtureDirectory(fileURLToPath(new URL('./fixtures', import.meta.url)));
const G3 = 'google:gemini-3-pro-preview';

let server: LoopbackServer;
beforeAll(async () => {
  server = await startLoopbackServer();
});
afterAll(() => server.close());
beforeEach(() => server.reset());

const session_id = newSessionId();
const ask = (extra: Partial<CanonicalRequestInput> = {}): CanonicalRequestInput => ({
  request_id: newRequestId(),
  model: G3,
  max_output_tokens: 256,
  messages: [createMessage({ session_id, role: 'user', content: [{ type: 'text', text: 'hi' }] })],
  ...extra,
});

const adapter = (logger = createMemoryLogger()) =>
  new GoogleAdapter({ api_key: 'gemini-test-0000000000', base_url: server.url }, { logger });

const fixture = (name: string): ScriptedResponse => {
  const response = fixtures[name]?.[0];
  if (!response) throw new Error(`no fixture ${name}`);
  return response;
};

const sse = (...chunks: unknown[]): ScriptedResponse => ({
  type: 'stream',
  contentType: 'text/event-stream',
  chunks: chunks.map((c) => `data: ${JSON.stringify(c)}\n\n`),
});

const chunk = (parts: unknown[] | null, extra: Record<string, unknown> = {}) => ({
  candidates: [{ ...(parts ? { content: { role: 'model', parts } } : {}), index: 0, ...extra }],
  usageMetadata: { promptTokenCount: 25, totalTokenCount: 25 },
  modelVersion: 'gemini-3-pro-preview',
  responseId: 'resp_fidelity',
});

const finalUsage = { promptTokenCount: 25, candidatesTokenCount: 8, totalTokenCount: 33 };

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

describe('refusals: safety-type finishes and blocked prompts are stop_reason refusal', () => {
  it('complete(): a SAFETY finish without content is returned empty, usage kept, no throw', async () => {
    server.enqueue(fixture('refusal'));
    const res = await adapter().complete(ask());
    expect(res.stop_reason).toBe('refusal');
    expect(res.content).toEqual([]);
    expect(res.usage).toMatchObject({ input_tokens: 25, output_tokens: 8 });
    expect(res.refusal).toBeUndefined();
    expect(res.provider_raw).toMatchObject({ google: { finish_reason: 'SAFETY', blocked: true } });
  });

  it('stream(): text, then a SAFETY chunk with empty content: refusal, the text kept, a WARN', async () => {
    const logger = createMemoryLogger();
    server.enqueue(
      sse(chunk([{ text: 'Here is how' }]), {
        ...chunk(null, { finishReason: 'SAFETY' }),
        usageMetadata: finalUsage,
      }),
    );
    const done = completeOf(await collect(adapter(logger).stream(ask({ stream: true }))));
    expect(done.stop_reason).toBe('refusal');
    expect(done.final_content).toEqual([{ type: 'text', text: 'Here is how' }]);
    expect(done.usage).toMatchObject({ input_tokens: 25, output_tokens: 8 });
    expect(logger.warnings().map((w) => w.obj.event)).toContain('reply_blocked');
  });

  it('stream(): a PROHIBITED_CONTENT finish before any content completes empty as refusal', async () => {
    server.enqueue(
      sse({ ...chunk(null, { finishReason: 'PROHIBITED_CONTENT' }), usageMetadata: finalUsage }),
    );
    const events = await collect(adapter().stream(ask({ stream: true })));
    expect(events.map((e) => e.type)).toEqual(['message.start', 'message.complete']);
    expect(completeOf(events)).toMatchObject({ stop_reason: 'refusal', final_content: [] });
  });

  it('a blocked prompt (promptFeedback.blockReason, no candidate) is a refusal in both shapes', async () => {
    const blocked = {
      promptFeedback: { blockReason: 'SAFETY' },
      usageMetadata: { promptTokenCount: 25, totalTokenCount: 25 },
      modelVersion: 'gemini-3-pro-preview',
      responseId: 'resp_blocked',
    };
    server.enqueue({ type: 'json', body: blocked }, sse(blocked));
    const res = await adapter().complete(ask());
    expect(res.stop_reason).toBe('refusal');
    expect(res.content).toEqual([]);
    expect(res.usage).toMatchObject({ input_tokens: 25, output_tokens: 0 });
    expect(res.provider_raw).toMatchObject({ google: { block_reason: 'SAFETY', blocked: true } });
    const done = completeOf(await collect(adapter().stream(ask({ stream: true }))));
    expect(done.stop_reason).toBe('refusal');
    expect(done.final_content).toEqual([]);
  });

  it('LANGUAGE before any content is not a refusal: an InvalidRequestError', async () => {
    server.enqueue({ type: 'json', body: chunk(null, { finishReason: 'LANGUAGE' }) });
    const error = await adapter()
      .complete(ask())
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidRequestError);
    expect((error as InvalidRequestError).provider_message).toBe('LANGUAGE');
  });
});

describe('served model: modelVersion under the requested provider key', () => {
  it('complete() and stream() report it; model stays the requested id', async () => {
    server.enqueue(fixture('text'), fixture('served-model-stream'));
    const res = await adapter().complete(ask());
    expect(res.model).toBe(G3);
    expect(res.served_model).toBe('google:gemini-3-pro-preview');
    const done = completeOf(await collect(adapter().stream(ask({ stream: true }))));
    expect(done.served_model).toBe('google:served-model-2026-11-01');
  });
});

describe('reasoning tokens: thoughtsTokenCount, counted in output_tokens too', () => {
  it('complete() and stream() report reasoning_tokens; output_tokens keeps its meaning', async () => {
    server.enqueue(fixture('thinking'), fixture('thinking-stream'), fixture('text'));
    const res = await adapter().complete(ask());
    expect(res.usage).toMatchObject({ output_tokens: 61, reasoning_tokens: 40 });
    const done = completeOf(await collect(adapter().stream(ask({ stream: true }))));
    expect(done.usage).toMatchObject({ output_tokens: 61, reasoning_tokens: 40 });
    const plain = await adapter().complete(ask());
    expect(plain.usage).not.toHaveProperty('reasoning_tokens');
  });
});

describe('an empty reply cut at MAX_TOKENS is returned', () => {
  it('complete(): no parts, all thoughts: no content, max_tokens, 256 reasoning tokens', async () => {
    server.enqueue(fixture('empty-reply-length'));
    const res = await adapter().complete(ask());
    expect(res.content).toEqual([]);
    expect(res.stop_reason).toBe('max_tokens');
    expect(res.usage).toMatchObject({
      input_tokens: 40,
      output_tokens: 256,
      reasoning_tokens: 256,
    });
  });

  it('stream(): only thought parts, then MAX_TOKENS: thinking kept, no text', async () => {
    server.enqueue(
      sse(chunk([{ text: 'Consider the zeta function', thought: true }]), {
        ...chunk([], { finishReason: 'MAX_TOKENS' }),
        usageMetadata: { promptTokenCount: 40, thoughtsTokenCount: 256, totalTokenCount: 296 },
      }),
    );
    const done = completeOf(await collect(adapter().stream(ask({ stream: true }))));
    expect(done.stop_reason).toBe('max_tokens');
    expect(done.final_content).toEqual([{ type: 'thinking', text: 'Consider the zeta function' }]);
    expect(done.usage).toMatchObject({ output_tokens: 256, reasoning_tokens: 256 });
  });
});

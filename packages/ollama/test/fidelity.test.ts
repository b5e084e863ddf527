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
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { OllamaAdapter } from '../src/index.js';

/**
 * Replies recorded right (issue 23), through the official ollama client to the loopback server:
 * the served model (`model` of the reply), an empty reply cut at the length limit, and usage
 * without reasoning tokens (Ollama does not report them). A streamed tool name outside the
 * canonical rule is the conformance scenario `tool-name-outside-rule-stream`.
 */

const fixtures = loadFixtureDirectory(fileURLToPath(new URL('./fixtures', import.meta.url)));
const MODEL = 'ollama:qwen3-vl:8b';

let server: LoopbackServer;
const opened: OllamaAdapter[] = [];
beforeAll(async () => {
  server = await startLoopbackServer();
});
afterAll(() => server.close());
beforeEach(() => server.reset());
afterEach(async () => {
  await Promise.all(opened.splice(0).map((a) => a.close()));
});

function adapter() {
  const created = new OllamaAdapter({
    base_url: server.url,
    max_retries: 0,
    options: { detect_capabilities: false },
  });
  opened.push(created);
  return created;
}

const session_id = newSessionId();
const ask = (extra: Partial<CanonicalRequestInput> = {}): CanonicalRequestInput => ({
  request_id: newRequestId(),
  model: MODEL,
  max_output_tokens: 256,
  messages: [createMessage({ session_id, role: 'user', content: [{ type: 'text', text: 'hi' }] })],
  ...extra,
});

const fixture = (name: string): ScriptedResponse => {
  const response = fixtures[name]?.[0];
  if (!response) throw new Error(`no fixture ${name}`);
  return response;
};

const ndjson = (...lines: Array<Record<string, unknown>>): ScriptedResponse => ({
  type: 'stream',
  contentType: 'application/x-ndjson',
  chunks: lines.map((l) => `${JSON.stringify({ model: 'qwen3-vl:8b', ...l })}\n`),
});
const at = '2026-05-14T09:32:00Z';
const done = (reason: string, prompt: number, output: number) => ({
  created_at: at,
  message: { role: 'assistant', content: '' },
  done: true,
  done_reason: reason,
  prompt_eval_count: prompt,
  eval_count: output,
});

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

describe('served model: the reply’s model under the requested provider key', () => {
  it('complete() and stream() report it; model stays the requested id', async () => {
    server.enqueue(fixture('text'), fixture('served-model-stream'));
    const res = await adapter().complete(ask());
    expect(res.model).toBe(MODEL);
    expect(res.served_model).toBe('ollama:qwen3-vl:8b');
    const end = completeOf(await collect(adapter().stream(ask({ stream: true }))));
    expect(end.served_model).toBe('ollama:served-model-2026-11-01');
  });
});

describe('an empty reply cut at the length limit is returned', () => {
  it('stream(): thinking only, then done_reason length: thinking kept, no text, max_tokens', async () => {
    server.enqueue(
      ndjson(
        {
          created_at: at,
          message: { role: 'assistant', content: '', thinking: 'Consider the zeta function' },
          done: false,
        },
        done('length', 40, 256),
      ),
    );
    const end = completeOf(await collect(adapter().stream(ask({ stream: true }))));
    expect(end.stop_reason).toBe('max_tokens');
    expect(end.final_content).toEqual([{ type: 'thinking', text: 'Consider the zeta function' }]);
    expect(end.usage).toMatchObject({ input_tokens: 40, output_tokens: 256 });
  });

  it('stream(): nothing at all before done_reason length completes empty', async () => {
    server.enqueue(ndjson(done('length', 40, 256)));
    const events = await collect(adapter().stream(ask({ stream: true })));
    expect(events.map((e) => e.type)).toEqual(['message.start', 'message.complete']);
    expect(completeOf(events)).toMatchObject({ stop_reason: 'max_tokens', final_content: [] });
  });
});

describe('usage: Ollama reports no reasoning tokens', () => {
  it('leaves reasoning_tokens absent, even for a thinking reply', async () => {
    server.enqueue(fixture('thinking'), fixture('thinking-stream'));
    const res = await adapter().complete(ask());
    expect(res.content.some((b) => b.type === 'thinking')).toBe(true);
    expect(res.usage).not.toHaveProperty('reasoning_tokens');
    const end = completeOf(await collect(adapter().stream(ask({ stream: true }))));
    expect(end.usage).not.toHaveProperty('reasoning_tokens');
  });
});

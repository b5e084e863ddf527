import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type LoopbackServer, loadResponseFile, startLoopbackServer } from '@yourtool/conformance';
import { type ChatResponse, Ollama } from 'ollama';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOllamaCallTransport } from '../src/client.js';

/**
 * Every recorded fixture must follow the documented `/api/chat` format and be something the
 * official ollama client itself accepts: streams through its NDJSON reader (`chat` with
 * `stream: true`) up to `done`, JSON replies through `chat`, errors as its ResponseError with the
 * recorded status (a non-JSON error body through the adapter's fetch, see below). Recorded `/api/show` replies go through `show`.
 */
const dir = fileURLToPath(new URL('./fixtures', import.meta.url));
const files = readdirSync(dir).flatMap((scenario) =>
  readdirSync(join(dir, scenario))
    .filter((f) => !f.endsWith('.meta.json'))
    .map((f) => join(scenario, f)),
);

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;

/** The documented fields of a chat reply (a stream chunk, or the whole reply). */
function expectDocumentedChunk(chunk: Record<string, unknown>): void {
  expect(typeof chunk.model).toBe('string');
  expect(chunk.created_at).toMatch(RFC3339);
  expect(typeof chunk.done).toBe('boolean');
  const message = chunk.message as Record<string, unknown>;
  expect(message.role).toBe('assistant');
  expect(typeof message.content).toBe('string');
  if ('thinking' in message) expect(typeof message.thinking).toBe('string');
  for (const call of (message.tool_calls ?? []) as Array<{ function: Record<string, unknown> }>) {
    expect(typeof call.function.name).toBe('string');
    expect(typeof call.function.arguments).toBe('object');
  }
  if (chunk.done) {
    expect(['stop', 'length']).toContain(chunk.done_reason);
    for (const field of [
      'total_duration',
      'load_duration',
      'prompt_eval_count',
      'prompt_eval_duration',
      'eval_count',
      'eval_duration',
    ]) {
      expect(Number.isInteger(chunk[field]), `${field} is an integer`).toBe(true);
    }
  } else {
    expect(chunk).not.toHaveProperty('done_reason');
  }
}

let server: LoopbackServer;
let client: Ollama;
beforeAll(async () => {
  server = await startLoopbackServer();
  client = new Ollama({ host: server.url });
});
afterAll(() => server.close());

const request = { model: 'qwen3-vl:8b', messages: [{ role: 'user', content: 'hi' }] };

describe('fixtures follow the documented format and parse through the official client', () => {
  it('has fixtures to check', () => expect(files.length).toBeGreaterThan(30));
  for (const file of files) {
    const response = loadResponseFile(join(dir, file));
    if (response.type === 'hangup') continue;
    it(file, async () => {
      server.reset();
      if (response.type === 'stream') {
        const lines = response.chunks.map((c) => JSON.parse(c) as Record<string, unknown>);
        for (const line of lines) expectDocumentedChunk(line);
        const complete = response.ending === undefined || response.ending === 'end';
        expect(lines.at(-1)?.done, 'a complete stream ends with done: true').toBe(complete);
        if (!complete) return;
        server.enqueue(response);
        const received: ChatResponse[] = [];
        for await (const part of await client.chat({ ...request, stream: true }))
          received.push(part);
        expect(received).toHaveLength(lines.length);
        expect(received.at(-1)?.done).toBe(true);
      } else if (response.type === 'json' && (response.status ?? 200) === 200) {
        expectDocumentedChunk(response.body as Record<string, unknown>);
        server.enqueue(response);
        const reply = await client.chat({ ...request, stream: false });
        expect(reply.message).toEqual((response.body as { message: unknown }).message);
      } else if (response.type === 'json') {
        expect(Object.keys(response.body as object)).toEqual(['error']);
        server.enqueue(response);
        const error = await client.chat({ ...request, stream: false }).catch((e: unknown) => e);
        expect((error as Error).name).toBe('ResponseError');
        expect((error as { status_code: number }).status_code).toBe(response.status);
        expect((error as { error: string }).error).toBe((response.body as { error: string }).error);
      } else if ((response.status ?? 200) === 200) {
        server.enqueue(response);
        await expect(client.chat({ ...request, stream: false })).rejects.toBeInstanceOf(
          SyntaxError,
        );
      } else if (response.type === 'text') {
        // A non-JSON error body: the bare client logs one to the console before reading it, so
        // it goes through the client with the adapter's fetch (decision 0080), which keeps the
        // client's ResponseError and the body's text.
        server.enqueue(response);
        const { client: quiet } = createOllamaCallTransport(
          { host: server.url, headers: {}, timeoutMs: 5_000 },
          new AbortController().signal,
        );
        const error = await quiet.chat({ ...request, stream: false }).catch((e: unknown) => e);
        expect((error as Error).name).toBe('ResponseError');
        expect((error as { status_code: number }).status_code).toBe(response.status);
        expect((error as { error: string }).error).toBe(response.body);
      }
    });
  }
});

describe('recorded /api/show replies parse through the official client', () => {
  const showDir = fileURLToPath(new URL('./show', import.meta.url));
  for (const file of readdirSync(showDir)) {
    it(file, async () => {
      const body = JSON.parse(readFileSync(join(showDir, file), 'utf8')) as Record<string, unknown>;
      server.reset();
      server.enqueue({ type: 'json', body });
      const show = await client.show({ model: 'm' });
      expect(show.details.format).toBe('gguf');
      expect(show.model_info).toEqual(body.model_info);
      expect(show.capabilities).toEqual(body.capabilities);
    });
  }
});

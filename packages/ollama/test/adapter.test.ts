import {
  collectCheckedStream,
  type LoopbackServer,
  startLoopbackServer,
} from '@yourtool/conformance';
import {
  type AdapterError,
  CancelledError,
  type CanonicalRequestInput,
  createMemoryLogger,
  createMessage,
  InvalidRequestError,
  NetworkError,
  newRequestId,
  newSessionId,
  type StreamEvent,
} from '@yourtool/core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  OllamaAdapter,
  type OllamaConfigOptions,
  type OllamaRuntimeOptions,
} from '../src/index.js';
import { showFixture } from './show.js';

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

function adapter(
  options: OllamaConfigOptions = {},
  runtime: OllamaRuntimeOptions = {},
  config: {
    api_key?: string;
    extra_headers?: Record<string, string>;
    timeout_seconds?: number;
  } = {},
) {
  const logger = createMemoryLogger();
  const created = new OllamaAdapter(
    { base_url: server.url, max_retries: 0, options, ...config },
    { logger, retry: { baseDelayMs: 1, maxDelayMs: 5 }, ...runtime },
  );
  opened.push(created);
  return { ollama: created, logger };
}

const session_id = newSessionId();
const ask = (
  text: string,
  extra: Partial<CanonicalRequestInput> = {},
  model = 'ollama:qwen3:8b',
): CanonicalRequestInput => ({
  request_id: newRequestId(),
  model,
  max_output_tokens: 256,
  messages: [createMessage({ session_id, role: 'user', content: [{ type: 'text', text }] })],
  ...extra,
});
const readFile = {
  name: 'read_file',
  description: 'Read a file',
  input_schema: { type: 'object', properties: { path: { type: 'string' } } },
  side_effects: 'read' as const,
};

const reply = (content: string, extra: Record<string, unknown> = {}) => ({
  type: 'json' as const,
  body: {
    model: 'qwen3:8b',
    created_at: '2026-05-14T09:30:10.5Z',
    message: { role: 'assistant', content },
    done: true,
    done_reason: 'stop',
    prompt_eval_count: 20,
    eval_count: 3,
    ...extra,
  },
});
const show = (name: string) => ({ type: 'json' as const, body: showFixture(name) });
const chunk = (content: string) =>
  `${JSON.stringify({ model: 'qwen3:8b', created_at: '2026-05-14T09:30:10.5Z', message: { role: 'assistant', content }, done: false })}\n`;
const doneChunk = `${JSON.stringify({ model: 'qwen3:8b', created_at: '2026-05-14T09:30:11Z', message: { role: 'assistant', content: '' }, done: true, done_reason: 'stop', prompt_eval_count: 9, eval_count: 2 })}\n`;

describe('capabilities from /api/show', () => {
  it('detects once, caches, and refreshes on demand', async () => {
    const { ollama } = adapter();
    expect(ollama.capabilitiesFor('ollama:qwen3:8b').supports_tools).toBe(false);
    expect(ollama.capabilitiesDetected('ollama:qwen3:8b'), 'defaults until detected').toBe(false);
    server.enqueue(show('qwen3_8b'));
    const caps = await ollama.detectCapabilities('ollama:qwen3:8b');
    expect(ollama.capabilitiesDetected('qwen3:8b')).toBe(true);
    expect(caps).toMatchObject({
      supports_tools: true,
      supports_thinking: true,
      supports_images: false,
      max_context_tokens: 4096,
    });
    expect(server.requests[0]).toMatchObject({
      method: 'POST',
      path: '/api/show',
      body: { model: 'qwen3:8b' },
    });
    await ollama.detectCapabilities('qwen3:8b');
    expect(server.requests).toHaveLength(1);
    expect(ollama.capabilitiesFor('qwen3:8b').supports_tools).toBe(true);
    expect(ollama.modelInfo('ollama:qwen3:8b')?.contextLength).toBe(40960);
    server.enqueue(show('gemma3_1b'));
    expect((await ollama.refreshCapabilities('ollama:qwen3:8b')).supports_tools).toBe(false);
    expect(server.requests).toHaveLength(2);
  });

  it('shares one /api/show request between concurrent detections', async () => {
    const { ollama } = adapter();
    server.enqueue(show('llama3.2_latest'));
    const [a, b] = await Promise.all([
      ollama.detectCapabilities('ollama:llama3.2'),
      ollama.detectCapabilities('ollama:llama3.2:latest'),
    ]);
    expect(a).toEqual(b);
    expect(server.requests).toHaveLength(1);
  });

  it('uses the Modelfile num_ctx, within the trained context, and the configured num_ctx over it', async () => {
    const { ollama } = adapter();
    server.enqueue(show('mistral-32k_latest'));
    expect((await ollama.detectCapabilities('ollama:mistral-32k')).max_context_tokens).toBe(32768);
    const configured = adapter({ num_ctx: 8192 }).ollama;
    server.enqueue(show('mistral-32k_latest'));
    expect((await configured.detectCapabilities('ollama:mistral-32k')).max_context_tokens).toBe(
      8192,
    );
  });

  it('lets capabilityOverrides win (a model that does not tool-call reliably)', async () => {
    const { ollama } = adapter(
      {},
      {
        capabilityOverrides: {
          'ollama:qwen3:8b': { supports_tools: false, max_context_tokens: 16384 },
        },
      },
    );
    server.enqueue(show('qwen3_8b'));
    expect(await ollama.detectCapabilities('ollama:qwen3:8b')).toMatchObject({
      supports_tools: false,
      supports_thinking: true,
      max_context_tokens: 16384,
    });
  });

  it('detects on the first call to a model, then sends what the model supports', async () => {
    const { ollama } = adapter();
    server.enqueue(show('qwen3_8b'), reply('One.'), reply('Two.'));
    await ollama.complete(ask('Hi', { tools: [readFile] }));
    await ollama.complete(ask('Hi again', { tools: [readFile] }));
    expect(server.requests.map((r) => r.path)).toEqual(['/api/show', '/api/chat', '/api/chat']);
    const body = server.requests[1]?.body as Record<string, unknown>;
    expect(body.tools).toHaveLength(1);
    expect(body.think).toBe(false);
    expect(body.options).toMatchObject({ num_ctx: 4096, num_predict: 256 });
  });

  it('goes on with what is known when detection fails, and reports a missing model with ollama pull', async () => {
    const { ollama, logger } = adapter();
    const notFound = {
      type: 'json' as const,
      status: 404,
      body: { error: 'model "qwen3:8b" not found, try pulling it first' },
    };
    server.enqueue(notFound, notFound);
    const error = (await ollama.complete(ask('Hi')).catch((e: unknown) => e)) as AdapterError;
    expect(error).toBeInstanceOf(InvalidRequestError);
    expect(error.message).toContain('ollama pull qwen3:8b');
    expect(logger.warnings().map((w) => w.obj.event)).toContain('capability_detection_failed');
  });

  it("sends the model's own stop markers with the request's stop sequences", async () => {
    const { ollama } = adapter();
    server.enqueue(show('qwen3_8b'), reply('1, 2, 3'));
    await ollama.complete(ask('Count', { stop_sequences: ['END'] }));
    expect(server.requests[1]?.body).toMatchObject({
      options: { stop: ['END', '<|im_start|>', '<|im_end|>'] },
    });
  });

  it('does not detect when detect_capabilities is false', async () => {
    const { ollama } = adapter({ detect_capabilities: false });
    server.enqueue(reply('Hi.'));
    await ollama.complete(ask('Hi'));
    expect(server.requests.map((r) => r.path)).toEqual(['/api/chat']);
  });
});

describe('transport', () => {
  it('says Ollama is not running when nothing listens on the host', async () => {
    const closed = await startLoopbackServer();
    const url = closed.url;
    await closed.close();
    const ollama = new OllamaAdapter({ base_url: url, max_retries: 0 });
    opened.push(ollama);
    const error = (await ollama.complete(ask('Hi')).catch((e: unknown) => e)) as AdapterError;
    expect(error).toBeInstanceOf(NetworkError);
    expect(error.message).toContain(url);
    expect(error.message).toContain('Is Ollama running?');
    await expect(ollama.detectCapabilities('ollama:qwen3:8b')).rejects.toBeInstanceOf(NetworkError);
  });

  it('sends the API key as a bearer token (never recorded) and extra headers', async () => {
    const { ollama } = adapter(
      { detect_capabilities: false },
      {},
      { api_key: 'sk-proxy-0123456789abcdef', extra_headers: { 'x-team': 'core' } },
    );
    server.enqueue(reply('Hi.'));
    await ollama.complete(ask('Hi'));
    const headers = server.requests[0]?.headers ?? {};
    expect(headers.authorization).toBe('[REDACTED]');
    expect(headers['x-team']).toBe('core');
    expect(headers['user-agent']).toContain('ollama-js');
  });

  it('reads OLLAMA_HOST when no base_url is configured', async () => {
    const previous = process.env.OLLAMA_HOST;
    process.env.OLLAMA_HOST = server.url;
    try {
      const ollama = new OllamaAdapter({ max_retries: 0, options: { detect_capabilities: false } });
      opened.push(ollama);
      expect(ollama.host).toBe(server.url);
      server.enqueue(reply('Hi.'));
      expect((await ollama.complete(ask('Hi'))).content).toEqual([{ type: 'text', text: 'Hi.' }]);
    } finally {
      if (previous === undefined) delete process.env.OLLAMA_HOST;
      else process.env.OLLAMA_HOST = previous;
    }
  });

  it('times out a call that gets no complete reply within timeout_seconds', async () => {
    const { ollama } = adapter({ detect_capabilities: false }, {}, { timeout_seconds: 0.2 });
    server.enqueue({
      type: 'stream',
      contentType: 'application/x-ndjson',
      chunks: ['{"model":'],
      ending: 'stall',
    });
    const error = (await ollama.complete(ask('Hi')).catch((e: unknown) => e)) as AdapterError;
    expect(error).toBeInstanceOf(NetworkError);
    expect(error.message).toContain('timeout');
  });

  it('passes per-call think, keep_alive and model options', async () => {
    const { ollama } = adapter(
      { detect_capabilities: false, keep_alive: '1m', model_options: { seed: 1, top_k: 5 } },
      { capabilityOverrides: { 'qwen3:8b': { supports_thinking: true } } },
    );
    server.enqueue(reply('Hi.'));
    await ollama.complete(ask('Hi'), {
      providerOptions: { ollama: { think: 'low', keep_alive: -1, options: { seed: 2 } } },
    });
    expect(server.requests[0]?.body).toMatchObject({
      think: 'low',
      keep_alive: -1,
      options: { seed: 2, top_k: 5 },
    });
  });

  it('refuses models of other providers and calls after close', async () => {
    const { ollama } = adapter({ detect_capabilities: false });
    await expect(ollama.complete(ask('Hi', {}, 'openai:gpt-5'))).rejects.toBeInstanceOf(
      InvalidRequestError,
    );
    await ollama.close();
    await expect(ollama.complete(ask('Hi'))).rejects.toBeInstanceOf(InvalidRequestError);
    expect(server.requests).toHaveLength(0);
  });
});

describe('cancellation is per request', () => {
  it('cancel(request_id) ends only that stream; another stream of the same adapter completes', async () => {
    const { ollama } = adapter({ detect_capabilities: false });
    server.enqueue(
      {
        type: 'stream',
        contentType: 'application/x-ndjson',
        chunks: [chunk('A1')],
        ending: 'stall',
      },
      {
        type: 'stream',
        contentType: 'application/x-ndjson',
        chunks: [chunk('B1'), chunk(' B2'), doneChunk],
        delayMs: 150,
      },
    );
    const a = ask('A', { stream: true });
    const itA = ollama.stream(a)[Symbol.asyncIterator]();
    const firstA: StreamEvent[] = [];
    while (!firstA.some((e) => e.type === 'text.delta')) firstA.push((await itA.next()).value);
    const streamB = collectCheckedStream(ollama.stream(ask('B', { stream: true })));
    await server.waitForRequests(2);
    expect(await ollama.cancel(a.request_id)).toBe(true);
    const restA: StreamEvent[] = [];
    for (;;) {
      const next = await itA.next();
      if (next.done) break;
      restA.push(next.value);
    }
    expect(restA.at(-1)).toMatchObject({ type: 'message.complete', stop_reason: 'cancelled' });
    const b = await streamB;
    expect(b.error).toBeUndefined();
    expect(b.events.at(-1)).toMatchObject({
      type: 'message.complete',
      stop_reason: 'end_turn',
      final_content: [{ type: 'text', text: 'B1 B2' }],
    });
    await expect.poll(() => server.requests[0]?.aborted).toBe(true);
    expect(server.requests[1]?.aborted).toBe(false);
  });

  it('cancels a non-streaming call mid-request (the client passes no signal of its own)', async () => {
    const { ollama } = adapter({ detect_capabilities: false });
    server.enqueue({
      type: 'stream',
      contentType: 'application/x-ndjson',
      chunks: ['{"model":"qwen3:8b",'],
      ending: 'stall',
    });
    const controller = new AbortController();
    const pending = ollama.complete(ask('Hi'), { signal: controller.signal });
    await server.waitForRequests(1);
    const started = performance.now();
    controller.abort();
    await expect(pending).rejects.toBeInstanceOf(CancelledError);
    expect(performance.now() - started).toBeLessThan(1000);
    await expect.poll(() => server.requests[0]?.aborted).toBe(true);
  });
});

describe('context and usage warnings', () => {
  it('warns before sending a prompt estimated beyond num_ctx', async () => {
    const { ollama, logger } = adapter(
      { detect_capabilities: false },
      { capabilityOverrides: { 'ollama:qwen3:8b': { max_context_tokens: 64 } } },
    );
    server.enqueue(reply('Hi.'));
    await ollama.complete(ask('word '.repeat(200)));
    expect(
      logger.warnings().find((w) => w.obj.event === 'context_may_overflow')?.obj,
    ).toMatchObject({
      num_ctx: 64,
    });
    expect(server.requests[0]?.body).toMatchObject({ options: { num_ctx: 64 } });
  });

  it('warns when the prompt filled the whole window (Ollama probably truncated it)', async () => {
    const { ollama, logger } = adapter({ detect_capabilities: false });
    server.enqueue(reply('Hi.', { prompt_eval_count: 4096 }));
    await ollama.complete(ask('Hi'));
    expect(logger.warnings().map((w) => w.obj.event)).toContain('context_truncated');
  });

  it('estimates and flags usage when prompt_eval_count is missing, streaming too', async () => {
    const { ollama, logger } = adapter({ detect_capabilities: false });
    const { prompt_eval_count: _, ...noCount } = reply('Hi.').body;
    server.enqueue({ type: 'json', body: noCount });
    const res = await ollama.complete(ask('Hi'));
    expect(res.usage.estimated).toBe(true);
    expect(res.usage.input_tokens).toBe(
      ollama.estimateInputTokens(ask('Hi').messages as never, [], null),
    );
    server.enqueue({
      type: 'stream',
      contentType: 'application/x-ndjson',
      chunks: [
        chunk('Hi'),
        `${JSON.stringify({ ...noCount, message: { role: 'assistant', content: '' } })}\n`,
      ],
    });
    const { events } = await collectCheckedStream(ollama.stream(ask('Hi', { stream: true })));
    expect(events.at(-1)).toMatchObject({ usage: { estimated: true, output_tokens: 3 } });
    expect(logger.warnings().filter((w) => w.obj.event === 'usage_estimated')).toHaveLength(2);
  });
});

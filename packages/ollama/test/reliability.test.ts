import { inspect } from 'node:util';
import {
  collectCheckedStream,
  type LoopbackServer,
  type ScriptedResponse,
  startLoopbackServer,
} from '@yourtool/conformance';
import {
  type AdapterError,
  AuthError,
  type CanonicalRequestInput,
  createMessage,
  NetworkError,
  newRequestId,
  newSessionId,
  ServerError,
  type StreamEvent,
} from '@yourtool/core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { OllamaAdapter } from '../src/index.js';

/**
 * Issue 12, through the real ollama client talking HTTP to the loopback server: unparseable
 * stream lines are errors (never dropped), nothing writes to the console (the setup file
 * `no-console.ts` fails any test that does), failures are classified by type, and errors keep
 * only a redacted copy of the client's error.
 */

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
  config: { max_retries?: number; api_key?: string; extra_headers?: Record<string, string> } = {},
) {
  const created = new OllamaAdapter(
    { base_url: server.url, max_retries: 0, options: { detect_capabilities: false }, ...config },
    { retry: { baseDelayMs: 1, maxDelayMs: 5 } },
  );
  opened.push(created);
  return created;
}

const session_id = newSessionId();
const ask = (text = 'Hi'): CanonicalRequestInput => ({
  request_id: newRequestId(),
  model: 'ollama:qwen3:8b',
  max_output_tokens: 256,
  messages: [createMessage({ session_id, role: 'user', content: [{ type: 'text', text }] })],
});

const line = (content: string) =>
  `${JSON.stringify({ model: 'qwen3:8b', created_at: '2026-05-14T09:30:10.5Z', message: { role: 'assistant', content }, done: false })}\n`;
const doneLine = `${JSON.stringify({ model: 'qwen3:8b', created_at: '2026-05-14T09:30:11Z', message: { role: 'assistant', content: '' }, done: true, done_reason: 'stop', prompt_eval_count: 9, eval_count: 2 })}\n`;
const ndjson = (chunks: string[], ending?: 'destroy'): ScriptedResponse => ({
  type: 'stream',
  contentType: 'application/x-ndjson',
  chunks,
  ...(ending ? { ending } : {}),
});

const texts = (events: StreamEvent[]) =>
  events.flatMap((e) => (e.type === 'text.delta' ? [e.text] : [])).join('');
const completion = (events: StreamEvent[]) => {
  const last = events.at(-1);
  if (last?.type !== 'message.complete') throw new Error('the stream has no message.complete');
  return last;
};

describe('an unparseable stream line is an error, never dropped', () => {
  it('after the first event: message.complete with stop_reason error and the partial text, then ServerError (not retried)', async () => {
    const ollama = adapter({ max_retries: 2 });
    server.enqueue(
      ndjson([
        line('Hel'),
        '{"model":"qwen3:8b","message":{"content":"lo\n',
        line(' world'),
        doneLine,
      ]),
    );
    const { events, error } = await collectCheckedStream(ollama.stream(ask()));
    expect(events.map((e) => e.type)).toEqual(['message.start', 'text.delta', 'message.complete']);
    expect(texts(events)).toBe('Hel');
    const complete = completion(events);
    expect(complete.stop_reason).toBe('error');
    expect(complete.final_content).toEqual([{ type: 'text', text: 'Hel' }]);
    expect(error).toBeInstanceOf(ServerError);
    expect((error as AdapterError).message).toContain('line 2');
    expect(server.requests).toHaveLength(1);
  });

  it('before the first event: throws ServerError with no events', async () => {
    const ollama = adapter();
    server.enqueue(ndjson(['this is not json\n', line('Hi'), doneLine]));
    const { events, error } = await collectCheckedStream(ollama.stream(ask()));
    expect(events).toEqual([]);
    expect(error).toBeInstanceOf(ServerError);
    expect((error as AdapterError).message).toContain(
      'line 1 of the streamed reply is not valid JSON',
    );
  });

  it('before the first event it is retried like any server_error', async () => {
    const ollama = adapter({ max_retries: 1 });
    server.enqueue(
      ndjson(['{"model": oops}\n', line('Hi'), doneLine]),
      ndjson([line('Hello'), doneLine]),
    );
    const { events, error } = await collectCheckedStream(ollama.stream(ask()));
    expect(error).toBeUndefined();
    expect(texts(events)).toBe('Hello');
    expect(server.requests).toHaveLength(2);
  });

  it('a line that is JSON but not an object, or a cut last line, is an error too', async () => {
    const ollama = adapter();
    server.enqueue(ndjson([line('a'), '[1,2]\n', line('b'), doneLine]));
    const notObject = await collectCheckedStream(ollama.stream(ask()));
    expect(texts(notObject.events)).toBe('a');
    expect(completion(notObject.events).stop_reason).toBe('error');
    expect(notObject.error).toBeInstanceOf(ServerError);
    expect((notObject.error as AdapterError).message).toContain('is not a JSON object');

    server.enqueue(ndjson([line('a'), '{"model":"qwen3:8b","done":tr']));
    const cut = await collectCheckedStream(ollama.stream(ask()));
    expect(texts(cut.events)).toBe('a');
    expect(completion(cut.events).stop_reason).toBe('error');
    expect(cut.error).toBeInstanceOf(ServerError);
  });

  it('accepts lines split across writes, blank lines and CRLF line ends, text intact', async () => {
    const ollama = adapter();
    const first = line('héllo ✓ ');
    server.enqueue(
      ndjson([
        first.slice(0, 20),
        `${first.slice(20)}\n`,
        line('wörld').replace('\n', '\r\n'),
        '\n',
        doneLine,
      ]),
    );
    const { events, error } = await collectCheckedStream(ollama.stream(ask()));
    expect(error).toBeUndefined();
    expect(texts(events)).toBe('héllo ✓ wörld');
    expect(completion(events).stop_reason).toBe('end_turn');
  });

  it('a stream that ends without done is a network error', async () => {
    const ollama = adapter();
    server.enqueue(ndjson([line('Hel')]));
    const { events, error } = await collectCheckedStream(ollama.stream(ask()));
    expect(texts(events)).toBe('Hel');
    expect(completion(events).stop_reason).toBe('error');
    expect(error).toBeInstanceOf(NetworkError);
  });
});

describe('nothing writes to the console (the setup file fails any test that does)', () => {
  it('a plain-text error body becomes a ServerError carrying its text', async () => {
    const ollama = adapter();
    server.enqueue({ type: 'text', status: 500, body: 'llama runner crashed' });
    const error = (await ollama.complete(ask()).catch((e: unknown) => e)) as AdapterError;
    expect(error).toBeInstanceOf(ServerError);
    expect(error.provider_status).toBe(500);
    expect(error.message).toContain('llama runner crashed');
  });

  it('an error body that claims JSON but is not keeps its text, streaming too', async () => {
    const ollama = adapter();
    server.enqueue({
      type: 'text',
      status: 502,
      headers: { 'content-type': 'application/json' },
      body: '<html>bad gateway</html>',
    });
    const { events, error } = await collectCheckedStream(ollama.stream(ask()));
    expect(events).toEqual([]);
    expect(error).toBeInstanceOf(ServerError);
    expect((error as AdapterError).message).toContain('<html>bad gateway</html>');
  });
});

describe('failures are classified by type, not by message wording', () => {
  it('a connection reset mid-stream is network, after the partial reply', async () => {
    const ollama = adapter();
    server.enqueue(ndjson([line('Hel')], 'destroy'));
    const { events, error } = await collectCheckedStream(ollama.stream(ask()));
    expect(texts(events)).toBe('Hel');
    expect(completion(events).stop_reason).toBe('error');
    expect(error).toBeInstanceOf(NetworkError);
  });

  it('a connection reset mid-body of complete() is network', async () => {
    const ollama = adapter();
    server.enqueue({
      type: 'stream',
      contentType: 'application/json',
      chunks: ['{"model":"qwen3:8b","message":'],
      ending: 'destroy',
    });
    await expect(ollama.complete(ask())).rejects.toBeInstanceOf(NetworkError);
  });

  it('a reply cut inside a string is server_error: "Unterminated string" is no broken connection', async () => {
    const ollama = adapter();
    server.enqueue({
      type: 'text',
      headers: { 'content-type': 'application/json' },
      body: '{"model":"qwen3:8b","message":{"role":"assistant","content":"unfinish',
    });
    const error = (await ollama.complete(ask()).catch((e: unknown) => e)) as AdapterError;
    expect(error).toBeInstanceOf(ServerError);
    expect(error.message).toContain('not valid JSON');
  });
});

describe('errors keep only a redacted copy of the client error', () => {
  const apiKey = 'proxy-pass-7Qm2x9Kd';
  const tenant = 'tenant-pass-4471zz';
  const leaks = (error: unknown) => {
    const shown = [inspect(error, { depth: 10 }), JSON.stringify(error), String(error)].join('\n');
    return [apiKey, tenant].filter((secret) => shown.includes(secret));
  };

  it('an error body echoing the API key and an extra header value', async () => {
    const ollama = adapter({ api_key: apiKey, extra_headers: { 'x-tenant': tenant } });
    server.enqueue({
      type: 'json',
      status: 401,
      body: { error: `invalid key ${apiKey} for tenant ${tenant}` },
    });
    const error = (await ollama.complete(ask()).catch((e: unknown) => e)) as AdapterError;
    expect(error).toBeInstanceOf(AuthError);
    expect(error.cause).toBeInstanceOf(Error);
    expect((error.cause as { error: string }).error).toContain('[REDACTED]');
    expect(leaks(error)).toEqual([]);
  });

  it('an in-stream error line echoing them, after the first event', async () => {
    const ollama = adapter({ api_key: apiKey, extra_headers: { 'x-tenant': tenant } });
    server.enqueue(
      ndjson([
        line('Hel'),
        `${JSON.stringify({ error: `upstream refused ${apiKey} / ${tenant}` })}\n`,
      ]),
    );
    const { events, error } = await collectCheckedStream(ollama.stream(ask()));
    expect(completion(events).stop_reason).toBe('error');
    expect(error).toBeInstanceOf(ServerError);
    expect((error as AdapterError).message).toContain('upstream refused [REDACTED]');
    expect(leaks(error)).toEqual([]);
  });
});

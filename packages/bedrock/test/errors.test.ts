import { inspect } from 'node:util';
import type { AdapterError, RateLimitError } from '@yourtool/core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { type AwsSandbox, awsSandbox } from './aws-env.js';
import { type BedrockServer, startBedrockServer } from './bedrock-server.js';
import { attempt, hello, REQUEST, transportFor } from './transport-context.js';

/**
 * Bedrock's failures, as the real SDK reports them from real HTTP replies and event-stream
 * frames, mapped to the contract's classes by the transport.
 */

const API_KEY = 'ABSKQmVkcm9ja0FQSUtleS1lcnJvcnMtdGVzdC0wMDAwMDAwMDAwMDA';
const REGION = { region: 'us-east-1' };

let server: BedrockServer;
let sandbox: AwsSandbox;
beforeAll(async () => {
  server = await startBedrockServer();
});
afterAll(() => server.close());
beforeEach(() => {
  server.reset();
  sandbox = awsSandbox();
});
afterEach(() => sandbox.dispose());

const transport = () => transportFor({ api_key: API_KEY, base_url: server.h2Url, options: REGION });

/** The adapter error a whole Converse call fails with. */
async function sendFailure(): Promise<AdapterError> {
  const t = transport();
  const error = await t.send(hello(), attempt()).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeDefined();
  return t.toAdapterError(error, REQUEST);
}

/** The adapter error a stream fails with, when it is opened or while it is read. */
async function streamFailure(): Promise<AdapterError> {
  const t = transport();
  try {
    for await (const _ of await t.open(hello(), attempt())) {
      // read to the end
    }
  } catch (error) {
    return t.toAdapterError(error, REQUEST);
  }
  throw new Error('the stream did not fail');
}

describe('HTTP errors', () => {
  const cases: Array<[string, number, string, string]> = [
    ['ThrottlingException', 429, 'Too many requests, please wait', 'rate_limit'],
    ['ServiceQuotaExceededException', 400, 'Quota exceeded for tokens', 'rate_limit'],
    ['ModelNotReadyException', 429, 'Model is not ready', 'rate_limit'],
    ['ModelTimeoutException', 408, 'Model timed out', 'network'],
    ['InternalServerException', 500, 'Internal error', 'server_error'],
    ['ServiceUnavailableException', 503, 'Service unavailable', 'server_error'],
    ['ModelErrorException', 424, 'The model failed', 'server_error'],
    ['AccessDeniedException', 403, 'You do not have access', 'auth'],
    ['UnrecognizedClientException', 403, 'The security token is invalid', 'auth'],
    ['ValidationException', 400, 'temperature: must be at most 1', 'invalid_request'],
    ['ResourceNotFoundException', 404, 'Model not found', 'invalid_request'],
    ['SomeNewException', 502, 'Bad gateway', 'server_error'],
  ];
  it.each(cases)('%s (%i) → %s', async (errorType, status, message, errorClass) => {
    server.enqueue({ status, errorType, json: { message } });
    const error = await sendFailure();
    expect(error.error_class).toBe(errorClass);
    expect(error.provider_status).toBe(status);
    expect(error.provider_message).toBe(message);
    expect(error.message).toContain(errorType);
    expect(error.request_id).toBe(REQUEST.request_id);
    expect(error.provider).toBe('bedrock');
  });

  it('a retry hint on a throttle (retry-after-ms, retry-after) becomes retry_after_seconds', async () => {
    server.enqueue(
      {
        status: 429,
        errorType: 'ThrottlingException',
        headers: { 'retry-after-ms': '250' },
        json: { message: 'slow down' },
      },
      {
        status: 429,
        errorType: 'ThrottlingException',
        headers: { 'retry-after': '3' },
        json: { message: 'slow down' },
      },
      { status: 429, errorType: 'ThrottlingException', json: { message: 'slow down' } },
    );
    const hints = [];
    for (let i = 0; i < 3; i++) {
      hints.push(((await sendFailure()) as RateLimitError).retry_after_seconds);
    }
    expect(hints).toEqual([0.25, 3, null]);
  });

  it("a reply that is not Bedrock's (a redirect to an HTML page) → by its status: other", async () => {
    server.enqueue({ status: 302, contentType: 'text/html', text: '<html>sign in</html>' });
    const error = await sendFailure();
    expect(error.error_class).toBe('other');
    expect(error.provider_status).toBe(302);
  });

  it("a reply that is not Bedrock's with a 502 → server_error", async () => {
    server.enqueue({ status: 502, contentType: 'text/html', text: '<html>bad gateway</html>' });
    expect((await sendFailure()).error_class).toBe('server_error');
  });

  it('says a model that is not found may not be enabled', async () => {
    server.enqueue({
      status: 404,
      errorType: 'ResourceNotFoundException',
      json: { message: 'Model not found' },
    });
    expect((await sendFailure()).message).toMatch(/not enabled for this account/);
  });

  const overflow = [
    'Input is too long for requested model.',
    'input length and `max_tokens` exceed context limit: 190000 + 20000 > 200000',
    'too many total text bytes: 9000000 > 8000000',
    'prompt is too long: 210000 tokens > 200000 maximum',
    'Input Tokens Exceeded: Number of input tokens exceeds maximum length',
  ];
  it.each(overflow)('ValidationException "%s" → context_overflow', async (message) => {
    server.enqueue({ status: 400, errorType: 'ValidationException', json: { message } });
    const error = await sendFailure();
    expect(error.error_class).toBe('context_overflow');
    expect(error.retryable).toBe(false);
  });

  it('redacts the API key and the AWS secrets from the message, provider message and cause', async () => {
    const secret = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYSECRETKEY';
    const session = 'FwoGZXIvYXdzEXAMPLESESSIONTOKEN0000000000';
    vi.stubEnv('AWS_SECRET_ACCESS_KEY', secret);
    vi.stubEnv('AWS_SESSION_TOKEN', session);
    server.enqueue({
      status: 400,
      errorType: 'ValidationException',
      json: { message: `bad header ${API_KEY} with ${secret} and ${session}` },
    });
    const error = await sendFailure();
    const everything = [
      error.message,
      error.provider_message,
      inspect(error, { depth: 10 }),
      inspect(error.cause, { depth: 10 }),
    ].join('\n');
    for (const value of [API_KEY, secret, session]) expect(everything).not.toContain(value);
    expect(error.provider_message).toContain('[REDACTED]');
  });
});

describe('failures below HTTP', () => {
  it('a refused connection → network', async () => {
    const closed = await startBedrockServer();
    const url = closed.h2Url;
    await closed.close();
    const t = transportFor({ api_key: API_KEY, base_url: url, options: REGION });
    const error = await t.send(hello(), attempt()).catch((e: unknown) => e);
    const mapped = t.toAdapterError(error, REQUEST);
    expect(mapped.error_class).toBe('network');
    expect(mapped.retryable).toBe(true);
  });

  it('a connection dropped before the reply → network (HTTP/1.1)', async () => {
    server.enqueue({ drop: true });
    const t = transportFor({
      api_key: API_KEY,
      base_url: server.http1Url,
      options: { ...REGION, http_version: '1.1' },
    });
    const error = await t.send(hello(), attempt()).catch((e: unknown) => e);
    expect(t.toAdapterError(error, REQUEST).error_class).toBe('network');
  });

  it('an abort before the reply → cancelled', async () => {
    server.enqueue({ stall: true });
    const controller = new AbortController();
    const t = transport();
    const opening = t.open(hello(), attempt(controller.signal));
    await vi.waitFor(() => expect(server.open()).toBe(1));
    controller.abort();
    const error = await opening.catch((e: unknown) => e);
    expect(t.toAdapterError(error, REQUEST).error_class).toBe('cancelled');
    await vi.waitFor(() => expect(server.closedByClient()).toBe(1));
  });

  it('an abort of an open stream closes its HTTP/2 stream on the server', async () => {
    server.enqueue({
      frames: [{ event: 'messageStart', payload: { role: 'assistant' } }],
      hold: true,
    });
    const controller = new AbortController();
    const stream = await transport().open(hello(), attempt(controller.signal));
    const iterator = stream[Symbol.asyncIterator]();
    expect((await iterator.next()).value).toEqual({ messageStart: { role: 'assistant' } });
    controller.abort();
    await vi.waitFor(() => expect(server.closedByClient()).toBe(1));
  });

  it.each(['2', '1.1'] as const)(
    'a reader that stops early closes the stream (HTTP/%s)',
    async (httpVersion) => {
      server.enqueue({
        frames: [{ event: 'messageStart', payload: { role: 'assistant' } }],
        hold: true,
      });
      const t = transportFor({
        api_key: API_KEY,
        base_url: httpVersion === '2' ? server.h2Url : server.http1Url,
        options: { ...REGION, http_version: httpVersion },
      });
      for await (const event of await t.open(hello(), attempt())) {
        expect(event).toEqual({ messageStart: { role: 'assistant' } });
        break;
      }
      await vi.waitFor(() => expect(server.closedByClient()).toBe(1));
    },
  );

  it('no Region anywhere → auth, naming where to set one', async () => {
    const t = transportFor({ api_key: API_KEY, base_url: server.h2Url });
    const error = await t.send(hello(), attempt()).catch((e: unknown) => e);
    const mapped = t.toAdapterError(error, REQUEST);
    expect(mapped.error_class).toBe('auth');
    expect(mapped.message).toMatch(/options\.region.*AWS_REGION/);
    expect(server.requests).toHaveLength(0);
  });
});

describe('stream errors', () => {
  const start = { event: 'messageStart', payload: { role: 'assistant' } } as const;
  const delta = {
    event: 'contentBlockDelta',
    payload: { contentBlockIndex: 0, delta: { text: 'partial' } },
  } as const;

  it('an exception in the first frame fails the open: throttling → rate_limit', async () => {
    server.enqueue({
      frames: [{ exception: 'throttlingException', payload: { message: 'Too many tokens' } }],
    });
    const error = await streamFailure();
    expect(error.error_class).toBe('rate_limit');
    expect(error.provider_status).toBeNull();
    expect(error.provider_message).toBe('Too many tokens');
  });

  const later: Array<[string, string]> = [
    ['throttlingException', 'rate_limit'],
    ['modelStreamErrorException', 'server_error'],
    ['internalServerException', 'server_error'],
    ['serviceUnavailableException', 'server_error'],
    ['validationException', 'invalid_request'],
  ];
  it.each(later)('%s after events, thrown by the iterator → %s', async (type, errorClass) => {
    server.enqueue({ frames: [start, delta, { exception: type, payload: { message: 'boom' } }] });
    const error = await streamFailure();
    expect(error.error_class).toBe(errorClass);
    expect(error.message).toMatch(/bedrock in the stream \w+Exception: boom/);
  });

  it('a context overflow reported in the stream → context_overflow', async () => {
    server.enqueue({
      frames: [
        start,
        {
          exception: 'validationException',
          payload: { message: 'Input is too long for requested model.' },
        },
      ],
    });
    expect((await streamFailure()).error_class).toBe('context_overflow');
  });

  it('a frame cut short → network', async () => {
    const whole = (await import('./bedrock-server.js')).encodeFrame(delta);
    server.enqueue({ frames: [start, { raw: whole.subarray(0, whole.length - 5) }] });
    const error = await streamFailure();
    expect(error.error_class).toBe('network');
    expect(error.message).toMatch(/event stream broke/);
  });

  it('a frame whose CRC does not match → network', async () => {
    const bytes = Uint8Array.from((await import('./bedrock-server.js')).encodeFrame(delta));
    bytes[bytes.length - 1] = (bytes[bytes.length - 1] ?? 0) ^ 0xff;
    server.enqueue({ frames: [start, { raw: bytes }] });
    expect((await streamFailure()).error_class).toBe('network');
  });
});

/**
 * The adapter reads the SSE body itself (decision 0147): every stream must map to exactly what
 * it mapped to when `@google/genai`'s `generateContentStream` parsed it. Each case runs the
 * same scripted responses through the adapter and through the same adapter with the SDK's
 * own stream as `open` (the path it replaced), and compares the canonical events, the error
 * and the requests the server received.
 */

import { fileURLToPath } from 'node:url';
import {
  type GenerateContentParameters,
  type GenerateContentResponse,
  GoogleGenAI,
} from '@google/genai';
import {
  type LoopbackServer,
  loadFixtureDirectory,
  type ScriptedResponse,
  startLoopbackServer,
} from '@yourtool/conformance';
import {
  type AdapterConfigInput,
  createMessage,
  newRequestId,
  newSessionId,
  type ProviderAdapter,
  type StreamEvent,
} from '@yourtool/core';
import { WireAdapter, type WireAttempt } from '@yourtool/core/adapter';
import { normalizedEvents, recordedSseStreams } from '@yourtool/testkit/stream-parity';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { googleParts } from '../src/adapter.js';
import type { GeminiResponseLike } from '../src/codec/response.js';
import { GoogleAdapter } from '../src/index.js';

const KEY = 'gemini-test-0000000000';
const fixtures = loadFixtureDirectory(fileURLToPath(new URL('./fixtures', import.meta.url)));

let server: LoopbackServer;
beforeAll(async () => {
  server = await startLoopbackServer();
});
afterAll(() => server.close());

const config = (vertex: boolean): AdapterConfigInput => ({
  api_key: KEY,
  base_url: server.url,
  max_retries: 0,
  ...(vertex ? { options: { vertexai: true } } : {}),
});

/** The adapter as it was: the SDK's own parsed stream (its transport's `open` replaced). */
function sdkStreamAdapter(vertex: boolean): ProviderAdapter {
  const client = new GoogleGenAI({
    apiKey: KEY,
    vertexai: vertex,
    httpOptions: { baseUrl: server.url, headers: {} },
  });
  const open = async (params: GenerateContentParameters, { signal }: WireAttempt) =>
    client.models.generateContentStream({
      ...params,
      config: { ...params.config, abortSignal: signal },
    });
  return new WireAdapter<GenerateContentParameters, GenerateContentResponse, GeminiResponseLike>(
    { name: 'google', label: 'Google' },
    config(vertex),
    {},
    (context) => {
      const parts = googleParts(context);
      const { transport } = parts;
      return {
        ...parts,
        transport: {
          send: (params, attempt) => transport.send(params, attempt),
          open,
          toAdapterError: (error, request) => transport.toAdapterError(error, request),
          serverUrl: () => transport.serverUrl?.(),
        },
      };
    },
  );
}

const session_id = newSessionId();

async function run(adapter: ProviderAdapter, responses: ScriptedResponse[], request_id: string) {
  server.reset();
  server.enqueue(...responses);
  const events: StreamEvent[] = [];
  let error: unknown;
  try {
    const request = {
      request_id,
      model: 'google:gemini-3-pro-preview',
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
    events: normalizedEvents(events),
    error: e && {
      name: e.name,
      class: e.error_class,
      status: e.provider_status,
      message: e.message,
    },
    requests: server.requests.map(({ method, path, headers, body }) => ({
      method,
      path,
      headers,
      body,
    })),
  };
}

/** Runs `responses` both ways and expects the same; returns the adapter's run. */
async function same(responses: ScriptedResponse[], vertex = false) {
  const request_id = newRequestId();
  const ours = await run(new GoogleAdapter(config(vertex)), responses, request_id);
  const theirs = await run(sdkStreamAdapter(vertex), responses, request_id);
  expect(ours).toEqual(theirs);
  return ours;
}

const stream = (chunks: string[], extra: Partial<ScriptedResponse> = {}): ScriptedResponse =>
  ({ type: 'stream', contentType: 'text/event-stream', chunks, ...extra }) as ScriptedResponse;
const data = (value: unknown, end = '\r\n\r\n') => `data: ${JSON.stringify(value)}${end}`;
const usage = { promptTokenCount: 12, totalTokenCount: 12 };
const done = { promptTokenCount: 12, candidatesTokenCount: 9, totalTokenCount: 21 };
const chunk = (text: string, candidate: Record<string, unknown> = {}, top = {}) => ({
  candidates: [{ content: { role: 'model', parts: [{ text }] }, index: 0, ...candidate }],
  usageMetadata: usage,
  modelVersion: 'gemini-3-pro-preview',
  responseId: 'resp_body',
  ...top,
});
const last = (text: string, candidate: Record<string, unknown> = {}) =>
  chunk(text, { finishReason: 'STOP', ...candidate }, { usageMetadata: done });
const apiError = {
  error: { code: 503, status: 'UNAVAILABLE', message: 'The model is overloaded.' },
};
type Completed = Extract<StreamEvent, { type: 'message.complete' }>;
const completion = (events: unknown) => (events as StreamEvent[]).at(-1) as Completed;

describe('recorded stream fixtures map as through the SDK', () => {
  for (const [scenario, streams] of recordedSseStreams(fixtures)) {
    it(scenario, async () => {
      const ours = await same(streams);
      expect((ours.events as unknown[]).length).toBeGreaterThan(1);
    });
  }
});

describe('what the SDK made of each event', () => {
  it('an error object mid-stream fails with its status; the text before it is kept', async () => {
    const ours = await same([stream([data(chunk('Hello')), data(apiError), data(last('!'))])]);
    expect(ours.error).toMatchObject({ class: 'server_error', status: 503 });
    expect(completion(ours.events)).toMatchObject({ stop_reason: 'error' });
  });

  it('an error object as the first event fails before any event', async () => {
    const quota = { error: { code: 429, status: 'RESOURCE_EXHAUSTED', message: 'Quota.' } };
    const ours = await same([stream([data(quota)])]);
    expect(ours.error).toMatchObject({ class: 'rate_limit', status: 429 });
    expect(ours.events).toEqual([]);
  });

  it('an error object whose code is not an HTTP error, and JSON that is no object, are skipped', async () => {
    const odd = ['null', '5', '[]', '"text"'].map((json) => `data: ${json}\n\n`);
    const ignored = data({ error: { code: 200, status: 'OK' } });
    const ours = await same([stream([data(chunk('a')), ignored, ...odd, data(last('b'))])]);
    expect(completion(ours.events)).toMatchObject({ final_content: [{ text: 'ab' }] });
  });

  it('named events and comments are skipped; \\n\\n and \\r\\r end events too', async () => {
    const named = `event: ping\ndata: ${JSON.stringify(chunk('x'))}\n\n`;
    const ours = await same([
      stream([data(chunk('a'), '\n\n'), named, ': keep-alive\n\n', data(last('b'), '\r\r')]),
    ]);
    expect(completion(ours.events)).toMatchObject({ final_content: [{ text: 'ab' }] });
  });

  it('a reply whose last event is unfinished fails as the SDK failed it', async () => {
    const ours = await same([stream([data(chunk('a')), data(last('b'), '\n')])]);
    expect(ours.error).toMatchObject({ class: 'other' });
    expect(ours.error?.message).toContain('Incomplete JSON segment at the end');
  });

  it('a body that is one JSON error object is that error', async () => {
    const quota = { error: { code: 429, status: 'RESOURCE_EXHAUSTED', message: 'Quota.' } };
    const ours = await same([stream([JSON.stringify(quota)])]);
    expect(ours.error).toMatchObject({ class: 'rate_limit', status: 429 });
  });

  for (const vertex of [false, true]) {
    it(`finishMessage and a null first candidate, as the ${vertex ? 'Vertex' : 'Gemini API'} converter left them`, async () => {
      const blocked = { finishReason: 'SAFETY', finishMessage: 'Blocked for safety.' };
      const one = await same([stream([data(chunk('a')), data(last('', blocked))])], vertex);
      const raw = (completion(one.events).provider_raw as { google: Record<string, unknown> })
        .google;
      expect(raw.finish_message).toBe(vertex ? 'Blocked for safety.' : undefined);
      const feedback = { promptFeedback: { blockReason: 'SAFETY' }, usageMetadata: usage };
      await same([stream([data({ candidates: [null], ...feedback }), data(last('b'))])], vertex);
    });
  }

  it('data that is not JSON is server_error naming the line (the SDK threw a SyntaxError)', async () => {
    const request_id = newRequestId();
    const responses = [stream([data(chunk('a')), 'data: {"candidates": [\n\n'])];
    const ours = await run(new GoogleAdapter(config(false)), responses, request_id);
    const theirs = await run(sdkStreamAdapter(false), responses, request_id);
    expect({ ...ours, error: ours.error?.class }).toEqual({
      ...theirs,
      error: theirs.error?.class,
    });
    expect(ours.error).toMatchObject({ name: 'MalformedStreamError', class: 'server_error' });
    expect(ours.error?.message).toMatch(
      /line 4 ends a "message" event whose data is not valid JSON/,
    );
  });
});

describe('automatic continuation, hop by hop as the SDK did it', () => {
  const checkpoint = (text: string, token: string, finish?: string) =>
    chunk(text, { continuationToken: token, ...(finish ? { finishReason: finish } : {}) });

  it('a CONTINUATION finish sends the request again with the token; usage adds up', async () => {
    const ours = await same([
      stream([data(chunk('a')), data(checkpoint('b', 'tok-1', 'CONTINUATION'))]),
      stream([data(chunk('c')), data(last('d'))]),
    ]);
    expect(ours.requests).toHaveLength(2);
    expect(ours.requests[1]?.body).toMatchObject({ continuationToken: 'tok-1' });
    expect(completion(ours.events)).toMatchObject({
      stop_reason: 'end_turn',
      final_content: [{ text: 'abcd' }],
      usage: { input_tokens: 24, output_tokens: 9 },
    });
  });

  it('a connection lost after a checkpoint resumes from it', async () => {
    const ours = await same([
      stream([data(checkpoint('a', 'tok-1')), 'data: {"candid'], { ending: 'destroy' }),
      stream([data(last('b'))]),
    ]);
    expect(ours.requests).toHaveLength(2);
    expect(completion(ours.events)).toMatchObject({ final_content: [{ text: 'ab' }] });
  });

  it('an error event after a checkpoint resumes from it', async () => {
    const ours = await same([
      stream([data(checkpoint('a', 'tok-1')), data(apiError), data(chunk('lost'))]),
      stream([data(last('b'))]),
    ]);
    expect(completion(ours.events)).toMatchObject({ final_content: [{ text: 'ab' }] });
  });

  it('a hop that breaks before any content is retried from its token, up to three times', async () => {
    const broken = stream([], { ending: 'destroy' });
    const ours = await same([
      stream([data(checkpoint('a', 'tok-1', 'CONTINUATION'))]),
      broken,
      broken,
      broken,
      broken,
    ]);
    expect(ours.requests).toHaveLength(5);
    expect(ours.error).toMatchObject({ class: 'network' });
  });

  it('a refused hop fails the stream with its status', async () => {
    const refused: ScriptedResponse = {
      type: 'json',
      status: 400,
      body: { error: { code: 400, status: 'INVALID_ARGUMENT', message: 'Bad token.' } },
    };
    const ours = await same([stream([data(checkpoint('a', 'tok-1', 'CONTINUATION'))]), refused]);
    expect(ours.error).toMatchObject({ class: 'invalid_request', status: 400 });
    expect(completion(ours.events)).toMatchObject({ stop_reason: 'error' });
  });
});

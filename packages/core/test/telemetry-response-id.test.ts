import { type InstalledOtel, installOtel } from '@yourtool/testkit/otel';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  type AdapterCallSetup,
  type CanonicalResponse,
  collectStream,
  InflightCalls,
  NetworkError,
  resetOtelApiForTests,
  runCompleteCall,
  runStreamCall,
  type StreamBuilder,
  type StreamEvent,
} from './exports.js';
import { msg } from './helpers.js';

// gen_ai.response.id comes from the canonical provider_response_id (decision 0157): core reads
// provider_raw only for an adapter that does not set the field. Each reply here holds a
// different id in provider_raw, which must lose.

const setup = (): AdapterCallSetup => ({
  provider: 'fake',
  inflight: new InflightCalls(),
  maxRetries: 0,
  toAdapterError: (error) => new NetworkError(String(error)),
});

const request = (stream: boolean) => ({
  request_id: `req_${Math.random().toString(36).slice(2)}`,
  model: 'fake:model',
  max_output_tokens: 100,
  messages: [msg('user', [{ type: 'text', text: 'hi' }])],
  stream,
});

const response = (overrides: Partial<CanonicalResponse>): CanonicalResponse => ({
  request_id: 'req_x',
  model: 'fake:model',
  provider: 'fake',
  content: [{ type: 'text', text: 'hello' }],
  stop_reason: 'end_turn',
  usage: {
    input_tokens: 3,
    output_tokens: 1,
    cached_input_tokens: 0,
    cache_creation_input_tokens: 0,
  },
  latency_ms: 5,
  ...overrides,
});

async function* reply(): AsyncIterable<{ done: boolean }> {
  yield { done: false };
  yield { done: true };
}

let otel: InstalledOtel | null = null;
beforeEach(() => {
  otel = installOtel();
});
afterEach(async () => {
  await otel?.uninstall();
  otel = null;
  resetOtelApiForTests();
});

const responseIds = () => otel?.spans().map((s) => s.attributes['gen_ai.response.id']);

describe('gen_ai.response.id', () => {
  it('is provider_response_id of a complete() reply and of a stream, not provider_raw’s id, which only an adapter without the field gives', async () => {
    await runCompleteCall(setup(), request(false), {}, async () =>
      response({ provider_response_id: 'msg_canonical', provider_raw: { fake: { id: 'raw_1' } } }),
    );
    const onChunk = (chunk: { done: boolean }, builder: StreamBuilder): StreamEvent[] => {
      if (!chunk.done) return builder.text(0, 'hello');
      builder.providerResponseId('resp_canonical');
      return builder.complete('end_turn', { fake: { id: 'raw_2' } });
    };
    const { error } = await collectStream(
      runStreamCall(setup(), request(true), {}, { open: async () => reply(), onChunk }),
    );
    expect(error).toBeUndefined();
    // an adapter that does not set the field (built before it): provider_raw's id
    await runCompleteCall(setup(), request(false), {}, async () =>
      response({ provider_raw: { fake: { id: 'raw_only' } } }),
    );
    expect(responseIds()).toEqual(['msg_canonical', 'resp_canonical', 'raw_only']);
  });
});

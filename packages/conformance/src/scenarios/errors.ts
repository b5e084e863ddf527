import {
  type AdapterError,
  AdapterError as AdapterErrorClass,
  type AttemptEvent,
  type ErrorClass,
} from '@yourtool/core';
import { createAdapterError } from '@yourtool/core/adapter';
import { expect } from 'vitest';
import { collectCheckedStream, completeEvent, streamedText } from '../assertions.js';
import { EXPECTED, type ScenarioName } from '../catalog.js';
import type { ScenarioKit } from '../kit.js';
import { derivedStream } from './shared.js';

const ERROR_CLASSES: ErrorClass[] = [
  'rate_limit',
  'auth',
  'server_error',
  'network',
  'context_overflow',
  'invalid_request',
  'other',
];

/**
 * Failures: each error class, replies that break, retries (hinted, transient, exhausted, never
 * for auth) and streams that fail before, during or instead of their first event.
 */
export function registerErrorScenarios(kit: ScenarioKit): void {
  for (const errorClass of ERROR_CLASSES) {
    kit.scenario(`error-${errorClass}` as ScenarioName, () => errorClassified(kit, errorClass));
  }
  kit.scenario('error-malformed-reply', () => errorMalformedReply(kit));
  kit.scenario('error-network-eof', () => errorNetworkEof(kit));
  kit.scenario('retry-after', () => retryAfter(kit));
  kit.scenario('overloaded-then-success', () => overloadedThenSuccess(kit));
  kit.scenario('retries-exhausted', () => retriesExhausted(kit));
  kit.scenario('auth-not-retried', () => authNotRetried(kit));
  kit.scenario('stream-error-before-first-event', () => streamErrorBeforeFirstEvent(kit));
  kit.scenario('stream-error-mid-stream', () => streamErrorMidStream(kit));
  kit.scenario('stream-empty', () => streamEmpty(kit));
}

async function errorClassified(kit: ScenarioKit, errorClass: ErrorClass): Promise<void> {
  const { setup, request, user } = kit;
  const s = setup(`error-${errorClass}` as ScenarioName, { maxRetries: 0 });
  const req = request({ messages: [user(s, 'Hi')] });
  const error = await s.adapter.complete(req).then(
    () => {
      throw new Error(`expected the call to fail with ${errorClass}`);
    },
    (e: unknown) => e,
  );
  expect(error, 'failures are AdapterError subclasses').toBeInstanceOf(AdapterErrorClass);
  const adapterError = error as AdapterError;
  expect(
    adapterError.error_class,
    `classify this failure as ${errorClass} (status table + the provider's error body)`,
  ).toBe(errorClass);
  expect(error, 'throw the most specific subclass').toBeInstanceOf(
    createAdapterError(errorClass, '').constructor,
  );
  expect(adapterError.request_id).toBe(req.request_id);
  expect(kit.server().requests, 'with max_retries 0 exactly one request is made').toHaveLength(1);
  kit.expectNoSecret(s, error);
}

async function errorMalformedReply(kit: ScenarioKit): Promise<void> {
  const { setup, request, user } = kit;
  const s = setup('error-malformed-reply', { maxRetries: 0 });
  const error = await s.adapter
    .complete(request({ messages: [user(s, 'Hi')] }))
    .catch((e: unknown) => e);
  expect(error, 'failures are AdapterError subclasses').toBeInstanceOf(AdapterErrorClass);
  expect(
    (error as AdapterError).error_class,
    'a reply that arrived but does not parse is server_error (the provider answered with something broken), ' +
      'never network by the wording of the parser\'s message ("Unterminated string"): classify with core\'s classifyTransportFailure',
  ).toBe('server_error');
  expect(kit.server().requests).toHaveLength(1);
  kit.expectNoSecret(s, error);
}

async function errorNetworkEof(kit: ScenarioKit): Promise<void> {
  const { setup, request, user } = kit;
  const s = setup('error-network-eof', { maxRetries: 0 });
  const error = await s.adapter
    .complete(request({ messages: [user(s, 'Hi')] }))
    .catch((e: unknown) => e);
  expect(error, 'failures are AdapterError subclasses').toBeInstanceOf(AdapterErrorClass);
  expect(
    (error as AdapterError).error_class,
    'a connection closed mid-body (undici: terminated, caused by HPE_INVALID_EOF_STATE) is network, so it is retried and falls back: ' +
      "classify with core's classifyTransportFailure",
  ).toBe('network');
  expect(kit.server().requests).toHaveLength(1);
  kit.expectNoSecret(s, error);
}

async function retryAfter(kit: ScenarioKit): Promise<void> {
  const { setup, request, user } = kit;
  const s = setup('retry-after', { maxRetries: 2 });
  const attempts: AttemptEvent[] = [];
  const res = await s.adapter.complete(request({ messages: [user(s, EXPECTED.text.prompt)] }), {
    onAttempt: (e) => attempts.push(e),
  });
  expect(res.content).toEqual([{ type: 'text', text: EXPECTED.text.reply }]);
  expect(kit.server().requests).toHaveLength(2);
  const failed = attempts.find((a) => a.type === 'attempt.failed');
  expect(failed, 'the first attempt fails with rate_limit').toMatchObject({
    error: { error_class: 'rate_limit' },
    will_retry: true,
  });
  expect(
    failed?.type === 'attempt.failed' && failed.delay_ms,
    "the provider's retry hint (0.1 s) must replace the backoff: read retry-after / retry-after-ms into RateLimitError.retry_after_seconds",
  ).toBe(100);
}

async function overloadedThenSuccess(kit: ScenarioKit): Promise<void> {
  const { setup, request, user } = kit;
  const s = setup('overloaded-then-success', { maxRetries: 2 });
  const attempts: AttemptEvent[] = [];
  const res = await s.adapter.complete(request({ messages: [user(s, EXPECTED.text.prompt)] }), {
    onAttempt: (e) => attempts.push(e),
  });
  expect(res.content).toEqual([{ type: 'text', text: EXPECTED.text.reply }]);
  expect(kit.server().requests).toHaveLength(2);
  const failed = attempts.find((a) => a.type === 'attempt.failed');
  expect(
    failed?.type === 'attempt.failed' &&
      ['rate_limit', 'server_error'].includes(failed.error.error_class),
    'overloaded is transient',
  ).toBe(true);
  expect(attempts.map((a) => a.type)).toEqual([
    'attempt.start',
    'attempt.failed',
    'attempt.start',
    'attempt.succeeded',
  ]);
}

async function retriesExhausted(kit: ScenarioKit): Promise<void> {
  const { setup, request, user } = kit;
  const s = setup('retries-exhausted', {
    maxRetries: 2,
    fixtureOf: 'error-server_error',
    times: 3,
  });
  const error = (await s.adapter
    .complete(request({ messages: [user(s, 'Hi')] }))
    .catch((e: unknown) => e)) as AdapterError;
  expect(error.error_class).toBe('server_error');
  expect(error.retryable, 'after exhausting retries the error says the class is transient').toBe(
    true,
  );
  expect(error.attempts, 'total attempts = 1 + max_retries').toBe(3);
  expect(kit.server().requests).toHaveLength(3);
}

async function authNotRetried(kit: ScenarioKit): Promise<void> {
  const { setup, request, user } = kit;
  const s = setup('auth-not-retried', { maxRetries: 2, fixtureOf: 'error-auth', times: 3 });
  const error = (await s.adapter
    .complete(request({ messages: [user(s, 'Hi')] }))
    .catch((e: unknown) => e)) as AdapterError;
  expect(error.error_class).toBe('auth');
  expect(error.retryable).toBe(false);
  const server = kit.server();
  expect(server.requests, 'auth errors are never retried: exactly one request').toHaveLength(1);
  server.reset();
}

async function streamErrorBeforeFirstEvent(kit: ScenarioKit): Promise<void> {
  const { setup, request, user } = kit;
  const s = setup('stream-error-before-first-event', { fixtureOf: 'error-server_error' });
  const { events, error } = await collectCheckedStream(
    s.adapter.stream(request({ messages: [user(s, 'Hi')], stream: true })),
  );
  expect(events, 'a failure before the first event yields no events').toEqual([]);
  expect((error as AdapterError)?.error_class).toBe('server_error');
}

async function streamErrorMidStream(kit: ScenarioKit): Promise<void> {
  const { setup, request, user } = kit;
  const s = setup('stream-error-mid-stream');
  const { events, error } = await collectCheckedStream(
    s.adapter.stream(request({ messages: [user(s, EXPECTED.text.prompt)], stream: true })),
  );
  expect(error, 'after message.complete the stream must throw the failure').toBeInstanceOf(
    AdapterErrorClass,
  );
  expect((error as AdapterError).error_class).not.toBe('cancelled');
  const partial = streamedText(events);
  expect(partial.length, 'the fixture must deliver some text before it breaks').toBeGreaterThan(0);
  const done = completeEvent(events);
  expect(done.stop_reason, 'a mid-stream failure completes with stop_reason error').toBe('error');
  expect(done.final_content, 'and the partial content').toEqual([{ type: 'text', text: partial }]);
}

async function streamEmpty(kit: ScenarioKit): Promise<void> {
  const { setup, request, user } = kit;
  const s = setup('stream-empty', {
    maxRetries: 1,
    times: 2,
    responses: [derivedStream(kit, 'cancel-mid-text', { chunks: [], ending: 'end' })],
  });
  const { events, error } = await collectCheckedStream(
    s.adapter.stream(request({ messages: [user(s, 'Hi')], stream: true })),
  );
  expect(events, 'a stream that ended before its first event yields no events').toEqual([]);
  expect(
    (error as AdapterError)?.error_class,
    'an empty stream is a network failure (the reply never came)',
  ).toBe('network');
  expect(kit.server().requests, 'and it is retried like one').toHaveLength(2);
}

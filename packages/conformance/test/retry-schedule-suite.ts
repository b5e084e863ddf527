/**
 * The attempts and the backoff of refused and cut connections, with the defaults (decision
 * 0159): every adapter package runs this from its own `test/reliability-retries.test.ts`,
 * through its real SDK, against a closed port and against the loopback server cutting the
 * connection. The adapters are built with `max_retries` left at its default (2) and core's default
 * backoff (no `retry` option), so what is asserted is what an application gets: 3 attempts and
 * two waits of `1 s × 2^n` plus up to 1 s of jitter (3-5 s in all). The waits are read from the
 * delays the retry reports through `onAttempt`, never from a clock.
 */

import { createServer } from 'node:net';
import { type ScriptedResponse, startLoopbackServer } from '@yourtool/conformance';
import type {
  AdapterConfigInput,
  AttemptEvent,
  CanonicalRequestInput,
  ProviderAdapter,
  StreamEvent,
} from '@yourtool/core';
import { createMessage, newRequestId, newSessionId } from '@yourtool/core';
import { describe, expect, it } from 'vitest';

/** What the suite needs to build one adapter. */
export interface RetryScheduleOptions {
  /** The adapter's name, for the describe block. */
  name: string;
  /** A model id the adapter serves (`provider:name`). */
  model: string;
  /**
   * The adapter for `base_url`, with the config given (`api_key`, `base_url`) and nothing about
   * retries: the defaults are what is tested.
   */
  createAdapter(config: Pick<AdapterConfigInput, 'api_key' | 'base_url'>): ProviderAdapter;
}

/** A port nothing listens on: bound once, then closed. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

/** Runs `call`, recording every attempt event; returns them with what it threw. */
async function attempted(
  call: (onAttempt: (e: AttemptEvent) => void) => Promise<unknown>,
): Promise<{ attempts: AttemptEvent[]; error: unknown }> {
  const attempts: AttemptEvent[] = [];
  const error = await call((e) => attempts.push(e)).then(
    () => undefined,
    (e: unknown) => e,
  );
  return { attempts, error };
}

/**
 * The default schedule: three attempts, a `network` error carrying `attempts: 3`, waits of
 * 1-2 s and 2-3 s reported before the second and the third, none after the last.
 */
function expectDefaultSchedule({ attempts, error }: { attempts: AttemptEvent[]; error: unknown }) {
  expect(error).toMatchObject({ error_class: 'network', attempts: 3, retryable: true });
  expect(attempts.filter((e) => e.type === 'attempt.start').map((e) => e.retry_count)).toEqual([
    0, 1, 2,
  ]);
  const failed = attempts.flatMap((e) => (e.type === 'attempt.failed' ? [e] : []));
  expect(failed.map((e) => [e.error.error_class, e.will_retry])).toEqual([
    ['network', true],
    ['network', true],
    ['network', false],
  ]);
  const [first, second, last] = failed.map((e) => e.delay_ms);
  expect(first).toBeGreaterThanOrEqual(1000);
  expect(first).toBeLessThanOrEqual(2000);
  expect(second).toBeGreaterThanOrEqual(2000);
  expect(second).toBeLessThanOrEqual(3000);
  expect(last).toBeNull();
  const waited = (first ?? 0) + (second ?? 0);
  expect(waited).toBeGreaterThanOrEqual(3000);
  expect(waited).toBeLessThanOrEqual(5000);
}

/** Drains a stream, returning the events it yielded before it threw. */
async function drain(stream: AsyncIterable<StreamEvent>, events: StreamEvent[]): Promise<void> {
  for await (const event of stream) events.push(event);
}

/** Registers the suite: five faults, each in its own server, run concurrently (about 5 s in all). */
export function describeRetrySchedule(options: RetryScheduleOptions): void {
  const session_id = newSessionId();
  const ask = (stream: boolean): CanonicalRequestInput => ({
    request_id: newRequestId(),
    model: options.model,
    max_output_tokens: 64,
    stream,
    messages: [
      createMessage({ session_id, role: 'user', content: [{ type: 'text', text: 'hi' }] }),
    ],
  });
  const adapterAt = (base_url: string) =>
    options.createAdapter({ api_key: 'retry-schedule-key', base_url });

  /**
   * Calls `complete()` or drains `stream()` against `url`: the attempt events and what it threw,
   * and (for a stream) that it yielded no event.
   */
  async function schedule(url: string, call: 'complete' | 'stream') {
    const adapter = adapterAt(url);
    const events: StreamEvent[] = [];
    try {
      const outcome = await attempted((onAttempt) =>
        call === 'complete'
          ? adapter.complete(ask(false), { onAttempt })
          : drain(adapter.stream(ask(true), { onAttempt }), events),
      );
      expect(events).toEqual([]);
      return outcome;
    } finally {
      await adapter.close();
    }
  }

  /** Where a fault comes from: a closed port, or a loopback server answering with `reply`. */
  type Fault = { name: string; call: 'complete' | 'stream'; reply?: () => ScriptedResponse };
  const hangup = (): ScriptedResponse => ({ type: 'hangup' });
  const cutBody = (): ScriptedResponse => ({
    type: 'stream',
    contentType: 'application/json',
    chunks: ['{"id":"cut-short","text":"Hel'],
    ending: 'destroy',
  });
  const faults: Fault[] = [
    { name: 'connection refused, complete()', call: 'complete' },
    { name: 'connection refused, stream() (no event)', call: 'stream' },
    { name: 'connection closed before any reply, complete()', call: 'complete', reply: hangup },
    { name: 'connection closed before the first event, stream()', call: 'stream', reply: hangup },
    { name: 'connection reset mid-body, complete()', call: 'complete', reply: cutBody },
  ];

  describe.concurrent(`${options.name}: default retries of refused and cut connections`, () => {
    it.each(faults)(
      '$name: 3 attempts, waits of 1-2 s then 2-3 s',
      { timeout: 20_000 },
      async ({ call, reply }) => {
        if (!reply) {
          expectDefaultSchedule(await schedule(`http://127.0.0.1:${await closedPort()}`, call));
          return;
        }
        const server = await startLoopbackServer();
        try {
          server.enqueue(reply(), reply(), reply(), reply());
          expectDefaultSchedule(await schedule(server.url, call));
          expect(server.requests).toHaveLength(3);
        } finally {
          await server.close();
        }
      },
    );
  });
}

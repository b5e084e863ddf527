import { type AdapterError, AdapterError as AdapterErrorClass } from '@yourtool/core';
import { expect } from 'vitest';
import { collectCheckedStream, completeEvent, streamedText } from '../assertions.js';
import { EXPECTED } from '../catalog.js';
import type { ScenarioKit } from '../kit.js';
import { ABORT_ADVICE, derivedStream, stalledTextReply } from './shared.js';

const TIMEOUT_ADVICE =
  'pass timeoutSeconds / idleTimeoutSeconds from the context into the adapter config ' +
  '(timeout_seconds, idle_timeout_seconds) and run calls through core’s runCompleteCall / ' +
  'runStreamCall (AdapterBase.callSetup), which own both deadlines; an SDK’s own timeout ' +
  'stops once response headers arrive';

/** Deadlines: a whole reply that stalls, a stream silent before or after its first event. */
export function registerDeadlineScenarios(kit: ScenarioKit): void {
  kit.scenario('timeout-complete-stall', () => timeoutCompleteStall(kit));
  kit.scenario('timeout-stream-before-first-event', () => timeoutStreamBeforeFirstEvent(kit));
  kit.scenario('timeout-stream-idle', () => timeoutStreamIdle(kit));
}

async function timeoutCompleteStall(kit: ScenarioKit): Promise<void> {
  const { setup, request, user } = kit;
  const s = setup('timeout-complete-stall', {
    maxRetries: 1,
    times: 2,
    responses: [stalledTextReply(kit)],
    timeoutSeconds: 0.3,
  });
  const error = (await s.adapter
    .complete(request({ messages: [user(s, EXPECTED.text.prompt)] }))
    .catch((e: unknown) => e)) as AdapterError;
  expect(error, `the call must fail once timeout_seconds passes: ${TIMEOUT_ADVICE}`).toBeInstanceOf(
    AdapterErrorClass,
  );
  expect(error.error_class, 'a passed deadline is a network failure').toBe('network');
  expect(error.attempts, 'retried like any network failure (1 + max_retries)').toBe(2);
  const server = kit.server();
  expect(server.requests).toHaveLength(2);
  await expect
    .poll(() => server.requests.every((r) => r.aborted), {
      timeout: 2000,
      message: `each timed-out attempt must close its HTTP request: ${ABORT_ADVICE}`,
    })
    .toBe(true);
}

async function timeoutStreamBeforeFirstEvent(kit: ScenarioKit): Promise<void> {
  const { setup, request, user } = kit;
  const s = setup('timeout-stream-before-first-event', {
    maxRetries: 1,
    times: 2,
    responses: [derivedStream(kit, 'cancel-mid-text', { chunks: [], ending: 'stall' })],
    timeoutSeconds: 0.3,
  });
  const { events, error } = await collectCheckedStream(
    s.adapter.stream(request({ messages: [user(s, 'Hi')], stream: true })),
  );
  expect(events, 'no event arrived, so none is yielded').toEqual([]);
  expect(
    (error as AdapterError)?.error_class,
    `the stream must fail as network once timeout_seconds passes: ${TIMEOUT_ADVICE}`,
  ).toBe('network');
  expect(kit.server().requests, 'nothing was yielded yet, so it is retried').toHaveLength(2);
}

async function timeoutStreamIdle(kit: ScenarioKit): Promise<void> {
  const { setup, request, user } = kit;
  const s = setup('timeout-stream-idle', {
    fixtureOf: 'cancel-mid-text',
    idleTimeoutSeconds: 0.3,
  });
  const { events, error } = await collectCheckedStream(
    s.adapter.stream(request({ messages: [user(s, EXPECTED.text.prompt)], stream: true })),
  );
  expect(
    (error as AdapterError)?.error_class,
    `a silent stream must fail as network once idle_timeout_seconds passes: ${TIMEOUT_ADVICE}`,
  ).toBe('network');
  const done = completeEvent(events);
  expect(done.stop_reason, 'after the first event a deadline ends the stream as error').toBe(
    'error',
  );
  expect(done.final_content).toEqual([{ type: 'text', text: streamedText(events) }]);
  const server = kit.server();
  expect(server.requests, 'events were yielded, so no retry').toHaveLength(1);
  await expect
    .poll(() => server.requests[0]?.aborted, {
      timeout: 2000,
      message: `the idle stream's HTTP request must be closed: ${ABORT_ADVICE}`,
    })
    .toBe(true);
}

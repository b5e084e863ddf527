import {
  isCancelledError,
  type StreamEvent,
  type ToolDefinition,
  withStreamInvariants,
} from '@yourtool/core';
import { decodeBedrockFrame } from '@yourtool/wire-formats';
import { expect } from 'vitest';
import { collectCheckedStream, completeEvent, streamedText } from '../assertions.js';
import { describeScenario, EXPECTED, type ScenarioName } from '../catalog.js';
import type { ScenarioKit, Setup } from '../kit.js';
import {
  ABORT_ADVICE,
  derivedStream,
  describeError,
  type StreamedResponse,
  stalledTextReply,
} from './shared.js';

const REGISTER_ADVICE =
  'register every call under its request_id for cancel() (AdapterBase’s `inflight`, which ' +
  'runCompleteCall / runStreamCall do for you) and answer true while it runs';

/** How a scenario cancels: `cancel(request_id)` on the adapter, or the caller's AbortSignal. */
type CancelHow = 'cancel' | 'signal';

/**
 * Cancellation: streams cancelled mid-text and mid-tool-input, a complete() cancelled mid-body,
 * each by cancel(request_id) and by the caller's signal, and a signal aborted before the call.
 */
export function registerCancellationScenarios(kit: ScenarioKit): void {
  kit.scenario('cancel-mid-text', () => cancelMidText(kit));
  kit.scenario('cancel-mid-text-signal', () => cancelMidTextSignal(kit));
  kit.scenario('cancel-complete', () => cancelComplete(kit, 'cancel-complete', 'cancel'));
  kit.scenario('cancel-complete-signal', () =>
    cancelComplete(kit, 'cancel-complete-signal', 'signal'),
  );
  kit.scenario('cancel-mid-tool-input', () =>
    cancelMidToolInput(kit, 'cancel-mid-tool-input', 'cancel'),
  );
  kit.scenario('cancel-mid-tool-input-signal', () =>
    cancelMidToolInput(kit, 'cancel-mid-tool-input-signal', 'signal'),
  );
  kit.scenario('cancel-in-one-read', () => cancelInOneRead(kit, 'cancel-in-one-read', 'stall'));
  kit.scenario('cancel-in-one-read-ended', () =>
    cancelInOneRead(kit, 'cancel-in-one-read-ended', 'end'),
  );
  kit.scenario('already-aborted', () => alreadyAborted(kit));
}

/** The fixture a cancellation scenario plays: the `-signal` variants share their twin's. */
function cancelFixture(scenarioName: ScenarioName): ScenarioName {
  return scenarioName === 'cancel-mid-text-signal'
    ? 'cancel-mid-text'
    : scenarioName === 'cancel-mid-tool-input-signal'
      ? 'cancel-mid-tool-input'
      : scenarioName;
}

/** Reads the stream up to and including the first `until` event. */
async function readUntil(
  iterator: AsyncIterator<StreamEvent>,
  until: StreamEvent['type'],
  events: StreamEvent[],
): Promise<void> {
  for (;;) {
    const next = await iterator.next();
    if (next.done)
      throw new Error(
        `the stream ended before any ${until} event; the fixture must stall after one`,
      );
    events.push(next.value);
    if (next.value.type === until) break;
  }
}

/** What {@link cancelMidway} does: which scenario, how it cancels, after which event. */
interface CancelMidwayOptions {
  scenarioName: ScenarioName;
  how: CancelHow;
  until: StreamEvent['type'];
  tools?: ToolDefinition[];
}

/**
 * Streams a scenario's fixture until its first `until` event, cancels, and reads the rest: the
 * call must end, be forgotten by cancel() and close its HTTP request.
 */
async function cancelMidway(
  kit: ScenarioKit,
  { scenarioName, how, until, tools = [] }: CancelMidwayOptions,
): Promise<{ events: StreamEvent[]; elapsed: number; s: Setup }> {
  const s = kit.setup(scenarioName, { fixtureOf: cancelFixture(scenarioName) });
  const controller = new AbortController();
  const req = kit.request({
    messages: [kit.user(s, EXPECTED.toolCall.prompt)],
    tools,
    stream: true,
  });
  const iterator = withStreamInvariants(s.adapter.stream(req, { signal: controller.signal }))[
    Symbol.asyncIterator
  ]();
  const events: StreamEvent[] = [];
  await readUntil(iterator, until, events);
  const started = performance.now();
  if (how === 'cancel') {
    expect(
      await s.adapter.cancel(req.request_id),
      `cancel() of an in-flight stream must return true: ${REGISTER_ADVICE}`,
    ).toBe(true);
  } else {
    controller.abort();
  }
  for (;;) {
    const next = await iterator.next();
    if (next.done) break;
    events.push(next.value);
  }
  const elapsed = performance.now() - started;
  expect(
    await s.adapter.cancel(req.request_id),
    'cancel() of a finished call must return false (idempotent): remove the call from the ' +
      'in-flight registry when it settles (runStreamCall does)',
  ).toBe(false);
  const server = kit.server();
  await expect
    .poll(() => server.requests[0]?.aborted, {
      timeout: 2000,
      message: `the cancelled stream's HTTP request must be closed: ${ABORT_ADVICE}`,
    })
    .toBe(true);
  return { events, elapsed, s };
}

async function cancelMidText(kit: ScenarioKit): Promise<void> {
  const { events, elapsed } = await cancelMidway(kit, {
    scenarioName: 'cancel-mid-text',
    how: 'cancel',
    until: 'text.delta',
  });
  const done = completeEvent(events);
  expect(done.stop_reason, 'a cancelled stream completes with stop_reason cancelled').toBe(
    'cancelled',
  );
  expect(done.final_content).toEqual([{ type: 'text', text: streamedText(events) }]);
  expect(elapsed, 'the iterator must end promptly after cancel').toBeLessThan(2000);
}

async function cancelMidTextSignal(kit: ScenarioKit): Promise<void> {
  const { events, elapsed } = await cancelMidway(kit, {
    scenarioName: 'cancel-mid-text-signal',
    how: 'signal',
    until: 'text.delta',
  });
  expect(
    completeEvent(events).stop_reason,
    'the caller’s AbortSignal must end the stream like cancel(): pass options through to runStreamCall',
  ).toBe('cancelled');
  expect(elapsed, 'the iterator must end promptly after the signal aborts').toBeLessThan(2000);
}

/** Waits up to 2 s for a cancelled complete() to settle; fails when it does not. */
async function settledAfterCancel<T>(outcome: Promise<T>, how: CancelHow): Promise<T> {
  const late = new Promise<'late'>((resolve) => setTimeout(() => resolve('late'), 2000));
  const result = await Promise.race([outcome, late]);
  if (result === 'late') {
    throw new Error(
      `complete() did not settle within 2 s of the ${how === 'cancel' ? 'cancel(request_id)' : 'aborted signal'}: ${ABORT_ADVICE}`,
    );
  }
  return result;
}

/**
 * Cancels a complete() whose reply stalls half-way through its body: the call must reject
 * with CancelledError promptly and the HTTP request must be gone at the server.
 */
async function cancelComplete(kit: ScenarioKit, name: ScenarioName, how: CancelHow): Promise<void> {
  const s = kit.setup(name, { responses: [stalledTextReply(kit)] });
  const server = kit.server();
  const controller = new AbortController();
  const req = kit.request({ messages: [kit.user(s, EXPECTED.text.prompt)] });
  const outcome = s.adapter.complete(req, { signal: controller.signal }).then(
    () => ({ settled: 'resolved' as const, error: undefined }),
    (error: unknown) => ({ settled: 'rejected' as const, error }),
  );
  await server.waitForRequests(1, 5000).catch(() => {
    throw new Error(`complete() sent no request within 5 s; ${describeScenario(name).checks}`);
  });
  const started = performance.now();
  if (how === 'cancel') {
    expect(
      await s.adapter.cancel(req.request_id),
      `cancel() of an in-flight complete() must return true: ${REGISTER_ADVICE}`,
    ).toBe(true);
  } else {
    controller.abort();
  }
  const result = await settledAfterCancel(outcome, how);
  const elapsed = performance.now() - started;
  expect(
    result.settled === 'rejected' && isCancelledError(result.error),
    `a cancelled complete() must reject with CancelledError (got ${
      result.settled === 'resolved' ? 'a reply' : describeError(result.error)
    }): map the abort to CancelledError (runCompleteCall does when its signal aborted)`,
  ).toBe(true);
  expect(elapsed, 'complete() must settle promptly after the cancel').toBeLessThan(2000);
  await expect
    .poll(() => server.requests[0]?.aborted, {
      timeout: 2000,
      message: `the cancelled complete()'s HTTP request must be closed at the server: ${ABORT_ADVICE}`,
    })
    .toBe(true);
  expect(server.requests, 'a cancelled call is never retried').toHaveLength(1);
}

async function cancelMidToolInput(
  kit: ScenarioKit,
  name: ScenarioName,
  how: CancelHow,
): Promise<void> {
  const { features } = kit;
  const { events } = await cancelMidway(kit, {
    scenarioName: name,
    how,
    until: 'tool.use_input_delta',
    tools: [kit.tools.read_file],
  });
  // A tool call sent whole is complete before the cancel arrives, and keeps its input.
  const expectedInput = features.wholeToolCalls ? EXPECTED.toolCall.input : {};
  const end = events.find((e) => e.type === 'tool.use_end');
  expect(
    end,
    features.wholeToolCalls
      ? 'a tool call that arrived whole ends with its complete input, also when cancelled'
      : 'the in-flight tool use must end with the JSON that parses, here {}',
  ).toMatchObject({ final_input: expectedInput });
  const done = completeEvent(events);
  expect(
    done.stop_reason,
    'a cancelled stream completes with stop_reason cancelled (runStreamCall does this when the attempt’s signal aborts)',
  ).toBe('cancelled');
  expect(done.final_content.find((b) => b.type === 'tool_use')).toMatchObject({
    name: 'read_file',
    input: expectedInput,
  });
}

async function alreadyAborted(kit: ScenarioKit): Promise<void> {
  const { setup, request, user } = kit;
  const s = setup('already-aborted');
  const signal = AbortSignal.abort();
  const refused = await s.adapter.complete(request({ messages: [user(s, 'Hi')] }), { signal }).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(
    isCancelledError(refused),
    `complete() with an already-aborted signal must reject with CancelledError (got ${describeError(refused)}): check options.signal before sending (runCompleteCall does)`,
  ).toBe(true);
  const { events, error } = await collectCheckedStream(
    s.adapter.stream(request({ messages: [user(s, 'Hi')], stream: true }), { signal }),
  );
  expect(events, 'an already-aborted stream yields no events').toEqual([]);
  expect(
    isCancelledError(error),
    `stream() with an already-aborted signal must throw CancelledError (got ${describeError(error)}): check options.signal before sending (runStreamCall does)`,
  ).toBe(true);
  expect(kit.server().requests, 'nothing may be sent for an already-aborted signal').toHaveLength(
    0,
  );
}

/** How many text deltas the one-read stream carries, and at which one the consumer aborts. */
const BURST_DELTAS = 400;
const ABORT_AT = 20;

/**
 * The cancel-mid-text stream with its text delta repeated {@link BURST_DELTAS} times, written
 * in one piece so the adapter receives it in one network read, then left open or closed
 * without the provider's finish. Binary streams (event-stream frames) are joined as bytes.
 */
function oneReadStream(kit: ScenarioKit, ending: 'stall' | 'end'): StreamedResponse {
  const cut = derivedStream(kit, 'cancel-mid-text', {});
  const missing = () =>
    new Error(
      `the "cancel-mid-text" fixture has no chunk carrying the start of "${EXPECTED.text.reply}"`,
    );
  if (cut.type === 'binary-stream') {
    // the frame carrying the first text delta (frames after it may carry other events)
    const delta = cut.chunks.findLast((frame) => carriesReplyStart(framePayloadText(frame)));
    if (delta === undefined) throw missing();
    const frames = [...cut.chunks, ...Array.from({ length: BURST_DELTAS - 1 }, () => delta)];
    return { ...cut, chunks: [new Uint8Array(Buffer.concat(frames))], ending };
  }
  // the chunk carrying the first text delta (keep-alives may follow it in a recorded fixture)
  const delta = cut.chunks.findLast(carriesReplyStart);
  if (delta === undefined) throw missing();
  const body = cut.chunks.join('') + delta.repeat(BURST_DELTAS - 1);
  return { ...cut, chunks: [body], ending };
}

/** The JSON payload of an event-stream frame as text ('' when it is not a whole frame). */
function framePayloadText(frame: Uint8Array): string {
  try {
    return JSON.stringify(decodeBedrockFrame(frame).payload);
  } catch {
    return '';
  }
}

/** Whether a wire chunk holds a JSON string that begins the text reply (its first delta). */
function carriesReplyStart(chunk: string): boolean {
  for (const [, value] of chunk.matchAll(/"((?:[^"\\]|\\.)*)"/g)) {
    if (value && EXPECTED.text.reply.startsWith(value)) return true;
  }
  return false;
}

/**
 * Aborts at the {@link ABORT_AT}th text delta of a stream that arrived in one read: the rest of
 * the read must not reach the consumer, and an abort that came before the stream's end wins
 * over the end's failure (issue 35).
 */
async function cancelInOneRead(
  kit: ScenarioKit,
  name: ScenarioName,
  ending: 'stall' | 'end',
): Promise<void> {
  const s = kit.setup(name, { responses: [oneReadStream(kit, ending)] });
  const controller = new AbortController();
  const req = kit.request({ messages: [kit.user(s, EXPECTED.text.prompt)], stream: true });
  const events: StreamEvent[] = [];
  let deltas = 0;
  let afterAbort = -1;
  let thrown: unknown;
  try {
    for await (const event of withStreamInvariants(
      s.adapter.stream(req, { signal: controller.signal }),
    )) {
      events.push(event);
      if (afterAbort >= 0) afterAbort++;
      else if (event.type === 'text.delta' && ++deltas === ABORT_AT) {
        controller.abort();
        afterAbort = 0;
      }
    }
  } catch (error) {
    thrown = error;
  }
  expect(
    thrown,
    `an abort that came before the stream's end must end the stream cancelled, without a throw (got ${describeError(thrown)}): check the signal before deciding the stream failed (runStreamCall does)`,
  ).toBeUndefined();
  expect(afterAbort, `the stream must deliver ${ABORT_AT} text deltas to abort at`).toBeGreaterThan(
    0,
  );
  const done = completeEvent(events);
  expect(done.stop_reason, 'an aborted stream completes with stop_reason cancelled').toBe(
    'cancelled',
  );
  expect(
    afterAbort,
    'after the abort at most one more event, then message.complete: map and hand out a network read a record at a time, checking the signal between records (runStreamCall does)',
  ).toBeLessThanOrEqual(2);
  expect(done.final_content, 'final_content is the text the consumer received').toEqual([
    { type: 'text', text: streamedText(events) },
  ]);
}

import type { ScenarioDescription } from './scenario-description.js';

/**
 * The catalog's streams that break, stall, time out or are cancelled, in the order the suite
 * runs them (part of `SCENARIOS`).
 */
export const BROKEN_STREAM_SCENARIOS: readonly ScenarioDescription[] = [
  {
    name: 'stream-error-before-first-event',
    checks: 'a stream whose request fails throws before any event',
    fixture: null,
  },
  {
    name: 'stream-error-mid-stream',
    checks:
      'a stream that breaks mid-way yields message.complete (stop_reason error, partial text), then throws',
    fixture: 'the text stream cut after the first text delta, ending "destroy" (sidecar meta)',
  },
  {
    name: 'stream-empty',
    checks:
      'a 200 stream that closes without a single event throws a network error with no events, retried',
    fixture: null,
  },
  {
    name: 'timeout-complete-stall',
    checks:
      'complete() against a server that sends headers and half the body, then stalls, fails as network once timeout_seconds passes, retried',
    fixture: null,
  },
  {
    name: 'timeout-stream-before-first-event',
    checks:
      'a stream whose server sends headers and then nothing fails as network once timeout_seconds passes, with no events, retried',
    fixture: null,
  },
  {
    name: 'timeout-stream-idle',
    checks:
      'a stream that goes silent after the first text delta ends with stop_reason error once idle_timeout_seconds passes, then throws network, and the connection is released',
    fixture: null,
  },
  {
    name: 'cancel-mid-text',
    checks: 'cancel(request_id) mid-text ends the stream promptly with stop_reason cancelled',
    fixture: 'the text stream cut after the first text delta, ending "stall" (sidecar meta)',
  },
  {
    name: 'cancel-mid-text-signal',
    checks: 'an AbortSignal mid-text does the same',
    fixture: 'the same as cancel-mid-text',
  },
  {
    name: 'cancel-mid-tool-input',
    checks: 'cancelling mid tool input ends the tool use with {} and completes as cancelled',
    fixture:
      'the tool-call stream cut after the first input fragment (or, for whole tool calls, after the call), ending "stall"',
  },
  {
    name: 'cancel-mid-tool-input-signal',
    checks: 'an AbortSignal mid tool input does the same',
    fixture: 'the same as cancel-mid-tool-input',
  },
  {
    name: 'cancel-in-one-read',
    checks:
      'a stream whose 400 text deltas arrive in one network read, aborted at the 20th delta: at most one more event, then message.complete cancelled with the text delivered, nothing thrown',
    fixture: null,
  },
  {
    name: 'cancel-in-one-read-ended',
    checks:
      'the same stream closed without its finish in that read: the abort came first, so the reply is cancelled, not a network error',
    fixture: null,
  },
  {
    name: 'cancel-complete',
    checks:
      'cancel(request_id) while complete() waits for a reply body rejects promptly with CancelledError and closes the HTTP request at the server',
    fixture: null,
  },
  {
    name: 'cancel-complete-signal',
    checks: 'an AbortSignal aborted while complete() waits does the same',
    fixture: null,
  },
  {
    name: 'already-aborted',
    checks: 'an already-aborted signal fails with CancelledError and sends nothing',
    fixture: null,
  },
];

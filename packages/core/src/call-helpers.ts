import type { CallOptions } from './adapter.js';
import type { AdapterCallSetup } from './call-runner.js';
import type { AttemptLimits } from './deadline.js';
import { CancelledError } from './errors.js';
import { type Logger, silentLogger, withLogFields } from './logger.js';
import type { CanonicalRequest } from './schemas/adapter.js';
import type { CallTrace } from './telemetry/call-trace.js';

// What the complete and stream call runners share (internal: not exported from the toolkit).

/** The cancellation of a call whose signal aborted before anything was sent. */
export function cancelledBeforeStart(
  request: { request_id?: unknown },
  provider: string,
): CancelledError {
  return new CancelledError('the request was cancelled before it was sent', {
    request_id: typeof request.request_id === 'string' ? request.request_id : '',
    provider,
    attempts: 0,
  });
}

/** The call's logger, with `request_id` and `session_id` on every entry. */
export function callLogger(
  setup: AdapterCallSetup,
  options: CallOptions,
  request: CanonicalRequest,
): Logger {
  const base = options.logger ?? setup.logger ?? silentLogger;
  const session_id = request.messages.at(-1)?.session_id;
  return withLogFields(base, {
    request_id: request.request_id,
    ...(session_id ? { session_id } : {}),
  });
}

/** The `onAttempt` of the bounded retry: the caller's, observed by the call's trace if any. */
export function attemptHook(options: CallOptions, trace: CallTrace | null) {
  if (trace) return { onAttempt: trace.observe(options.onAttempt) };
  return options.onAttempt ? { onAttempt: options.onAttempt } : {};
}

/** The attempt limits of a call setup. */
export function attemptLimits(setup: AdapterCallSetup): AttemptLimits {
  return { timeoutMs: setup.timeoutMs, idleTimeoutMs: setup.idleTimeoutMs };
}

import { type CallOptions, normalizeRequest } from './adapter.js';
import {
  type AdapterCallSetup,
  attemptHook,
  attemptLimits,
  type CallAttemptContext,
  callLogger,
  cancelledBeforeStart,
} from './call-shared.js';
import { AttemptDeadline } from './deadline.js';
import { CancelledError } from './errors.js';
import { redactError } from './redact.js';
import { withRetry } from './retry.js';
import type { CanonicalRequestInput, CanonicalResponse } from './schemas/adapter.js';
import { type CallTrace, openCallTrace } from './telemetry/call-trace.js';

/**
 * Runs a non-streaming adapter call under the contract: validates the request, refuses an
 * already-aborted signal without sending anything, registers the call for `cancel`, bounds each
 * attempt by `timeout_seconds` (headers and body; a passed deadline is `network`, retried),
 * retries transient failures, and maps every failure to an `AdapterError` (a cancelled call to
 * {@link CancelledError}).
 */
export async function runCompleteCall(
  setup: AdapterCallSetup,
  input: CanonicalRequestInput,
  options: CallOptions,
  call: (context: CallAttemptContext) => Promise<CanonicalResponse>,
): Promise<CanonicalResponse> {
  if (options.signal?.aborted) throw cancelledBeforeStart(input, setup.provider);
  const request = normalizeRequest(input);
  const logger = callLogger(setup, options, request);
  const { signal, end } = setup.inflight.begin(request.request_id, options.signal);
  const limits = attemptLimits(setup);
  let trace: CallTrace | null = null;
  try {
    const opening = openCallTrace(setup, request, options.telemetry, false);
    trace = opening instanceof Promise ? await opening : opening;
    const response = await withRetry(
      async (attempt) => {
        const deadline = new AttemptDeadline(signal, limits);
        const context = { request, signal: deadline.signal, attempt: attempt.attempt, logger };
        try {
          return await deadline.race(trace ? trace.run(() => call(context)) : call(context));
        } catch (error) {
          if (deadline.expired && !signal.aborted) {
            throw deadline.error({
              request_id: request.request_id,
              provider: setup.provider,
              cause: redactError(error, setup.secrets),
            });
          }
          throw error;
        } finally {
          deadline.clear();
        }
      },
      {
        maxRetries: setup.maxRetries,
        requestId: request.request_id,
        signal,
        ...attemptHook(options, trace),
        ...setup.retry,
        toAdapterError: (error) =>
          signal.aborted
            ? new CancelledError('the request was cancelled', {
                request_id: request.request_id,
                provider: setup.provider,
                cause: redactError(error, setup.secrets),
              })
            : setup.toAdapterError(error, request),
      },
    );
    trace?.response(response);
    return response;
  } catch (error) {
    trace?.failed(error);
    throw error;
  } finally {
    end();
  }
}

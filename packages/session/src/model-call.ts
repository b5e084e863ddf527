import {
  type AdapterError,
  CancelledError,
  isAdapterError,
  isCancelledError,
  type MessageStatus,
  OtherAdapterError,
  type StreamEvent,
} from '@yourtool/core';
import { requestMessages } from './bound-targets.js';
import { admitCall, settleCall } from './budget-admission.js';
import { CallReport } from './call-report.js';
import type { SessionEvent } from './events.js';
import { ObjectPartials } from './object-partials.js';
import { PartialRow, partialReply } from './partial-row.js';
import { type StoredReply, type StreamedReply, storeReply } from './reply.js';
import type { ModelCall } from './turn-scope.js';
import type { CallOutcome } from './turn-state.js';

/**
 * One model call: streams the adapter's events through (with the `session.attempt` events of
 * its retries), stores the assistant message (as `partial` once the stream has run for
 * `partialRowAfterMs`, decision 0148) and finishes it at the end, and reports the call on the
 * bus. Never throws for an adapter failure: the outcome carries it (a store that refuses the
 * reply, or the `partial` row, still throws).
 */
export async function* callModel(call: ModelCall): AsyncGenerator<SessionEvent, CallOutcome> {
  const { turn } = call;
  const report = new CallReport(turn, call.decision);
  const output = turn.inputs.output;
  const streamed: StreamedReply = {
    row: undefined,
    started: 0,
    complete: undefined,
    status: 'complete',
    plan: output?.plan(call.decision) ?? null,
    parsed: null,
  };
  let error: AdapterError | null = null;
  // a call its budgets cannot admit is not sent (decision 0181)
  await admitCall(call, report.request_id);
  try {
    // the stream's loop sits here rather than in a generator of its own: every event would
    // cross one more generator layer, with its promises, on its way to the consumer
    const { iterator, partials } = openCallStream(call, report, streamed);
    for (;;) {
      let next: IteratorResult<StreamEvent, void>;
      if (streamed.row) {
        // attempt events come only while the stream opens: from its first event on, the wait
        // is the stream's alone (an event pushed later would go out with the next one)
        next = await iterator.next();
      } else {
        const work = iterator.next();
        let settled = await turn.queue.settledOrWoken(work);
        // attempt events (a retry's wait happens inside `next()`) go out while the stream waits
        while (settled === null) {
          for (const event of turn.queue.drain()) yield event;
          settled = await turn.queue.settledOrWoken(work);
        }
        if (!settled.ok) throw settled.error;
        next = settled.value;
      }
      if (turn.queue.size > 0) for (const event of turn.queue.drain()) yield event;
      if (next.done) {
        streamed.parsed = partials?.parsed() ?? null;
        break;
      }
      if (!streamed.row) await startRow(call, report, streamed);
      if (next.value.type === 'message.complete') streamed.complete = next.value;
      // the object's JSON deltas reach the consumer as partial objects, in their place
      yield partials?.take(next.value) ?? next.value;
    }
  } catch (thrown) {
    error = isAdapterError(thrown)
      ? thrown
      : new OtherAdapterError(String(thrown), { cause: thrown });
  } finally {
    // the stream is over (or left: the generator closed): no `partial` row is written after
    streamed.row?.stop();
  }
  // attempt events reported after the last stream event
  for (const event of turn.queue.drain()) yield event;
  streamed.status = statusOf(streamed, error);
  // (checked as unknown: a type guard would narrow the AdapterError type away)
  if (isCancelledError(error as unknown)) error = null;
  let stored: StoredReply | null = null;
  try {
    if (streamed.row) stored = await storeReply(call, report, { ...streamed, row: streamed.row });
  } finally {
    // success, error or cancel: the billed usage stored on the reply (zero without one)
    await settleCall(call, report.request_id, stored?.message ?? null);
  }
  report.finished(streamed.complete, error);
  const aborted = turn.signal.aborted;
  const cancelled = aborted
    ? new CancelledError('the turn was cancelled', { request_id: report.request_id })
    : null;
  return {
    message: stored?.message ?? null,
    stop_reason: aborted ? 'cancelled' : (streamed.complete?.stop_reason ?? 'error'),
    error: error ?? stored?.invalid ?? cancelled,
    object: stored?.object ?? null,
  };
}

/** The reply's status from how its stream ended. */
function statusOf(streamed: StreamedReply, error: AdapterError | null): MessageStatus {
  if (error) return 'error';
  const stop = streamed.complete?.stop_reason;
  return stop === 'cancelled' ? 'cancelled' : stop === 'error' ? 'error' : 'complete';
}

/** Opens the call's stream (the request the turn sends), with the object's partials if asked. */
function openCallStream(call: ModelCall, report: CallReport, streamed: StreamedReply) {
  const { turn, decision } = call;
  const { settings } = turn.manager;
  const { options, output } = turn.inputs;
  const request = {
    request_id: report.request_id,
    model: decision.model,
    messages: requestMessages(turn, decision),
    tools: settings.tools.definitions(),
    system_prompt: turn.inputs.systemPrompt,
    max_output_tokens: settings.maxOutputTokens,
    output_schema: options.output_schema ?? null,
    stream: true,
  };
  const { plan } = streamed;
  const partials =
    output && plan
      ? new ObjectPartials(plan, output.schema.jsonSchema, {
          step: turn.steps,
          attempt: output.attempts + 1,
          model: decision.model,
        })
      : null;
  const stream = decision.adapter.stream(output && plan ? output.request(request, plan) : request, {
    signal: turn.signal,
    toolIdMap: turn.log.toolIdMap,
    onAttempt: report.onAttempt,
    logger: settings.logger,
    ...(options.providerOptions ? { providerOptions: options.providerOptions } : {}),
    // the call's span goes under the turn's, with its step, routing and exact cost
    ...(turn.telemetry ? { telemetry: turn.telemetry.callOptions(decision, turn.steps) } : {}),
  });
  return { iterator: stream[Symbol.asyncIterator](), partials };
}

/** Starts the reply's row at the stream's first event. */
async function startRow(call: ModelCall, report: CallReport, streamed: StreamedReply) {
  const { turn, decision } = call;
  streamed.started = Date.now();
  const row = new PartialRow(turn.log, {
    message: partialReply(turn.inputs.session.id, decision, report.provider),
    delayMs: turn.manager.settings.partialRowAfterMs,
  });
  await row.start();
  streamed.row = row;
}

import {
  isCancelledError,
  type Message,
  OutputValidationError,
  type SessionRecord,
} from '@yourtool/core';
import { sumCosts } from '@yourtool/pricing';
import { compactionOf } from './compaction.js';
import { errorText } from './errors.js';
import type { SessionEvent, TurnResult } from './events.js';
import { afterObjectReply } from './object-step.js';
import { flushPending, routeStep, runStep, runToolUses } from './step.js';
import { TurnTelemetry } from './telemetry.js';
import { knownTurnModel } from './telemetry-model.js';
import {
  type ActiveTurn,
  type CallOutcome,
  type ManagerContext,
  openTurn,
  type TurnRequest,
  type TurnState,
} from './turn-state.js';

/**
 * One turn, as named steps over one {@link TurnState}: open it (session, history, user
 * message), route and store the user message, run the tool loop's steps (a model call, then
 * the tools it asked for) until the model ends its turn, a call fails, the turn is cancelled
 * or the step limit, and report the result. A turn left early (the consumer stopped
 * iterating, or something threw) is ended so that the stored history stays valid.
 */
export async function* runTurn(
  manager: ManagerContext,
  active: ActiveTurn,
  request: TurnRequest,
): AsyncGenerator<SessionEvent, void> {
  // a traced turn reads its session before its span starts (to name the model); it is read once
  let read: Promise<SessionRecord | null> | undefined;
  const readSession = () => {
    read ??= manager.settings.store.getSession(request.sessionId);
    return read;
  };
  const opening = TurnTelemetry.open(manager.settings, request.sessionId, request.input, () =>
    knownTurnModel(manager, request, readSession),
  );
  const telemetry = opening instanceof Promise ? await opening : opening;
  const { maxSteps } = manager.settings;
  // the turn's span (when traced) ends however the turn does: finished, thrown, left early
  let state: TurnState | null = null;
  let failure: unknown;
  let completed = false;
  try {
    state = await openTurn(manager, active, request, { telemetry, session: read });
    yield* routeAndStoreUser(state);
    // the tool loop runs in this generator, not one of its own: every event of every call
    // crosses each generator layer on its way out
    let settled = false;
    let throwing = false;
    try {
      while (state.steps < maxSteps && !cancelledNow(state)) {
        state.steps++;
        const outcome = yield* runStep(state);
        if (state.inputs.output) {
          const next = yield* afterObjectReply(state, outcome);
          if (next === 'done') break;
          if (next === 'repair') continue;
        }
        if (!goesOn(state, outcome)) break;
        yield* runToolUses(state);
        if (cancelledNow(state)) break;
        if (state.steps >= maxSteps) warnMaxSteps(state);
      }
      if (state.end === 'cancelled') yield* await state.log.answerUnanswered(state.steps);
      settled = true;
    } catch (error) {
      throwing = true;
      throw error;
    } finally {
      // a turn that does not run to its end is finished early
      if (!settled) await finishEarly(state, throwing);
    }
    completed = true;
    yield* completeTurn(state);
  } catch (error) {
    failure = error;
    throw error;
  } finally {
    const summary = state && { steps: state.steps, end: state.end, stored: state.log.messages };
    telemetry?.end(summary, failure, completed);
  }
}

/**
 * Routes the turn before its user message is stored: a routing error (no model fits, an
 * explicit choice that cannot be honoured, a strict rule's refusal) is thrown with nothing
 * stored, so the session's next turn is not poisoned by it (docs/decisions/0095). The router
 * is prepared first (capabilities detected at run time).
 */
async function* routeAndStoreUser(state: TurnState): AsyncGenerator<SessionEvent, void> {
  await state.manager.preparation.ready(state.signal);
  state.firstRoute = await routeStep(state);
  yield* flushPending(state);
  // the conversation takes the stored (sealed) copy: the next requests do not check it again
  yield { type: 'session.user_message', message: await state.log.keepUser() };
}

/** Whether the turn's signal has aborted; marks the turn cancelled then. */
function cancelledNow(state: TurnState): boolean {
  if (!state.signal.aborted) return false;
  state.end = 'cancelled';
  return true;
}

/** The turn used its last step with tool uses still to answer: it ends at `max_steps`. */
function warnMaxSteps(state: TurnState): void {
  state.end = 'max_steps';
  state.manager.settings.logger.warn(
    { event: 'max_steps', session_id: state.inputs.session.id, steps: state.steps },
    `the turn stopped after ${state.steps} model calls`,
  );
}

/** Records how the step's call ended; true when the loop goes on with its tool uses. */
function goesOn(state: TurnState, outcome: CallOutcome): boolean {
  if (outcome.error) {
    state.failure = outcome.error;
    state.end = isCancelledError(outcome.error) ? 'cancelled' : 'error';
    return false;
  }
  state.end = outcome.stop_reason;
  if (state.end === 'cancelled' || state.end === 'error') return false;
  return state.log.unanswered.size > 0;
}

/**
 * Ends a turn left early. Nothing more runs: the call in progress is cancelled and pulled to
 * its end (its row stored as `cancelled` with the usage seen so far and its cost), and every
 * unanswered tool use gets its result, so the history stays valid (docs/decisions/0067). A
 * failure here is thrown unless another error is already on its way out, which it must not
 * hide (then it is logged).
 */
async function finishEarly(state: TurnState, failing: boolean): Promise<void> {
  state.active.controller.abort();
  try {
    const call = state.call;
    if (call) {
      let next: IteratorResult<SessionEvent, CallOutcome | undefined>;
      do next = await call.next();
      while (!next.done);
      state.call = null;
      if (next.value?.message) state.log.keepReply(next.value.message);
    }
    await state.log.answerUnanswered(state.steps);
  } catch (cleanup) {
    if (!failing) throw cleanup;
    state.manager.settings.logger.warn(
      {
        event: 'turn_cleanup_failed',
        session_id: state.inputs.session.id,
        error: errorText(cleanup),
      },
      'could not finish the stored turn after it ended early',
    );
  }
}

/** Yields `session.turn_complete`, then throws the error that ended the turn, if one did. */
async function* completeTurn(state: TurnState): AsyncGenerator<SessionEvent, void> {
  const { log } = state;
  const failure = state.failure ?? missingObject(state);
  const result: TurnResult = {
    session_id: state.inputs.session.id,
    messages: [...log.messages],
    end: state.end,
    steps: state.steps,
    cost_usd: turnCost(log.messages),
    text: (log.messages.findLast((m) => m.role === 'assistant')?.content ?? [])
      .flatMap((block) => (block.type === 'text' ? [block.text] : []))
      .join(''),
    session_cost_usd: await state.manager.histories.sessionCost(state.inputs.session.id, log),
    ...(state.inputs.output?.done ? { object: state.inputs.output.value } : {}),
    error: isCancelledError(failure) ? null : failure,
  };
  yield { type: 'session.turn_complete', result };
  if (failure && !isCancelledError(failure)) throw failure;
}

/**
 * A turn that asked for an object and ended without one or an error (the step limit, say)
 * ends with an `OutputValidationError` saying so: never a silent success.
 */
function missingObject(state: TurnState): OutputValidationError | null {
  const { output } = state.inputs;
  if (!output || output.done || state.end === 'cancelled') return null;
  const last = state.log.messages.findLast((m) => m.role === 'assistant');
  return new OutputValidationError({
    issues: [
      {
        path: '$',
        rule: 'no_answer',
        message: `the turn ended (${state.end}) before a reply gave the object`,
      },
    ],
    stop_reason: last?.metadata.stop_reason ?? 'error',
    text: '',
  });
}

/**
 * What the turn's calls cost: its assistant messages and the summary calls of its compactions;
 * null when any of them is unpriced.
 */
function turnCost(stored: readonly Message[]): string | null {
  const costs = stored.flatMap((m) =>
    m.role === 'assistant'
      ? [m.metadata.usage?.cost_usd ?? null]
      : compactionOf(m) && m.metadata.usage
        ? [m.metadata.usage.cost_usd]
        : [],
  );
  return costs.includes(null) ? null : sumCosts(costs as string[]);
}

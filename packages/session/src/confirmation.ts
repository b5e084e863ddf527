import type { ToolUseBlock } from '@yourtool/core';
import { errorText } from './errors.js';
import { ABORTED, unlessAborted } from './event-queue.js';
import type { ConfirmationRequest, ConfirmHook } from './options.js';
import type { RegisteredTool } from './tools.js';
import type { TurnScope } from './turn-scope.js';
import type { ActiveTurn } from './turn-state.js';

/**
 * What asking consent reads of the turn: its scope, and the running turn whose open
 * confirmations a stream answer resolves.
 */
export interface ConsentTurn extends TurnScope {
  readonly active: ActiveTurn;
}

/**
 * Asks consent to run a tool with write, execute or network side effects: from the manager's
 * `confirm` hook, or from the stream when the turn was sent with `confirmFromStream`. Resolves
 * to null when the tool may run, else to the text of the result that refuses it (no hook, the
 * user declined, the hook threw, the turn was cancelled while waiting).
 */
export async function askConsent(
  state: ConsentTurn,
  use: ToolUseBlock,
  tool: RegisteredTool,
): Promise<string | null> {
  const { signal } = state;
  const confirm: ConfirmHook | undefined = state.inputs.options.confirmFromStream
    ? (request) => askStream(state, request)
    : state.manager.settings.confirm;
  const side_effects = tool.definition.side_effects;
  if (!confirm) {
    return `${use.name} has ${side_effects} side effects and no confirmation handler is configured, so it was not run.`;
  }
  let allowed: boolean | typeof ABORTED;
  try {
    const request: ConfirmationRequest = {
      session_id: state.inputs.session.id,
      tool: use.name,
      side_effects,
      input: use.input,
      tool_use_id: use.id,
      signal,
    };
    allowed = await unlessAborted(
      Promise.resolve().then(() => confirm(request)),
      signal,
    );
  } catch (error) {
    return `The confirmation for ${use.name} failed (${errorText(error)}), so it was not run.`;
  }
  if (allowed === ABORTED) {
    return `The turn was cancelled while ${use.name} waited for confirmation, so it was not run.`;
  }
  return allowed ? null : `The user declined to run ${use.name}.`;
}

/**
 * A confirmation asked from the stream: queues `session.confirmation_requested` and resolves
 * with its answer (`respond()` on the event, or the manager's `answerConfirmation`). The caller
 * races it against the turn's signal; the request is closed when answered or when the signal
 * aborts, so a late answer finds nothing to answer (docs/decisions/0098).
 */
function askStream(state: ConsentTurn, request: ConfirmationRequest): Promise<boolean> {
  const { confirmations } = state.active;
  return new Promise<boolean>((resolve) => {
    const close = () => {
      confirmations.delete(request.tool_use_id);
      request.signal.removeEventListener('abort', close);
    };
    const respond = (allowed: boolean): boolean => {
      if (confirmations.get(request.tool_use_id) !== respond) return false;
      close();
      resolve(allowed === true);
      return true;
    };
    confirmations.set(request.tool_use_id, respond);
    request.signal.addEventListener('abort', close, { once: true });
    state.queue.push({
      type: 'session.confirmation_requested',
      step: state.steps,
      request_id: request.tool_use_id,
      tool_use_id: request.tool_use_id,
      tool_name: request.tool,
      side_effects: request.side_effects,
      input: request.input,
      respond,
    });
  });
}

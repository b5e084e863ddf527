import { createMessage, type Message, type ToolUseBlock } from '@yourtool/core';
import type { SessionEvent } from './events.js';
import { toolReply } from './tool-reply.js';
import { type ObjectRead, repairText } from './turn-output.js';
import type { CallOutcome, TurnState } from './turn-state.js';

/**
 * What a turn that asks for an object does after a reply: run the tools it asked for
 * (`tools`, the usual loop), ask again with the validation errors (`repair`), or end
 * (`done`: with the object, or with the `OutputValidationError` in `state.failure`).
 */
export type ObjectNext = 'tools' | 'repair' | 'done';

/**
 * Reads the step's outcome for the turn's object. The output tool's call (fallback) is
 * answered with a stored tool result, so the history stays valid for the next turn: "accepted"
 * for a valid object, the validation errors (`is_error`) otherwise, which is also how a repair
 * reaches the model; natively a repair is a stored user message. Each attempt is a stored,
 * priced reply of its own.
 */
export async function* afterObjectReply(
  state: TurnState,
  outcome: CallOutcome,
): AsyncGenerator<SessionEvent, ObjectNext> {
  const output = state.inputs.output;
  const read = outcome.object;
  const message = outcome.message;
  if (!output || !read || !message || outcome.error) return 'tools';
  const model = message.metadata.model ?? '';
  const call = outputToolCall(message, read);
  if (call) yield await answerOutputTool(state, call, read);
  if (read.ok) {
    output.value = read.value;
    output.done = true;
    state.end = 'end_turn';
    yield* await state.log.answerUnanswered(state.steps);
    return 'done';
  }
  const willRepair = output.repairs(read.error) && state.steps < state.manager.settings.maxSteps;
  yield {
    type: 'object.invalid',
    step: state.steps,
    attempt: read.record.attempt,
    model,
    error: read.error,
    will_repair: willRepair,
  };
  if (willRepair) {
    // the tool result carries the errors back; a reply without the call gets a user message
    if (!call) await state.log.keepFollowUp(repairRequest(state, read));
    return 'repair';
  }
  yield* await state.log.answerUnanswered(state.steps);
  state.failure = read.error;
  state.end = outcome.stop_reason;
  return 'done';
}

function outputToolCall(message: Message, read: ObjectRead): ToolUseBlock | null {
  const { plan } = read;
  if (plan.mode !== 'tool') return null;
  const use = message.content.find(
    (block): block is ToolUseBlock => block.type === 'tool_use' && block.name === plan.toolName,
  );
  return use ?? null;
}

/** Stores the output tool's result; returns its `session.tool_result` event. */
async function answerOutputTool(
  state: TurnState,
  use: ToolUseBlock,
  read: ObjectRead,
): Promise<SessionEvent> {
  const text = read.ok ? 'Accepted: this is the final answer.' : repairText(read.error);
  const reply = toolReply(state.inputs.session, use, text, { is_error: !read.ok });
  await state.log.keepToolResult(use, reply.message);
  return {
    type: 'session.tool_result',
    step: state.steps,
    message: reply.message,
    tool_name: use.name,
    is_error: reply.is_error,
  };
}

/** The user message of a native repair: the validation errors and what to do. */
function repairRequest(state: TurnState, read: Extract<ObjectRead, { ok: false }>): Message {
  return createMessage({
    session_id: state.inputs.session.id,
    role: 'user',
    content: [{ type: 'text', text: repairText(read.error) }],
  });
}

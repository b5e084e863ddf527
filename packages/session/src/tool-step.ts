import { nowTimestamp, type ToolUseBlock, validateToolInput } from '@yourtool/core';
import type { TelemetrySpan } from '@yourtool/core/adapter';
import { askConsent, type ConsentTurn } from './confirmation.js';
import { errorText } from './errors.js';
import { ABORTED, unlessAborted } from './event-queue.js';
import type { ToolOutcome } from './telemetry-options.js';
import { toolOutputContent } from './tool-output.js';
import { notRunReply, type ToolReply, toolReply } from './tool-reply.js';
import { CONFIRMED_SIDE_EFFECTS, type RegisteredTool } from './tools.js';
import type { TurnLog } from './turn-log.js';

/** What running a tool use reads of the turn: what asking consent reads, and its log. */
export interface ToolTurn extends ConsentTurn {
  readonly log: TurnLog;
}

/**
 * Runs one tool use and returns its result; never throws. An unknown tool or an input its
 * schema refuses is answered with an error result; a tool with write, execute or network side
 * effects runs only with consent. The turn's signal is checked before the confirmation and
 * before the run, and both waits end when it aborts, so a cancelled turn runs nothing more.
 */
export async function runToolUse(
  state: ToolTurn,
  use: ToolUseBlock,
  span: TelemetrySpan | null = null,
): Promise<ToolReply> {
  const { signal } = state;
  const { session } = state.inputs;
  const refuse = (content: string, outcome: ToolOutcome) =>
    toolReply(session, use, content, { is_error: true, outcome });
  if (signal.aborted) return notRunReply(session, use);
  const tool = state.manager.settings.tools.get(use.name);
  if (!tool) return refuse(`There is no tool named "${use.name}".`, 'unknown_tool');
  const checked = validateToolInput(tool.definition, use.input);
  if (!checked.ok) {
    reportInvalidInput(state, use, checked.issues);
    const issues = checked.issues.map((i) => `${i.path} ${i.message}`).join('; ');
    return refuse(`Invalid input for ${use.name}: ${issues}`, 'invalid_input');
  }
  if (CONFIRMED_SIDE_EFFECTS.has(tool.definition.side_effects)) {
    const refusal = await askConsent(state, use, tool);
    if (refusal !== null) return refuse(refusal, signal.aborted ? 'not_run' : 'refused');
    if (signal.aborted) return notRunReply(session, use);
  }
  return runTool(state, use, tool, span);
}

/**
 * Puts `tool_input_invalid` on the bus: the tool, the call, the model that made it (the stored
 * reply holding the use) and every violation with its path.
 */
function reportInvalidInput(
  state: ToolTurn,
  use: ToolUseBlock,
  issues: readonly { path: string; message: string }[],
): void {
  const reply = state.log.messages.findLast((m) =>
    m.content.some((b) => b.type === 'tool_use' && b.id === use.id),
  );
  state.manager.settings.bus?.emit({
    type: 'tool_input_invalid',
    session_id: state.inputs.session.id,
    tool_use_id: use.id,
    tool_name: use.name,
    model: reply?.metadata.model ?? null,
    violations: issues.map(({ path, message }) => ({ path, message })),
    timestamp: nowTimestamp(),
  });
}

/** Runs a tool that may run, reporting its start and progress through the turn's events. */
async function runTool(
  state: ToolTurn,
  use: ToolUseBlock,
  tool: RegisteredTool,
  span: TelemetrySpan | null,
) {
  const { signal, queue } = state;
  const { session } = state.inputs;
  const step = state.steps;
  queue.push({
    type: 'session.tool_started',
    step,
    tool_name: use.name,
    tool_use_id: use.id,
    input: use.input,
  });
  let running = true;
  // the handler runs with the tool's span active, so what it calls nests under it
  const run = span?.recording ? <T>(fn: () => T) => span.run(fn) : <T>(fn: () => T) => fn();
  try {
    const output = await unlessAborted(
      Promise.resolve().then(() =>
        run(() =>
          tool.run(use.input, {
            session_id: session.id,
            tool_use_id: use.id,
            workspace_path: session.workspace_path,
            signal,
            progress: (update) => {
              if (!running) return;
              queue.push({
                type: 'session.tool_progress',
                step,
                tool_name: use.name,
                tool_use_id: use.id,
                update,
              });
            },
          }),
        ),
      ),
      signal,
    );
    if (output === ABORTED) {
      const text = `The turn was cancelled while ${use.name} was running; it was told to stop, and what it did before stopping is unknown.`;
      return toolReply(session, use, text, { is_error: true, outcome: 'cancelled' });
    }
    return outputReply(state, use, output);
  } catch (error) {
    return toolReply(session, use, `${use.name} failed: ${errorText(error)}`, { is_error: true });
  } finally {
    running = false;
  }
}

/**
 * The reply carrying what a tool returned: where a tool's output enters the session, so it is
 * checked here once (text, result blocks, or a JSON value sent as JSON text). A value that
 * cannot be stored is answered with an error result naming the reason and the path, which the
 * model sees, and a WARN naming the tool (docs/decisions/0154).
 */
function outputReply(state: ToolTurn, use: ToolUseBlock, output: unknown): ToolReply {
  const { session } = state.inputs;
  const checked = toolOutputContent(output);
  if (checked.ok) return toolReply(session, use, checked.content, { is_error: false });
  const text = `tool "${use.name}" returned a value that cannot be stored: ${checked.reason} at ${checked.path}`;
  state.manager.settings.logger.warn(
    {
      event: 'tool_output_refused',
      session_id: session.id,
      tool: use.name,
      tool_use_id: use.id,
      reason: checked.reason,
      path: checked.path,
    },
    text,
  );
  return toolReply(session, use, text, { is_error: true });
}

import {
  createMessage,
  type Message,
  type ToolResultContentBlock,
  type ToolUseBlock,
  toolResultBlock,
} from '@yourtool/core';
import type { ToolOutcome } from './telemetry-options.js';

/** A tool's result, as the TOOL message that answers its use. */
export interface ToolReply {
  message: Message;
  is_error: boolean;
  /** How the use ended (its `execute_tool` span's `error.type` unless `ok`). */
  outcome: ToolOutcome;
}

/** A TOOL message answering `use`. */
export function toolReply(
  session: { id: string },
  use: ToolUseBlock,
  content: string | ToolResultContentBlock[],
  result: { is_error: boolean; outcome?: ToolOutcome },
): ToolReply {
  const { is_error } = result;
  const outcome = result.outcome ?? (is_error ? 'failed' : 'ok');
  return {
    is_error,
    outcome,
    message: createMessage({
      session_id: session.id,
      role: 'tool',
      content: [toolResultBlock(use.id, content, is_error)],
      metadata: { parent_tool_use_id: use.id },
    }),
  };
}

/**
 * The stored result of a tool the cancelled turn did not run: every tool use keeps a result,
 * so the history stays valid for the next turn (docs/decisions/0067).
 */
export function notRunReply(session: { id: string }, use: ToolUseBlock): ToolReply {
  return toolReply(
    session,
    use,
    `The turn was cancelled before ${use.name} ran, so it was not run.`,
    { is_error: true, outcome: 'not_run' },
  );
}

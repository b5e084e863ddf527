import type { Logger } from './logger.js';
import type { ParseIssue } from './parse.js';
import type { ToolDefinition } from './schemas/tool.js';
import type { ToolChoice } from './schemas/tool-choice.js';

/** Whether a tool choice makes the model call a tool (`required` or a named tool). */
export function isForcedToolChoice(choice: ToolChoice | undefined): boolean {
  return choice === 'required' || (typeof choice === 'object' && choice.type === 'tool');
}

/**
 * What is wrong with a request's `tool_choice` given its tools: a named tool that is not
 * offered, or a forced choice with no tools at all. Empty when the choice can be sent.
 */
export function toolChoiceViolations(request: {
  tool_choice?: ToolChoice | undefined;
  tools: readonly Pick<ToolDefinition, 'name'>[];
}): ParseIssue[] {
  const choice = request.tool_choice;
  if (!isForcedToolChoice(choice)) return [];
  if (request.tools.length === 0) {
    return [{ path: 'tool_choice', message: 'a forced tool choice needs at least one tool' }];
  }
  if (typeof choice === 'object' && !request.tools.some((t) => t.name === choice.name)) {
    return [
      {
        path: 'tool_choice.name',
        message: `"${choice.name}" is not among the request's tools (${request.tools
          .map((t) => t.name)
          .join(', ')})`,
      },
    ];
  }
  return [];
}

/** Renders a tool choice for logs and messages (`auto`, `tool:get_weather`). */
export function describeToolChoice(choice: ToolChoice | undefined): string {
  if (choice === undefined) return 'auto';
  return typeof choice === 'string' ? choice : `tool:${choice.name}`;
}

/**
 * Logs the WARN an adapter writes when it cannot send a forced tool choice and sends `auto`
 * instead (Ollama has no tool choice; Anthropic refuses a forced one with thinking on). The
 * caller's result is then checked as usual: a structured-output reply without the tool call
 * fails validation rather than passing silently.
 */
export function reportToolChoiceDowngrade(
  logger: Logger,
  details: { adapter: string; request_id: string; choice: ToolChoice; reason: string },
): void {
  logger.warn(
    {
      event: 'tool_choice_downgraded',
      adapter: details.adapter,
      request_id: details.request_id,
      tool_choice: describeToolChoice(details.choice),
      sent: 'auto',
      reason: details.reason,
    },
    `tool_choice ${describeToolChoice(details.choice)} sent as auto to ${details.adapter}: ${details.reason}`,
  );
}

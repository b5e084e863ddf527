import type { CanonicalRequest, Logger, ToolDefinition } from '@yourtool/core';
import { reportToolChoiceDowngrade } from '@yourtool/core/adapter';

/**
 * The tools an Ollama request offers under the request's tool choice. Ollama has no tool choice:
 * `none` offers no tools; a named tool offers that tool alone and `required` all of them, each
 * with a `tool_choice_downgraded` WARN, since the model may still answer in text (decision 0175).
 */
export function ollamaOfferedTools(
  request: Pick<CanonicalRequest, 'tools' | 'tool_choice' | 'request_id'>,
  context: { logger: Logger; adapter: string },
): ToolDefinition[] {
  const choice = request.tool_choice;
  if (choice === undefined || choice === 'auto') return request.tools;
  if (choice === 'none') return [];
  reportToolChoiceDowngrade(context.logger, {
    adapter: context.adapter,
    request_id: request.request_id,
    choice,
    reason: 'Ollama cannot force a tool call',
  });
  return choice === 'required'
    ? request.tools
    : request.tools.filter((t) => t.name === choice.name);
}

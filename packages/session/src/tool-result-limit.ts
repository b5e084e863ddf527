import { ToolDefinitionError } from '@yourtool/core';

/**
 * Checks a tool's own `max_result_tokens` (decision 0155): undefined, or a whole number of
 * tokens, 1 or more.
 * @throws ToolDefinitionError naming the tool and `max_result_tokens` for any other value.
 */
export function checkMaxResultTokens(toolName: string, value: unknown): void {
  if (value === undefined) return;
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 1) return;
  throw new ToolDefinitionError(toolName, [
    {
      path: 'max_result_tokens',
      message: `must be a whole number of tokens, 1 or more (got ${typeof value === 'number' ? value : typeof value})`,
    },
  ]);
}

import type { Logger } from '@yourtool/core';
import {
  createToolNamer,
  STRICT_TOOL_NAME_RULES,
  type ToolNameRules,
} from '@yourtool/core/adapter';

/**
 * What the Messages API takes as a tool name: 1-64 letters, digits, `_` or `-` (core's strict
 * rule). A tool use in a history named otherwise goes out under a derived name, stable and read
 * back as canonical, so an imported history with names like `fs.read` can still be sent.
 */
export const ANTHROPIC_TOOL_NAME_RULES: ToolNameRules = STRICT_TOOL_NAME_RULES;

/**
 * The wire name of each canonical tool name of one request (core's `createToolNamer` under
 * {@link ANTHROPIC_TOOL_NAME_RULES}), logging a `tool_name_mapped` WARN once per distinct name
 * that had to be renamed, naming `adapter` (the requested model's provider key).
 */
export function anthropicToolNamer(
  logger: Logger,
  requestId: string,
  adapter = 'anthropic',
): (name: string) => string {
  return createToolNamer({
    rules: ANTHROPIC_TOOL_NAME_RULES,
    adapter,
    logger,
    requestId,
  });
}

import type { Logger } from '@yourtool/core';
import { STRICT_TOOL_NAME_RULES, type ToolNameRules, wireToolName } from '@yourtool/core/adapter';

/**
 * What the Messages API takes as a tool name: 1-64 letters, digits, `_` or `-` (core's strict
 * rule). A tool use in a history named otherwise goes out under a derived name (decision 0140).
 */
export const ANTHROPIC_TOOL_NAME_RULES: ToolNameRules = STRICT_TOOL_NAME_RULES;

/**
 * The wire name of each canonical tool name of one request, logging a `tool_name_mapped` WARN
 * once per distinct name that had to be renamed.
 */
export function anthropicToolNamer(logger: Logger, requestId: string): (name: string) => string {
  const logged = new Set<string>();
  return (name) => {
    const wire = wireToolName(name, ANTHROPIC_TOOL_NAME_RULES);
    if (wire !== name && !logged.has(name)) {
      logged.add(name);
      logger.warn(
        {
          event: 'tool_name_mapped',
          adapter: 'anthropic',
          request_id: requestId,
          tool_name: name,
          wire_name: wire,
        },
        `tool name "${name}" breaks Anthropic's naming rule; sent as "${wire}" and read back as "${name}"`,
      );
    }
    return wire;
  };
}

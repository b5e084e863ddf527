import type { Logger } from '@yourtool/core';
import { GEMINI_TOOL_NAME_RULES, type ToolNameRules, wireToolName } from '@yourtool/core/adapter';
import { GOOGLE } from './signatures.js';

/**
 * What Gemini takes as a function name: a letter or `_` first, then letters, digits, `_`, `.`,
 * `-` or `:`, at most 64 characters (core's `GEMINI_TOOL_NAME_RULES`). A history tool use named
 * otherwise goes out under a derived name and comes back canonical (decision 0140).
 */
export const GOOGLE_TOOL_NAME_RULES: ToolNameRules = GEMINI_TOOL_NAME_RULES;

/**
 * The wire name of each canonical tool name of one request, logging a `tool_name_mapped` WARN
 * once per distinct name that had to be renamed.
 */
export function googleToolNamer(logger: Logger, requestId: string): (name: string) => string {
  const logged = new Set<string>();
  return (name) => {
    const wire = wireToolName(name, GOOGLE_TOOL_NAME_RULES);
    if (wire !== name && !logged.has(name)) {
      logged.add(name);
      logger.warn(
        {
          event: 'tool_name_mapped',
          adapter: GOOGLE,
          request_id: requestId,
          tool_name: name,
          wire_name: wire,
        },
        `tool name "${name}" breaks Gemini's naming rule; sent as "${wire}" and read back as "${name}"`,
      );
    }
    return wire;
  };
}

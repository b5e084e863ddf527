import type { Logger } from '@yourtool/core';
import { STRICT_TOOL_NAME_RULES, type ToolNameRules, wireToolName } from '@yourtool/core/adapter';

/**
 * The tool names the adapter sends to Ollama: 1-64 letters, digits, `_` or `-` (core's strict
 * rule). Ollama's `/api/chat` validates no tool names, but the models behind it were trained on
 * function-name-like names and their chat templates render them as identifiers, so a history
 * tool use named otherwise (`fs.read`, an MCP-style `server.tool`) goes out under a derived name
 * and comes back canonical (decision 0140).
 */
export const OLLAMA_TOOL_NAME_RULES: ToolNameRules = STRICT_TOOL_NAME_RULES;

/**
 * The wire name of each canonical tool name of one request, logging a `tool_name_mapped` WARN
 * once per distinct name that had to be renamed.
 */
export function ollamaToolNamer(logger: Logger, requestId: string): (name: string) => string {
  const logged = new Set<string>();
  return (name) => {
    const wire = wireToolName(name, OLLAMA_TOOL_NAME_RULES);
    if (wire !== name && !logged.has(name)) {
      logged.add(name);
      logger.warn(
        {
          event: 'tool_name_mapped',
          adapter: 'ollama',
          request_id: requestId,
          tool_name: name,
          wire_name: wire,
        },
        `tool name "${name}" is not function-name-like; sent to Ollama as "${wire}" and read back as "${name}"`,
      );
    }
    return wire;
  };
}

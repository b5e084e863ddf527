import type { Logger } from '@yourtool/core';
import {
  createToolNamer,
  STRICT_TOOL_NAME_RULES,
  type ToolNameRules,
} from '@yourtool/core/adapter';

/**
 * The tool names the adapter sends to Ollama: 1-64 letters, digits, `_` or `-` (core's strict
 * rule). Ollama's `/api/chat` validates no tool names, but the models behind it were trained on
 * function-name-like names and their chat templates render them as identifiers, so a history
 * tool use named otherwise (`fs.read`, an MCP-style `server.tool`) goes out under a derived name,
 * stable and read back as canonical.
 */
export const OLLAMA_TOOL_NAME_RULES: ToolNameRules = STRICT_TOOL_NAME_RULES;

/**
 * The wire name of each canonical tool name of one request (core's `createToolNamer` under
 * {@link OLLAMA_TOOL_NAME_RULES}), logging a `tool_name_mapped` WARN once per distinct name that
 * had to be renamed.
 */
export function ollamaToolNamer(logger: Logger, requestId: string): (name: string) => string {
  return createToolNamer({ rules: OLLAMA_TOOL_NAME_RULES, adapter: 'ollama', logger, requestId });
}

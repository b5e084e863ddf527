import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { SideEffects } from '@yourtool/core';
import type { McpServerConfig } from './config.js';

/**
 * What an MCP tool is declared to change (decision 0173). MCP annotations are hints a server
 * may get wrong, so: a per-tool override wins; then, for a `trusted` server only, `readOnlyHint`
 * means `read`; then the server's `side_effects`; otherwise `execute` for a stdio (or custom)
 * server and `network` for an HTTP one, both of which ask the confirmation hook.
 */
export function toolSideEffects(config: McpServerConfig, tool: Tool): SideEffects {
  const override = config.tools?.[tool.name]?.side_effects;
  if (override) return override;
  if (config.trusted === true && tool.annotations?.readOnlyHint === true) return 'read';
  if (config.side_effects) return config.side_effects;
  return 'url' in config ? 'network' : 'execute';
}

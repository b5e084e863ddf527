/**
 * @yourtool/mcp: tools from MCP servers (stdio and streamable HTTP) as tool handlers for any
 * session, on the official `@modelcontextprotocol/sdk`. Resources, prompts, sampling and
 * elicitation are out of scope (docs/decisions/0174).
 *
 * @packageDocumentation
 */

export {
  checkServerConfigs,
  DEFAULT_TOOL_TIMEOUT_MS,
  McpConfigError,
  type McpCustomServerConfig,
  type McpHttpServerConfig,
  type McpServerConfig,
  McpServerConfigSchema,
  type McpStdioServerConfig,
  type McpToolOverride,
  SERVER_NAME_PATTERN,
} from './config.js';
export { isToolAllowed } from './filter.js';
export { McpServerStartError, McpServers, type McpServersOptions } from './manager.js';
export { mcpToolName } from './names.js';
export type { RestartOptions } from './restart.js';
export { McpToolCallError, type ResultSource, toToolResult } from './results.js';
export {
  type InexpressibleConstruct,
  type NormalizedSchema,
  normalizeInputSchema,
} from './schema-normalize.js';
export { toolSideEffects } from './side-effects.js';

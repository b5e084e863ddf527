import { TOOL_NAME_PATTERN } from '@yourtool/core';
import { type ToolNameRules, wireToolName } from '@yourtool/core/adapter';

/** The registration rule of core (`TOOL_NAME_PATTERN`), as rules `wireToolName` can derive for. */
const REGISTRATION_RULES: ToolNameRules = {
  pattern: TOOL_NAME_PATTERN,
  maxLength: 64,
  description: 'snake_case, starting with a letter, at most 64 characters',
};

/** A server name that can prefix a tool name as is: lower-case letters and digits, no `_`. */
const PLAIN_SERVER = /^[a-z][a-z0-9]*$/;
/** A tool name that can follow the prefix as is. */
const PLAIN_TOOL = /^[a-z0-9_]+$/;

/**
 * The name an MCP tool is registered under in a session, from its server's configured name and
 * the tool's own MCP name (decision 0171). When the server name is plain (`[a-z][a-z0-9]*`, so
 * the first `_` always ends it) and the tool name is snake_case, the name is `server_tool`;
 * otherwise (dots, capitals, hyphens, over 64 characters) it is core's `wireToolName` of
 * `server.tool`: sanitized, lower-cased, cut and suffixed with the FNV-1a fingerprint of the
 * whole pair (decision 0140). A pure function of the pair: stable across restarts and unique
 * across servers, while the call goes to the server under the tool's own name.
 */
export function mcpToolName(server: string, tool: string): string {
  const plain = `${server}_${tool}`;
  if (PLAIN_SERVER.test(server) && PLAIN_TOOL.test(tool) && TOOL_NAME_PATTERN.test(plain)) {
    return plain;
  }
  const derived = wireToolName(`${server}.${tool}`, REGISTRATION_RULES).toLowerCase();
  // a server name starting with "_" or a digit is refused by the config, so this stays a safety net
  return /^[a-z]/.test(derived) ? derived : `t${derived}`.slice(0, 64);
}

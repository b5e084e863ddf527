import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { issuesFromZod, SideEffectsSchema, YourtoolError } from '@yourtool/core';
import { z } from 'zod';

/** Default deadline of one tool call: long tools must not be cut at the SDK's 60 s. */
export const DEFAULT_TOOL_TIMEOUT_MS = 120_000;

/** A server name: it prefixes its tools' names, so it starts with a letter (decision 0171). */
export const SERVER_NAME_PATTERN = /^[a-zA-Z][a-zA-Z0-9_-]{0,63}$/;

const ToolOverrideSchema = z.strictObject({
  /** What running this tool may change; overrides the server's default and its hints. */
  side_effects: SideEffectsSchema.optional(),
  /** This tool's deadline, in milliseconds. */
  timeout_ms: z.number().int().positive().optional(),
});

const CommonSchema = {
  /** Only these MCP tool names (a `*` matches any run of characters). */
  allow: z.array(z.string().min(1)).optional(),
  /** Never these MCP tool names (a `*` matches any run of characters); wins over `allow`. */
  deny: z.array(z.string().min(1)).optional(),
  /** Side effects of every tool of the server, unless a tool override says otherwise. */
  side_effects: SideEffectsSchema.optional(),
  /** Whether the server's `readOnlyHint` is believed: such tools become `read`. */
  trusted: z.boolean().optional(),
  /** Per-tool overrides, keyed by the tool's MCP name. */
  tools: z.record(z.string(), ToolOverrideSchema).optional(),
  /** Deadline of each call in milliseconds (default 120000). */
  timeout_ms: z.number().int().positive().optional(),
  /** Whether a progress notification restarts the deadline (default false). */
  progress_extends_deadline: z.boolean().optional(),
  /** With `progress_extends_deadline`, the longest a call may take in all, in milliseconds. */
  max_total_timeout_ms: z.number().int().positive().optional(),
};

const StdioServerSchema = z.strictObject({
  ...CommonSchema,
  /** The program to start (no shell). */
  command: z.string().min(1),
  args: z.array(z.string()).optional(),
  /** The child's environment beyond the SDK's safe minimum (HOME, PATH, SHELL, TERM, USER, LOGNAME). */
  env: z.record(z.string(), z.string()).optional(),
  cwd: z.string().min(1).optional(),
});

const HttpServerSchema = z.strictObject({
  ...CommonSchema,
  /** The streamable HTTP endpoint. */
  url: z.url({ protocol: /^https?$/ }),
  /** Headers sent with every request (an `Authorization` token, say); never logged. */
  headers: z.record(z.string(), z.string()).optional(),
});

/** The configuration of one server, as YAML or `createRuntime` gives it. */
export const McpServerConfigSchema = z.union([StdioServerSchema, HttpServerSchema]);

/** A server started as a child process, speaking MCP over stdio. */
export type McpStdioServerConfig = z.input<typeof StdioServerSchema>;
/** A server reached over streamable HTTP. */
export type McpHttpServerConfig = z.input<typeof HttpServerSchema> & {
  /** OAuth for the server (the SDK's provider); programmatic only. */
  authProvider?: OAuthClientProvider;
  /** The fetch the transport uses (a proxy, a test); programmatic only. */
  fetch?: typeof fetch;
};
/** A server on a transport the application builds (the SDK's in-memory pair, say). */
export type McpCustomServerConfig = Omit<
  McpStdioServerConfig,
  'command' | 'args' | 'env' | 'cwd'
> & {
  /** Makes a fresh transport: called at start and at each restart. */
  transport: () => Transport;
};
/** One server's configuration. */
export type McpServerConfig = McpStdioServerConfig | McpHttpServerConfig | McpCustomServerConfig;

/** Per-tool settings resolved from a server's configuration. */
export type McpToolOverride = z.input<typeof ToolOverrideSchema>;

/** A server's configuration was refused; the message names the server and the field. */
export class McpConfigError extends YourtoolError {
  /** The server whose configuration is wrong. */
  readonly server: string;

  constructor(server: string, message: string) {
    super('mcp_config_invalid', `MCP server "${server}": ${message}`);
    this.server = server;
  }
}

/**
 * Checks every server's configuration: the name, then the fields (each problem with its path,
 * values never echoed, since env and headers hold secrets). Returns the configurations as given
 * (programmatic members such as `transport` and `authProvider` kept).
 */
export function checkServerConfigs(
  servers: Readonly<Record<string, McpServerConfig>>,
): Record<string, McpServerConfig> {
  for (const [name, config] of Object.entries(servers)) {
    if (!SERVER_NAME_PATTERN.test(name)) {
      throw new McpConfigError(
        name,
        'the name must start with a letter and hold only letters, digits, "_" or "-" (at most 64)',
      );
    }
    if ('transport' in config && typeof config.transport === 'function') continue;
    const { authProvider: _auth, fetch: _fetch, ...plain } = config as McpHttpServerConfig;
    const kind = 'command' in plain ? StdioServerSchema : 'url' in plain ? HttpServerSchema : null;
    if (kind === null)
      throw new McpConfigError(name, 'give either "command" (stdio) or "url" (HTTP)');
    const parsed = kind.safeParse(plain);
    if (!parsed.success) {
      const issues = issuesFromZod(parsed.error, 'mcp_servers.' + name);
      throw new McpConfigError(name, issues.map((i) => `${i.path}: ${i.message}`).join('; '));
    }
  }
  return { ...servers };
}

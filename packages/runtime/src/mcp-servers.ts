import { readFileSync } from 'node:fs';
import type { Logger, ToolHandler } from '@yourtool/core';
import { parseDocument } from 'yaml';
import { type Env, interpolateEnv } from './config.js';
import { RuntimeSetupError } from './setup-error.js';

/**
 * What the runtime uses of `@yourtool/mcp`'s `McpServers` (the package is loaded only when
 * servers are configured, so its type is restated here).
 */
export interface RuntimeMcpServers {
  /** Every MCP tool as a session tool handler, as of the last start or refresh. */
  tools(): ToolHandler[];
  /** Whether a server announced a tool list change not applied yet. */
  readonly changePending: boolean;
  /** Applies announced tool list changes; whether the tools changed. */
  refresh(): Promise<boolean>;
  /** Servers with tools that ask the confirmation hook. */
  serversNeedingConfirmation(): string[];
  /** Each server's name, state and number of tools. */
  status(): { server: string; state: string; tools: number }[];
  /** Ends every connection and child process. */
  close(): Promise<void>;
}

type Servers = Record<string, Record<string, unknown>>;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A models document with its own sections (`mcp_servers:`, `budgets:`) taken out. */
export interface ModelsDocumentParts {
  models: unknown;
  mcpServers: unknown;
  budgets: unknown;
}

/**
 * Takes `mcp_servers:` and `budgets:` out of a models document (YAML text or a parsed value),
 * so the router reads the rest as before. Text that does not parse is left for the router to
 * report.
 */
export function splitModelsDocument(input: unknown): ModelsDocumentParts {
  const none = { models: input, mcpServers: undefined, budgets: undefined };
  let value = input;
  if (typeof input === 'string') {
    const document = parseDocument(input);
    if (document.errors.length > 0) return none;
    value = document.toJS({ maxAliasCount: 100 });
  }
  if (!isObject(value) || !('mcp_servers' in value || 'budgets' in value)) return none;
  const { mcp_servers, budgets, ...models } = value;
  return { models, mcpServers: mcp_servers, budgets };
}

/** The servers of the `mcpServers` option: a map of servers, or YAML text / `{ file }` of a document. */
function optionServers(option: unknown): unknown {
  let value = option;
  if (isObject(option) && typeof option.file === 'string' && Object.keys(option).length === 1) {
    try {
      value = readFileSync(option.file, 'utf8');
    } catch (error) {
      throw new RuntimeSetupError(
        'invalid_option',
        `cannot read mcpServers file ${option.file}: ${(error as Error).message}`,
        {
          cause: error,
        },
      );
    }
  }
  if (typeof value === 'string') {
    const document = parseDocument(value);
    if (document.errors.length > 0) {
      throw new RuntimeSetupError(
        'invalid_option',
        `mcpServers is not valid YAML: ${document.errors[0]?.message ?? ''}`,
      );
    }
    value = document.toJS({ maxAliasCount: 100 });
  }
  return isObject(value) && 'mcp_servers' in value ? value.mcp_servers : value;
}

/** Fills `${NAME}` in a server's string fields (command, args, env, cwd, url, headers). */
function interpolateServer(
  name: string,
  config: Record<string, unknown>,
  env: Env,
): Record<string, unknown> {
  const issues: Array<{ path: string; message: string }> = [];
  const out = { ...config };
  for (const field of ['command', 'args', 'env', 'cwd', 'url', 'headers']) {
    if (field in config)
      out[field] = interpolateEnv(config[field], env, `mcp_servers.${name}.${field}`, issues);
  }
  if (issues.length > 0) {
    throw new RuntimeSetupError(
      'invalid_option',
      issues.map((i) => `${i.path}: ${i.message}`).join('; '),
    );
  }
  return out;
}

/**
 * The MCP servers of models.yaml's `mcp_servers:` and of the `mcpServers` option, with `${NAME}`
 * filled from `env` (errors name the path and the variable, never a value). A name in both is
 * refused.
 */
export function collectMcpServers(fromModels: unknown, fromOption: unknown, env: Env): Servers {
  const servers: Servers = {};
  for (const [where, raw] of [
    ['models.yaml mcp_servers', fromModels],
    ['mcpServers', fromOption === undefined ? undefined : optionServers(fromOption)],
  ] as const) {
    if (raw === undefined || raw === null) continue;
    if (!isObject(raw))
      throw new RuntimeSetupError(
        'invalid_option',
        `${where} must map server names to their settings`,
      );
    for (const [name, config] of Object.entries(raw)) {
      if (name in servers) {
        throw new RuntimeSetupError(
          'invalid_option',
          `MCP server "${name}" is configured twice (models.yaml and mcpServers)`,
        );
      }
      if (!isObject(config))
        throw new RuntimeSetupError(
          'invalid_option',
          `MCP server "${name}": its settings must be a mapping`,
        );
      servers[name] = interpolateServer(name, config, env);
    }
  }
  return servers;
}

/**
 * Starts the configured MCP servers through `@yourtool/mcp` (an optional peer, loaded only
 * now), and WARNs once, naming them, about servers whose tools would be refused on every call
 * because no confirmation hook is set (decision 0173).
 */
export async function startMcpServers(
  servers: Servers,
  options: { logger: Logger; hasConfirm: boolean },
): Promise<RuntimeMcpServers | undefined> {
  if (Object.keys(servers).length === 0) return undefined;
  let module: { McpServers?: { start(options: unknown): Promise<RuntimeMcpServers> } };
  try {
    // a specifier in a variable: the package is an optional peer the compiler need not find
    const specifier = '@yourtool/mcp';
    module = (await import(specifier)) as typeof module;
  } catch (error) {
    throw new RuntimeSetupError(
      'mcp_package_missing',
      'mcp_servers needs @yourtool/mcp: install it (npm install @yourtool/mcp)',
      { cause: error },
    );
  }
  if (typeof module.McpServers?.start !== 'function') {
    throw new RuntimeSetupError('mcp_package_missing', '@yourtool/mcp does not export McpServers');
  }
  const started = await module.McpServers.start({ servers, logger: options.logger });
  const refused = options.hasConfirm ? [] : started.serversNeedingConfirmation();
  if (refused.length > 0) {
    options.logger.warn(
      { event: 'mcp_tools_need_confirmation', servers: refused },
      `MCP servers ${refused.map((s) => `"${s}"`).join(', ')} offer tools that ask for confirmation (side effects write, execute or network), and no confirm hook is set: every call to them will be refused. Pass createRuntime's confirm, or set side_effects (or trusted: true) for the server or its tools (mcp_servers.<name>.side_effects, mcp_servers.<name>.tools.<tool>.side_effects).`,
    );
  }
  return started;
}

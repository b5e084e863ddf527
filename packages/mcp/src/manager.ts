import {
  CONFIRMED_SIDE_EFFECTS,
  type Logger,
  silentLogger,
  type ToolHandler,
  YourtoolError,
} from '@yourtool/core';
import { checkServerConfigs, type McpServerConfig } from './config.js';
import { ServerConnection } from './connection.js';
import { isToolAllowed } from './filter.js';
import { mcpToolName } from './names.js';
import type { RestartOptions } from './restart.js';
import { normalizeInputSchema } from './schema-normalize.js';
import { mcpToolHandler } from './tool-handler.js';

/** Options of {@link McpServers.start}. */
export interface McpServersOptions {
  /** The servers, by name (the name prefixes their tools' names). */
  servers: Readonly<Record<string, McpServerConfig>>;
  /** Where WARNs (skipped tools, lossy results, crashes) and servers' stderr go; silent by default. */
  logger?: Logger;
  /** Back-off of a crashed server's restarts. */
  restart?: RestartOptions;
}

/** A server could not be started; the message names it and the cause, never its env or headers. */
export class McpServerStartError extends YourtoolError {
  /** The server that failed. */
  readonly server: string;

  constructor(server: string, cause: unknown) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    super('mcp_server_start_failed', `MCP server "${server}" could not be started: ${reason}`, {
      cause,
    });
    this.server = server;
  }
}

/**
 * The MCP servers of one runtime (decision 0174): each started once and shared by every session,
 * its tools offered as session tool handlers. A crashed server is restarted with back-off; a
 * `tools/list_changed` notification is applied by {@link refresh}, which the owner calls between
 * turns, so a turn never sees its tools change. {@link close} ends every connection and child.
 */
export class McpServers {
  readonly #connections: ServerConnection[];
  readonly #logger: Logger;
  /** The handlers offered, each with its server. */
  #offered: { server: string; handler: ToolHandler }[] = [];
  readonly #listeners: Set<() => void>;

  private constructor(connections: ServerConnection[], logger: Logger, listeners: Set<() => void>) {
    this.#connections = connections;
    this.#logger = logger;
    this.#listeners = listeners;
  }

  /**
   * Checks the configuration (throws `McpConfigError` naming the server and field), starts every
   * server at once and lists its tools (every page). If one cannot start, the others are closed
   * and {@link McpServerStartError} names it.
   */
  static async start(options: McpServersOptions): Promise<McpServers> {
    const logger = options.logger ?? silentLogger;
    const configs = checkServerConfigs(options.servers);
    const listeners = new Set<() => void>();
    const connections = Object.entries(configs).map(
      ([name, config]) =>
        new ServerConnection({
          name,
          config,
          logger,
          ...(options.restart ? { restart: options.restart } : {}),
          onChange: () => {
            for (const listener of listeners) listener();
          },
        }),
    );
    const servers = new McpServers(connections, logger, listeners);
    const started = await Promise.allSettled(connections.map((c) => c.start()));
    const failed = started.findIndex((s) => s.status === 'rejected');
    if (failed !== -1) {
      await servers.close();
      const reason = (started[failed] as PromiseRejectedResult).reason;
      throw new McpServerStartError(connections[failed]?.name ?? '?', reason);
    }
    servers.#offered = servers.#build();
    return servers;
  }

  /** Every tool of every server as a session tool handler, as of the last start or refresh. */
  tools(): ToolHandler[] {
    return this.#offered.map((o) => o.handler);
  }

  /** Whether a server announced a tool list change that {@link refresh} has not applied yet. */
  get changePending(): boolean {
    return this.#connections.some((c) => c.stale);
  }

  /** Calls `listener` whenever a server announces a tool list change; returns the unsubscriber. */
  onToolsChanged(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * Applies announced tool list changes (call it between turns). Returns whether the tools
   * changed; {@link tools} then gives the new handlers.
   */
  async refresh(): Promise<boolean> {
    const results = await Promise.allSettled(this.#connections.map((c) => c.refresh()));
    results.forEach((result, i) => {
      if (result.status === 'fulfilled') return;
      const server = this.#connections[i]?.name;
      const error = (result.reason as Error)?.message ?? String(result.reason);
      this.#logger.warn(
        { event: 'mcp_refresh_failed', server, error },
        `MCP server "${server}" could not list its tools again; its previous tools stay until the next refresh`,
      );
    });
    if (!results.some((r) => r.status === 'fulfilled' && r.value)) return false;
    this.#offered = this.#build();
    return true;
  }

  /** Each server's name, state and number of tools offered. */
  status(): { server: string; state: string; tools: number }[] {
    return this.#connections.map((c) => ({
      server: c.name,
      state: c.state,
      tools: this.#offered.filter((o) => o.server === c.name).length,
    }));
  }

  /** The servers with tools that ask the confirmation hook (write, execute or network). */
  serversNeedingConfirmation(): string[] {
    const names = new Set<string>();
    for (const { server, handler } of this.#offered) {
      if (CONFIRMED_SIDE_EFFECTS.has(handler.definition.side_effects)) names.add(server);
    }
    return [...names];
  }

  /** Ends every connection and stdio child process; the handlers answer with an error afterwards. */
  async close(): Promise<void> {
    this.#listeners.clear();
    await Promise.all(this.#connections.map((c) => c.close().catch(() => {})));
  }

  #build(): { server: string; handler: ToolHandler }[] {
    const offered: { server: string; handler: ToolHandler }[] = [];
    const taken = new Map<string, string>();
    for (const connection of this.#connections) {
      for (const tool of connection.tools) {
        if (!isToolAllowed(tool.name, connection.config)) continue;
        const normalized = normalizeInputSchema(tool.inputSchema);
        if (!normalized.ok) {
          this.#skip(
            connection.name,
            tool.name,
            normalized.construct,
            `${normalized.path}: ${normalized.reason}`,
          );
          continue;
        }
        const name = mcpToolName(connection.name, tool.name);
        const owner = taken.get(name);
        if (owner) {
          this.#skip(
            connection.name,
            tool.name,
            'name',
            `its name "${name}" is already taken by ${owner}`,
          );
          continue;
        }
        taken.set(name, `"${tool.name}" of "${connection.name}"`);
        const handler = mcpToolHandler({
          connection,
          tool,
          name,
          inputSchema: normalized.schema,
          logger: this.#logger,
        });
        offered.push({ server: connection.name, handler });
      }
    }
    return offered;
  }

  #skip(server: string, tool: string, construct: string, reason: string): void {
    this.#logger.warn(
      { event: 'mcp_tool_skipped', server, tool, construct, reason },
      `MCP server "${server}" tool "${tool}" is not offered: ${construct} (${reason})`,
    );
  }
}

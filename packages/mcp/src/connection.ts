import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  getDefaultEnvironment,
  StdioClientTransport,
} from '@modelcontextprotocol/sdk/client/stdio.js';
import {
  StreamableHTTPClientTransport,
  StreamableHTTPError,
} from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  type CallToolResult,
  type Tool,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from '@yourtool/core';
import type { McpHttpServerConfig, McpServerConfig } from './config.js';
import { type RestartOptions, RestartSchedule } from './restart.js';

/** What a connection is doing. */
export type ConnectionState = 'starting' | 'ready' | 'restarting' | 'closed';

/** The client's name and version, sent in `initialize`. */
const CLIENT_INFO = { name: 'yourtool', version: '0.1.0' };

/** Options of one call, as the SDK takes them. */
export interface CallOptions {
  signal: AbortSignal;
  timeout: number;
  resetTimeoutOnProgress: boolean;
  maxTotalTimeout?: number;
  onprogress: (progress: { progress: number; total?: number; message?: string }) => void;
}

function stdioTransport(name: string, config: McpServerConfig, logger: Logger): Transport {
  const { command, args, env, cwd } = config as {
    command: string;
    args?: string[];
    env?: Record<string, string>;
    cwd?: string;
  };
  // the SDK's safe minimum (PATH, HOME, ...) plus the configured env: never the host's secrets
  const transport = new StdioClientTransport({
    command,
    args: args ?? [],
    env: { ...getDefaultEnvironment(), ...env },
    ...(cwd ? { cwd } : {}),
    stderr: 'pipe',
  });
  transport.stderr?.on('data', (chunk: Buffer) => {
    const text = chunk.toString('utf8').trimEnd();
    // a server's own log lines are information, kept off the console (decision 0074)
    if (text)
      logger.info?.(
        { event: 'mcp_server_stderr', server: name, text },
        `MCP server "${name}" stderr`,
      );
  });
  return transport;
}

function httpTransport(config: McpHttpServerConfig): Transport {
  return new StreamableHTTPClientTransport(new URL(config.url), {
    ...(config.headers ? { requestInit: { headers: config.headers } } : {}),
    ...(config.authProvider ? { authProvider: config.authProvider } : {}),
    ...(config.fetch ? { fetch: config.fetch } : {}),
  });
}

/** A fresh transport for a server's configuration. */
function makeTransport(name: string, config: McpServerConfig, logger: Logger): Transport {
  if ('transport' in config) return config.transport();
  if ('command' in config) return stdioTransport(name, config, logger);
  return httpTransport(config);
}

/**
 * One server's connection: the SDK client, its transport (a child process for stdio), the tools
 * it last listed, and the restart after a crash (with back-off; calls made meanwhile fail fast).
 */
export class ServerConnection {
  readonly name: string;
  readonly config: McpServerConfig;
  #logger: Logger;
  #client: Client | undefined;
  #transport: Transport | undefined;
  #state: ConnectionState = 'starting';
  #tools: Tool[] = [];
  #stale = false;
  #restart: RestartSchedule;
  #onChange: () => void;

  constructor(options: {
    name: string;
    config: McpServerConfig;
    logger: Logger;
    restart?: RestartOptions;
    onChange?: () => void;
  }) {
    this.name = options.name;
    this.config = options.config;
    this.#logger = options.logger;
    this.#onChange = options.onChange ?? (() => {});
    this.#restart = new RestartSchedule(options.restart ?? {}, () => this.#reconnect());
  }

  /** What the connection is doing. */
  get state(): ConnectionState {
    return this.#state;
  }

  /** The tools the server listed last (every page). */
  get tools(): readonly Tool[] {
    return this.#tools;
  }

  /** Whether the server said its tool list changed since it was last listed. */
  get stale(): boolean {
    return this.#stale;
  }

  /** Connects and lists the tools; rejects (after cleaning up) when the server cannot start. */
  async start(): Promise<void> {
    this.#tools = await this.#connect();
    this.#state = 'ready';
  }

  async #connect(): Promise<Tool[]> {
    const client = new Client(CLIENT_INFO, { capabilities: {} });
    client.onerror = (error) => {
      this.#logger.debug?.({
        event: 'mcp_transport_error',
        server: this.name,
        error: error.message,
      });
    };
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      this.#stale = true;
      this.#onChange();
    });
    try {
      const transport = makeTransport(this.name, this.config, this.#logger);
      await client.connect(transport);
      this.#transport = transport;
      const tools = await listAll(client);
      client.onclose = () => this.#closedUnexpectedly(client);
      this.#client = client;
      return tools;
    } catch (error) {
      await client.close().catch(() => {});
      throw error;
    }
  }

  #closedUnexpectedly(client: Client): void {
    if (this.#client !== client || this.#state === 'closed') return;
    this.#client = undefined;
    this.#state = 'restarting';
    this.#logger.warn(
      { event: 'mcp_server_closed', server: this.name },
      `MCP server "${this.name}" closed the connection; restarting it, its tools answer with an error meanwhile`,
    );
    this.#restart.schedule();
  }

  async #reconnect(): Promise<boolean> {
    if (this.#state === 'closed') return true;
    try {
      const tools = await this.#connect();
      // close() may have run while this restart was connecting
      if ((this.#state as ConnectionState) === 'closed') {
        await this.#client?.close();
        return true;
      }
      // a restarted server's list waits for the next refresh, like an announced change
      if (JSON.stringify(tools) !== JSON.stringify(this.#tools)) {
        this.#stale = true;
        this.#pending = tools;
      }
      this.#state = 'ready';
      this.#logger.warn(
        { event: 'mcp_server_restarted', server: this.name },
        `MCP server "${this.name}" restarted`,
      );
      if (this.#stale) this.#onChange();
      return true;
    } catch (error) {
      this.#logger.warn(
        { event: 'mcp_server_restart_failed', server: this.name, error: (error as Error).message },
        `MCP server "${this.name}" could not be restarted; trying again later`,
      );
      return false;
    }
  }

  /** A tool list read after a restart, applied by the next {@link refresh}. */
  #pending: Tool[] | undefined;

  /**
   * Applies a changed tool list (re-listing every page), if the server announced one; called
   * between turns only, so a turn never sees its tools change. Returns whether anything changed.
   */
  async refresh(): Promise<boolean> {
    if (!this.#stale || this.#state !== 'ready' || !this.#client) return false;
    const tools = this.#pending ?? (await listAll(this.#client));
    // cleared only once the list is read: a failed re-list is tried again at the next refresh
    this.#stale = false;
    this.#pending = undefined;
    const changed = JSON.stringify(tools) !== JSON.stringify(this.#tools);
    this.#tools = tools;
    return changed;
  }

  /** Calls a tool by its MCP name; throws when the server is down or the call fails. */
  async call(
    tool: string,
    input: Record<string, unknown>,
    options: CallOptions,
  ): Promise<CallToolResult> {
    const client = this.#client;
    if (this.#state !== 'ready' || !client) {
      throw new Error(
        `MCP server "${this.name}" is ${this.#state === 'closed' ? 'closed' : 'restarting after a crash'}; try again later`,
      );
    }
    try {
      const params = { name: tool, arguments: input };
      return (await client.callTool(params, undefined, options)) as CallToolResult;
    } catch (error) {
      // an HTTP server that forgot the session (restarted) answers 404: start a new one, as the spec says
      if (error instanceof StreamableHTTPError && error.code === 404) {
        await client.close().catch(() => {});
        this.#closedUnexpectedly(client);
      }
      throw error;
    }
  }

  /** Ends the connection (and the child process of a stdio server) for good. */
  async close(): Promise<void> {
    this.#state = 'closed';
    this.#restart.cancel();
    const client = this.#client;
    const transport = this.#transport;
    this.#client = undefined;
    this.#transport = undefined;
    // an HTTP server is told the session ended (DELETE), so it can free what it holds for it
    if (transport instanceof StreamableHTTPClientTransport) {
      await transport.terminateSession().catch(() => {});
    }
    await client?.close();
  }
}

/** Every page of `tools/list`. */
async function listAll(client: Client): Promise<Tool[]> {
  const tools: Tool[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 1000; page++) {
    const result = await client.listTools(cursor === undefined ? {} : { cursor });
    tools.push(...result.tools);
    cursor = result.nextCursor;
    if (!cursor) return tools;
  }
  throw new Error('tools/list returned more than 1000 pages');
}

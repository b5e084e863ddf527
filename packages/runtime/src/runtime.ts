import { readFileSync } from 'node:fs';
import {
  createEventBus,
  type EventBus,
  type Logger,
  type SessionStats,
  type SessionStore,
  sessionStatsOf,
  silentLogger,
} from '@yourtool/core';
import { MemorySessionStore } from '@yourtool/core/memory-store';
import { defaultPriceTable, type PriceTable } from '@yourtool/pricing';
import {
  type AdapterFactory,
  type AvailabilityTracker,
  checkRoutingConfig,
  ModelRegistry,
  type RegistryConfig,
  Router,
  type RoutingConfig,
} from '@yourtool/router';
import { SessionManager, type SessionManagerOptions, ToolRegistry } from '@yourtool/session';
import { KNOWN_ADAPTER_PACKAGES, loadFactory } from './adapter-packages.js';
import { readConfigBudgets } from './budget-config.js';
import { setUpBudgets, withConfigBudgets } from './budgets.js';
import { type Env, readModelsConfig, readRoutingConfig } from './config.js';
import {
  collectMcpServers,
  type RuntimeMcpServers,
  splitModelsDocument,
  startMcpServers,
} from './mcp-servers.js';
import { checkRuntimeOptions } from './options.js';
import type { ConfigSource, RuntimeOptions } from './runtime-options.js';
import { RuntimeSetupError } from './setup-error.js';
import { availabilityOf } from './shared-availability.js';
import { createStderrLogger } from './stderr-logger.js';

export { RuntimeSetupError } from './setup-error.js';

/** Everything {@link createRuntime} wired, ready to use. */
export interface Runtime {
  /** The session manager: `createSession`, `send`, `sendAndWait`, `swapModel`, `cancel`. */
  readonly sessions: SessionManager;
  readonly store: SessionStore;
  readonly registry: ModelRegistry;
  readonly router: Router;
  /** The one bus: `route.decided`, `llm.call_*`; availability listens to it. */
  readonly bus: EventBus;
  readonly availability: AvailabilityTracker;
  readonly pricing: PriceTable;
  readonly logger: Logger;
  /** A session's figures: message count, last model, exact total cost, unpriced messages. */
  sessionStats(sessionId: string): Promise<SessionStats>;
  /** A session's exact total cost in USD, as a decimal string (unpriced calls are not in it). */
  sessionCost(sessionId: string): Promise<string>;
  /** The MCP servers of `mcp_servers:` and `mcpServers`, when any are configured. */
  readonly mcp: RuntimeMcpServers | undefined;
  /**
   * Applies the tool list changes MCP servers announced and registers the tools they added,
   * returning their names; call it between turns, never during one (decision 0174). A tool a
   * server removed answers with an error when called.
   */
  refreshTools(): Promise<string[]>;
  /** Closes the MCP servers, the adapters and the store. */
  close(): Promise<void>;
}

function readSource<T>(source: ConfigSource<T>, what: string): { input: string | T; name: string } {
  if (source !== null && typeof source === 'object' && 'file' in source) {
    const file = (source as { file: unknown }).file;
    if (typeof file !== 'string')
      throw new RuntimeSetupError('invalid_option', `${what}.file must be a path`);
    try {
      return { input: readFileSync(file, 'utf8'), name: file };
    } catch (error) {
      throw new RuntimeSetupError(
        'invalid_option',
        `cannot read ${what} file ${file}: ${(error as Error).message}`,
        {
          cause: error,
        },
      );
    }
  }
  return { input: source as string | T, name: `<${what}>` };
}

async function openStoreUrl(url: string, logger: Logger): Promise<SessionStore> {
  let module: { openStore?: (url: string, options?: { logger?: Logger }) => Promise<SessionStore> };
  try {
    module = (await import('@yourtool/store')) as typeof module;
  } catch (error) {
    throw new RuntimeSetupError(
      'store_package_missing',
      'a store URL needs @yourtool/store: install it (npm install @yourtool/store), or pass a SessionStore',
      { cause: error },
    );
  }
  if (typeof module.openStore !== 'function') {
    throw new RuntimeSetupError(
      'store_package_missing',
      '@yourtool/store does not export openStore',
    );
  }
  return module.openStore(url, { logger });
}

/** The API keys a registry document names, given or read from the environment. */
function configuredKeys(config: RegistryConfig, env: Env): string[] {
  return Object.values(config.adapters).flatMap((entry) => {
    const fromEnv = entry.api_key_env ? env[entry.api_key_env] : undefined;
    return [entry.api_key, fromEnv].filter((k): k is string => typeof k === 'string' && k !== '');
  });
}

/**
 * Wires the whole stack from two YAML documents in one call: the model registry (adapters built
 * by `type` from their installed packages, keys from the environment), the routing chain with
 * availability on one event bus, the price table, a store, the tools, and the session manager.
 * One logger goes everywhere. Every option is checked first: one it cannot use throws
 * {@link InvalidRuntimeOptionError} naming it, before anything is read, opened or stored.
 *
 * @example
 * const runtime = await createRuntime({
 *   models: { file: 'models.yaml' },
 *   routing: 'global_default: sonnet',
 *   store: 'sqlite:./sessions.db',
 * });
 * const session = await runtime.sessions.createSession({ workspace_path: process.cwd() });
 * const result = await runtime.sessions.sendAndWait(session.id, 'Hello');
 */
export async function createRuntime(options: RuntimeOptions): Promise<Runtime> {
  checkRuntimeOptions(options);
  const env = options.env ?? process.env;
  const { registryConfig, registry, logger, mcpServers, budgets } = await buildRegistry(
    options,
    env,
  );
  const budgetOptions = withConfigBudgets(options.budgets, readConfigBudgets(budgets));
  const mcpConfigs = collectMcpServers(mcpServers, options.mcpServers, env);
  const routing = routingOf(options, registryConfig, registry, env);

  const bus = createEventBus();
  const store =
    typeof options.store === 'string'
      ? await openStoreUrl(options.store, logger)
      : (options.store ?? new MemorySessionStore());
  const { tracker: availability, shared } = await availabilityOf(options, store, logger).catch(
    async (error: unknown) => {
      // a store this call opened is this call's to close when setup fails
      if (typeof options.store === 'string') await store.close();
      throw error;
    },
  );
  availability.connect(bus);
  const router = new Router({ registry, availability, bus, config: routing, logger });
  const pricing = options.pricing ?? defaultPriceTable();
  const tools =
    options.tools instanceof ToolRegistry ? options.tools : new ToolRegistry(options.tools ?? []);
  const mcp = await startMcpServers(mcpConfigs, {
    logger,
    hasConfirm: options.confirm !== undefined,
  });
  try {
    for (const handler of mcp?.tools() ?? []) tools.register(handler);
  } catch (error) {
    // a name clash with the application's own tools: no child process may outlive the failure
    await mcp?.close();
    throw error;
  }

  const sessions = new SessionManager({
    store,
    router,
    pricing,
    bus,
    tools,
    logger,
    ...managerOptions(options),
    ...(budgetOptions ? { budgets: await setUpBudgets(budgetOptions, store) } : {}),
  });

  const sessionStats = (sessionId: string): Promise<SessionStats> =>
    store.sessionStats
      ? store.sessionStats(sessionId)
      : store.loadMessages(sessionId).then(({ messages }) => sessionStatsOf(messages));

  return {
    sessions,
    store,
    registry,
    router,
    bus,
    availability,
    pricing,
    logger,
    sessionStats,
    sessionCost: async (sessionId) => (await sessionStats(sessionId)).total_cost_usd,
    mcp,
    refreshTools: () => registerChangedTools(mcp, tools, logger),
    close: async () => {
      await shared?.close();
      await mcp?.close();
      await registry.close();
      await store.close();
    },
  };
}

/**
 * The models document, the logger (its API keys redacted), and the registry with a factory for
 * each adapter type the document uses: a given one, else its package's (loaded now).
 */
async function buildRegistry(
  options: RuntimeOptions,
  env: Env,
): Promise<{
  registryConfig: RegistryConfig;
  registry: ModelRegistry;
  logger: Logger;
  mcpServers: unknown;
  budgets: unknown;
}> {
  const source = readSource(options.models, 'models');
  const { models: modelsInput, mcpServers, budgets } = splitModelsDocument(source.input);
  const models = { input: modelsInput, name: source.name };
  const adapterTypes = [
    ...new Set([...Object.keys(KNOWN_ADAPTER_PACKAGES), ...Object.keys(options.factories ?? {})]),
  ];
  const registryConfig = readModelsConfig(models.input, env, models.name, { adapterTypes });
  const logger =
    options.logger === false
      ? silentLogger
      : (options.logger ?? createStderrLogger({ secrets: configuredKeys(registryConfig, env) }));

  const factories: Record<string, AdapterFactory> = { ...options.factories };
  for (const type of new Set(Object.values(registryConfig.adapters).map((a) => a.type))) {
    factories[type] ??= await loadFactory(type);
  }
  const registry = new ModelRegistry(registryConfig, {
    factories,
    env,
    logger,
    ...(options.retry ? { retry: options.retry } : {}),
  });
  return { registryConfig, registry, logger, mcpServers, budgets };
}

/**
 * The routing document given, or the first model of `models` as `global_default`; every model
 * it names must resolve in the registry.
 */
function routingOf(
  options: RuntimeOptions,
  registryConfig: RegistryConfig,
  registry: ModelRegistry,
  env: Env,
): RoutingConfig {
  let routing: RoutingConfig;
  if (options.routing === undefined) {
    const first = Object.keys(registryConfig.models)[0];
    if (!first) throw new RuntimeSetupError('invalid_option', 'models.yaml has no models');
    routing = readRoutingConfig({ global_default: first }, env, '<routing>');
  } else {
    const source = readSource(options.routing, 'routing');
    routing = readRoutingConfig(source.input, env, source.name);
  }
  checkRoutingConfig(routing, registry, '<routing>');
  return routing;
}

/** The options `createRuntime` hands to the session manager as they are (those that are set). */
function managerOptions(
  options: RuntimeOptions,
): Omit<SessionManagerOptions, 'store' | 'router' | 'pricing' | 'bus' | 'tools' | 'logger'> {
  return {
    ...(options.costOptions ? { costOptions: options.costOptions } : {}),
    ...(options.confirm ? { confirm: options.confirm } : {}),
    ...(options.systemPrompt ? { systemPrompt: options.systemPrompt } : {}),
    ...(options.maxSteps !== undefined ? { maxSteps: options.maxSteps } : {}),
    ...(options.maxOutputTokens !== undefined ? { maxOutputTokens: options.maxOutputTokens } : {}),
    ...(options.compaction ? { compaction: options.compaction } : {}),
    historyRecovery: options.historyRecovery ?? 'leave_out_oldest_turns',
    ...(options.toolResults ? { toolResults: options.toolResults } : {}),
    ...(options.partialRowAfterMs !== undefined
      ? { partialRowAfterMs: options.partialRowAfterMs }
      : {}),
    ...(options.keptHistoryBytes !== undefined
      ? { keptHistoryBytes: options.keptHistoryBytes }
      : {}),
    ...(options.turnLease ? { turnLease: options.turnLease } : {}),
    ...(options.telemetry ? { telemetry: options.telemetry } : {}),
  };
}

/** Registers the MCP tools that appeared since the registry was filled; their names. */
async function registerChangedTools(
  mcp: RuntimeMcpServers | undefined,
  tools: ToolRegistry,
  logger: Logger,
): Promise<string[]> {
  if (!mcp) return [];
  try {
    if (!(await mcp.refresh())) return [];
  } catch (error) {
    // a server that cannot re-list now keeps its previous tools; the next refresh tries again
    logger.warn(
      { event: 'mcp_refresh_failed', error: (error as Error).message },
      `MCP tool list refresh failed: ${(error as Error).message}`,
    );
    return [];
  }
  const added: string[] = [];
  for (const handler of mcp.tools()) {
    const name = handler.definition.name;
    if (tools.get(name)) continue;
    tools.register(handler);
    added.push(name);
  }
  return added;
}

import { readFileSync } from 'node:fs';
import {
  type CallRunnerOptions,
  createEventBus,
  type EventBus,
  type Logger,
  type SessionStats,
  type SessionStore,
  sessionStatsOf,
  silentLogger,
} from '@yourtool/core';
import { MemorySessionStore } from '@yourtool/core/memory-store';
import { type CostOptions, defaultPriceTable, type PriceTable } from '@yourtool/pricing';
import {
  type AdapterFactory,
  type AvailabilityOptions,
  AvailabilityTracker,
  checkRoutingConfig,
  ModelRegistry,
  type RegistryConfig,
  Router,
  type RoutingConfig,
} from '@yourtool/router';
import {
  type CompactionHook,
  type ConfirmHook,
  type HistoryRecovery,
  SessionManager,
  type SessionTelemetryOptions,
  type SystemPromptPart,
  type ToolHandler,
  ToolRegistry,
  type ToolResultLimits,
  type TurnLeaseOptions,
} from '@yourtool/session';
import { type Env, readModelsConfig, readRoutingConfig } from './config.js';
import { checkRuntimeOptions } from './options.js';
import { RuntimeSetupError } from './setup-error.js';
import { createStderrLogger } from './stderr-logger.js';

/** The adapter packages `createRuntime` finds by an adapter entry's `type`. */
export const KNOWN_ADAPTER_PACKAGES: Readonly<Record<string, { package: string; export: string }>> =
  {
    anthropic: { package: '@yourtool/anthropic', export: 'AnthropicAdapter' },
    google: { package: '@yourtool/google', export: 'GoogleAdapter' },
    openai: { package: '@yourtool/openai', export: 'OpenAIAdapter' },
    openrouter: { package: '@yourtool/openrouter', export: 'OpenRouterAdapter' },
    ollama: { package: '@yourtool/ollama', export: 'OllamaAdapter' },
    // Chat Completions servers: the generic adapter (models `openai-compatible:<name>`) and
    // presets, one type per provider key so models read `azure:...`, `groq:...`, `vllm:...`
    'openai-compatible': {
      package: '@yourtool/openai-compatible',
      export: 'OpenAICompatibleAdapter',
    },
    azure: { package: '@yourtool/openai-compatible', export: 'AzureOpenAIAdapter' },
    deepseek: { package: '@yourtool/openai-compatible', export: 'DeepSeekAdapter' },
    groq: { package: '@yourtool/openai-compatible', export: 'GroqAdapter' },
    mistral: { package: '@yourtool/openai-compatible', export: 'MistralAdapter' },
    vllm: { package: '@yourtool/openai-compatible', export: 'VllmAdapter' },
  };

export { RuntimeSetupError } from './setup-error.js';

/**
 * A document given as YAML text, a file to read (`{ file }`), or a parsed value (validated here,
 * so a value read with any YAML parser will do).
 */
export type ConfigSource<T> = string | { file: string } | T | Readonly<Record<string, unknown>>;

/** Options of {@link createRuntime}. Only `models` is required. */
export interface RuntimeOptions {
  /**
   * The model registry (models.yaml, contract §7.1): YAML text, a parsed document, or
   * `{ file }`. `${NAME}` in values is read from `env`; an adapter entry may give
   * `base_url_env: NAME` instead of `base_url`.
   */
  models: ConfigSource<RegistryConfig>;
  /**
   * Routing rules (routing.yaml): YAML text, a parsed document, or `{ file }`. Default: the
   * first model of `models` as `global_default`. Every model name it uses must resolve.
   */
  routing?: ConfigSource<RoutingConfig>;
  /**
   * Where sessions live: a `SessionStore`, or a URL for `@yourtool/store`'s `openStore`
   * (`sqlite:./sessions.db`, `postgres://...`; install `@yourtool/store`). Default: a
   * `MemorySessionStore` (nothing survives the process).
   */
  store?: SessionStore | string;
  /** Prices for every call. Default: the bundled table of `@yourtool/pricing`. */
  pricing?: PriceTable;
  /** Cost options (e.g. the cache write TTL your prompts use). */
  costOptions?: CostOptions;
  /** The tools every turn offers. */
  tools?: ToolRegistry | readonly ToolHandler[];
  /** Consent for tools with write, execute or network side effects. Without it they are refused. */
  confirm?: ConfirmHook;
  /** System prompt parts, composed in order. */
  systemPrompt?: readonly SystemPromptPart[];
  /**
   * One logger for adapters, router, store and sessions. Default: {@link createStderrLogger},
   * WARN and above as one JSON line each on stderr (the warnings the contracts require: blocks
   * dropped, parameters dropped, history repairs), with the configured keys redacted. `false`
   * turns logging off.
   */
  logger?: Logger | false;
  /** Where `api_key_env`, `base_url_env` and `${NAME}` are read. Default `process.env`. */
  env?: Env;
  /**
   * Adapter factories by `type`, for adapters other than the known ones
   * ({@link KNOWN_ADAPTER_PACKAGES}), or to replace one. The known types are loaded from their
   * packages when a model uses them.
   */
  factories?: Record<string, AdapterFactory>;
  /** Backoff of every adapter's retries (tests make it short). */
  retry?: CallRunnerOptions['retry'];
  /** Availability tuning (failure threshold, cooldowns). */
  availability?: AvailabilityOptions;
  /** Model calls one turn may make. Default 8. */
  maxSteps?: number;
  /** `max_output_tokens` of each call. Default 4096. */
  maxOutputTokens?: number;
  /**
   * Opt-in compaction of histories too long for the models (`summarizeOlderTurns({ model })`,
   * `dropOldestTurns()` from `@yourtool/session`, or your own hook): a stored summary or note
   * replaces the oldest turns. Default: none, and `historyRecovery` applies.
   */
  compaction?: CompactionHook;
  /**
   * What a turn does when the history is too long for every model that could take it and no
   * `compaction` is set. Default `'leave_out_oldest_turns'`: the oldest whole turns are left
   * out of that request (nothing stored changes, no model is called), with a
   * `history_turns_left_out` WARN. `'off'` refuses the turn with `HistoryTooLongError` (a
   * `NoRouteError`) saying what to do (decision 0155).
   */
  historyRecovery?: HistoryRecovery;
  /**
   * How much of each tool result a model receives. Default: 16,000 tokens per result and half
   * the target model's context window for all results of a request; the store keeps every
   * result whole (decision 0155).
   */
  toolResults?: ToolResultLimits;
  /**
   * How long a reply streams before its `partial` row is stored (ms). Default 1000; 0 stores it
   * at the first event (decision 0148).
   */
  partialRowAfterMs?: number;
  /**
   * The turn lease on a stored session (stores that support it: SQLite, PostgreSQL, memory):
   * how long it lives without a heartbeat and how often the heartbeat renews it. Default 30 s
   * and 10 s (decision 0156).
   */
  turnLease?: TurnLeaseOptions;
  /**
   * OpenTelemetry options of the session manager: `agentName`, `captureContent`, and the
   * `tracerProvider` / `meterProvider` to use instead of the globally registered ones
   * (docs/observability.md).
   */
  telemetry?: SessionTelemetryOptions;
}

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
  /** Closes the adapters and the store. */
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

async function loadFactory(type: string): Promise<AdapterFactory> {
  const known = KNOWN_ADAPTER_PACKAGES[type];
  if (!known) {
    throw new RuntimeSetupError(
      'unknown_adapter_type',
      `no adapter for type "${type}": the known types are ${Object.keys(KNOWN_ADAPTER_PACKAGES).join(', ')}; pass a factory for it in the factories option`,
    );
  }
  let module: Record<string, unknown>;
  try {
    module = (await import(known.package)) as Record<string, unknown>;
  } catch (error) {
    throw new RuntimeSetupError(
      'adapter_package_missing',
      `models.yaml uses adapter type "${type}", which needs ${known.package}: install it (npm install ${known.package})`,
      { cause: error },
    );
  }
  const AdapterClass = module[known.export] as
    | (new (
        ...args: Parameters<AdapterFactory>
      ) => ReturnType<AdapterFactory>)
    | undefined;
  if (typeof AdapterClass !== 'function') {
    throw new RuntimeSetupError(
      'adapter_package_missing',
      `${known.package} does not export ${known.export}; is it a version this runtime supports?`,
    );
  }
  return (config, runtime) => new AdapterClass(config, runtime);
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
  const models = readSource(options.models, 'models');
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

  const bus = createEventBus();
  const availability = new AvailabilityTracker(options.availability);
  availability.connect(bus);
  const router = new Router({ registry, availability, bus, config: routing, logger });
  const pricing = options.pricing ?? defaultPriceTable();
  const store =
    typeof options.store === 'string'
      ? await openStoreUrl(options.store, logger)
      : (options.store ?? new MemorySessionStore());
  const tools =
    options.tools instanceof ToolRegistry ? options.tools : new ToolRegistry(options.tools ?? []);

  const sessions = new SessionManager({
    store,
    router,
    pricing,
    bus,
    tools,
    logger,
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
    ...(options.turnLease ? { turnLease: options.turnLease } : {}),
    ...(options.telemetry ? { telemetry: options.telemetry } : {}),
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
    close: async () => {
      await registry.close();
      await store.close();
    },
  };
}

import type { CallRunnerOptions, Logger, SessionStore } from '@yourtool/core';
import type { CostOptions, PriceTable } from '@yourtool/pricing';
import type {
  AdapterFactory,
  AvailabilityOptions,
  RegistryConfig,
  RoutingConfig,
} from '@yourtool/router';
import type {
  CompactionHook,
  ConfirmHook,
  HistoryRecovery,
  SessionTelemetryOptions,
  SystemPromptPart,
  ToolHandler,
  ToolRegistry,
  ToolResultLimits,
  TurnLeaseOptions,
} from '@yourtool/session';
import type { RuntimeBudgetOptions } from './budgets.js';
import type { Env } from './config.js';

// What `createRuntime` takes, in a file of its own so that options.ts, which checks it, and
// runtime.ts, which uses it, both import it and not each other.

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
  /**
   * MCP servers whose tools every session is offered (needs `@yourtool/mcp`), besides those of
   * models.yaml's `mcp_servers:`: a map of server name to settings (`command`, `args`, `env`,
   * `cwd`, or `url`, `headers`; `allow`, `deny`, `side_effects`, `trusted`, `tools`,
   * `timeout_ms`, ...), or YAML text / `{ file }` of a document with `mcp_servers:`. `${NAME}`
   * in `command`, `args`, `env`, `cwd`, `url` and `headers` is read from `env`.
   */
  mcpServers?: ConfigSource<Record<string, Readonly<Record<string, unknown>>>>;
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
  /**
   * Shares availability verdicts with the other instances on the same store (a `sqlite:` or
   * `postgres://` store; decision 0183): an outage one instance finds is seen by the others
   * within `refreshMs` (default 500), and one instance probes a provider whose cooldown ended.
   * Default off: each process keeps its own verdicts.
   */
  sharedAvailability?: boolean | SharedAvailabilitySetting;
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
   * How much heap the session histories kept between turns may take together, in bytes: the
   * least recently used are dropped first and loaded from the store on their next turn; a
   * running turn's history is not dropped. A whole number, 0 or more; 0 keeps none (every turn
   * loads its session). Default 64 MiB, several thousand typical sessions (decision 0186).
   */
  keptHistoryBytes?: number;
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
  /**
   * Spend budgets (decision 0181): every model call reserves its worst case first and settles
   * its exact cost after. The ledger defaults to the store's; `define` sets budgets at start.
   */
  budgets?: RuntimeBudgetOptions;
}

/** What `createRuntime`'s `sharedAvailability` option takes besides `true`. */
export interface SharedAvailabilitySetting {
  /** How often each instance reads the others' verdicts, in ms. Default 500. */
  refreshMs?: number;
  /** This instance's name in the probe election. Default a random UUID. */
  instanceId?: string;
}

import type {
  EventBus,
  Logger,
  OutputSchemaInput,
  SessionRecord,
  SessionStore,
} from '@yourtool/core';
import type { CostOptions, PriceTable } from '@yourtool/pricing';
import type { Router } from '@yourtool/router';
import type { SessionBudgetOptions } from './budget-options.js';
import type { CompactionHook } from './compaction.js';
import type { SessionTelemetryOptions } from './telemetry-options.js';
import type { RegisteredTool, ToolRegistry } from './tools.js';
import type { TurnLeaseOptions, WaitForTurnOptions } from './turn-lease-options.js';

/** A request to run a tool whose side effects need consent. */
export interface ConfirmationRequest {
  session_id: string;
  /** The tool's name. */
  tool: string;
  side_effects: RegisteredTool['definition']['side_effects'];
  /** The tool input the model asked for (already validated against the tool's schema). */
  input: Record<string, unknown>;
  /** Canonical tool use id. */
  tool_use_id: string;
  /**
   * The turn's signal. It aborts when the turn is cancelled (`cancel(sessionId)`, the `send`
   * signal, or the consumer stopping its iteration): close the prompt then. The turn does not
   * wait for an answer after that; the tool is not run and its stored result says the turn
   * was cancelled.
   */
  signal: AbortSignal;
}

/**
 * Decides whether a write, execute or network tool may run: `true` runs it, anything else
 * refuses it. A hook that throws (or rejects) refuses it too, with the error's message in the
 * stored result. The wait for the answer ends when `request.signal` aborts.
 */
export type ConfirmHook = (request: ConfirmationRequest) => boolean | Promise<boolean>;

/** Context handed to system prompt parts. */
export interface SystemPromptContext {
  session: SessionRecord;
}

/** A piece of the system prompt: fixed text, or text computed per turn (null to skip). */
export type SystemPromptPart = string | ((context: SystemPromptContext) => string | null);

/**
 * Options of {@link SessionManager}. The constructor checks every one of them and throws
 * `InvalidManagerOptionError` naming the field for a value it cannot use.
 */
export interface SessionManagerOptions {
  store: SessionStore;
  router: Router;
  /** The price table used for every assistant message's cost. */
  pricing: PriceTable;
  /** Cost options (e.g. the cache write TTL your prompts use). */
  costOptions?: CostOptions;
  /**
   * Receives `llm.call_started`, `llm.call_completed`, `llm.call_failed` and
   * `tool_input_invalid` (and, from a router given the same bus, `route.decided` and
   * `routing_constraint_failure`).
   */
  bus?: EventBus;
  /** The tools offered to every turn. */
  tools?: ToolRegistry;
  /** Consent for tools with write, execute or network side effects. Without it they are refused. */
  confirm?: ConfirmHook;
  /** System prompt parts, composed in order and joined with a blank line. */
  systemPrompt?: readonly SystemPromptPart[];
  /** Model calls one turn may make (each tool round is one): a whole number, 1 or more. Default 8. */
  maxSteps?: number;
  /** `max_output_tokens` of each call: a whole number, 1 or more. Default 4096. */
  maxOutputTokens?: number;
  /**
   * Opt-in context management: when routing finds the history too long for every model that
   * could otherwise take the turn, this hook replaces older turns with a stored summary message
   * (`summarizeOlderTurns({ model })`, `dropOldestTurns()`, or your own) and the turn is routed
   * again. Without it such a turn fails with the router's `NoRouteError` (docs/decisions/0101).
   */
  compaction?: CompactionHook;
  /**
   * What a turn does when the history (tool results already bounded) is too long for every
   * model that could take it and no `compaction` hook is set: `'leave_out_oldest_turns'` leaves
   * the oldest whole turns out of the request (`dropOldestTurns()`'s cut, in memory: nothing is
   * stored or changed, no model is called), with a `history_turns_left_out` WARN;
   * `'off'` refuses the turn with `HistoryTooLongError` (a `NoRouteError`) saying what to do.
   * Default `'off'`; `createRuntime` defaults to `'leave_out_oldest_turns'` (decision 0155).
   */
  historyRecovery?: HistoryRecovery;
  /**
   * How much of each tool result a model receives (decision 0155). Default: 16,000 tokens per
   * result and half the target model's context window for all results of one request. The
   * store keeps every result whole; the bound is applied to each request, per target model.
   */
  toolResults?: ToolResultLimits;
  /**
   * How much heap the histories the manager keeps between turns may take together, in bytes
   * (each history's size estimated once per message as it joins, decision 0186): the least
   * recently used are dropped first, and a dropped session is loaded from the store on its
   * next turn. The history of a session whose turn is running is not dropped before the turn
   * ends. A whole number of bytes, 0 or more; 0 keeps none (every turn loads its session, as a
   * stateless server would). Default 64 MiB (67,108,864): at 3 to 14 KB a typical history,
   * several thousand sessions stay kept, a small share of Node's default heap limit.
   */
  keptHistoryBytes?: number;
  /**
   * At most how many sessions' histories the manager keeps between turns, besides the
   * `keptHistoryBytes` budget: a whole number, 0 or more; 0 keeps none. Default: no count
   * bound (until decision 0186 it was 64, and the only bound).
   * @deprecated Bound what is kept by memory with `keptHistoryBytes`; a count keeps as many
   * large histories as small ones. Still honoured when given.
   */
  keptSessions?: number;
  /**
   * How long a reply streams, in milliseconds from its first event, before its assistant row
   * is stored as `partial`: the trace a crash in a long stream leaves of the call. A reply that
   * ends sooner is stored once, finished (one write instead of two). 0 stores the `partial`
   * row at the first event. Default 1000 (decision 0148).
   */
  partialRowAfterMs?: number;
  logger?: Logger;
  /**
   * OpenTelemetry: content capture and the agent name of the turn spans. Spans and metrics are
   * recorded whenever an OpenTelemetry SDK is registered (`@opentelemetry/api`, an optional
   * peer dependency), with or without this option; see docs/observability.md.
   */
  telemetry?: SessionTelemetryOptions;
  /**
   * The turn lease's time to live and heartbeat (defaults 30000 and 10000 ms), with a store
   * that keeps leases: one turn at a time per session across processes (decision 0156).
   */
  turnLease?: TurnLeaseOptions;
  /**
   * Spend budgets (decision 0181): each model call reserves its worst case before it is sent
   * and settles its exact cost after; a call a budget cannot admit throws `BudgetExceededError`.
   */
  budgets?: SessionBudgetOptions;
}

/** The histories a manager keeps between turns ({@link SessionManager.keptHistories}). */
export interface KeptHistories {
  /** How many sessions' histories are kept. */
  readonly sessions: number;
  /** Their estimated heap bytes together, as `keptHistoryBytes` bounds them. */
  readonly bytes: number;
}

/** What a turn does when its history no longer fits any model (see `historyRecovery`). */
export type HistoryRecovery = 'leave_out_oldest_turns' | 'off';

/**
 * The bound on what a model receives from tools (decision 0155). Text beyond it is cut, and
 * images left out, with a marker the model reads saying what was left out and why; a
 * `tool_result_truncated` WARN names the tool, the tool use and the sizes.
 */
export interface ToolResultLimits {
  /** Tokens one result may take, by the target adapter's estimate: a whole number, 1 or more. Default 16000. */
  maxTokens?: number;
  /**
   * Share of the target model's context window that all tool results of one request may take
   * together, newer results first: a number above 0, at most 1. Default 0.5.
   */
  maxShareOfContext?: number;
  /** `maxTokens` of single tools, by tool name (e.g. `{ read_file: 50000 }`). */
  perTool?: Readonly<Record<string, number>>;
}

/** The repair policy of a turn that asks for an object (`SendOptions.outputRepair`). */
export interface OutputRepairPolicy {
  /** Replies the turn may read in all, the first included: 1 to 3. */
  maxAttempts: number;
}

/** Options of one turn. */
export interface SendOptions {
  /** Per-message override (`@model`). */
  model?: string | null;
  /** Cancels the turn (as {@link SessionManager.cancel} does). */
  signal?: AbortSignal;
  /** A tier the turn asks for (routing rules can match it). */
  tier?: string | null;
  /** Ask for extended thinking (routing checks the model supports it). */
  thinking?: boolean;
  /** Provider options passed to the adapter, keyed by adapter name. */
  providerOptions?: Record<string, Record<string, unknown>>;
  /**
   * A JSON Schema sent to the model as its structured-output parameter, as is: the reply is
   * neither parsed nor checked. Prefer `output`.
   */
  output_schema?: Record<string, unknown> | null;
  /**
   * Ask for an object: a JSON Schema, or a zod schema (any Standard Schema validator that can
   * give a JSON Schema). Each call uses the model's native structured output where it has it,
   * else a forced call of a `structured_output` tool carrying the schema (core's plan); the
   * reply is parsed and validated against the full schema, the object is the result's
   * `object` (typed from a zod schema with `sendAndWait`), `object.partial` events stream it,
   * and each stored reply records `metadata.structured_output`. A reply that gives no valid
   * object ends the turn with `OutputValidationError` (see `outputRepair`).
   */
  output?: OutputSchemaInput | null;
  /**
   * Opt-in repair (off by default): when a reply gives no valid object, its validation errors
   * are sent back to the model and it answers again, up to `maxAttempts` replies in all (at
   * most 3; 1 is no repair). Every attempt is stored and priced. A refusal is not repaired.
   */
  outputRepair?: OutputRepairPolicy;
  /**
   * When the explicit choice (`model`, or the session's `/model` choice) cannot be honoured
   * (unknown name, not configured, unavailable, unable to take this history), let routing
   * choose instead of throwing the router's `ChoiceUnavailableError`. Passed to the router as
   * `RouteInput.fallthrough`.
   */
  fallthrough?: boolean;
  /**
   * Ask consent for write, execute and network tools from the stream instead of the manager's
   * `confirm` hook (which this turn then does not use): the turn yields
   * `session.confirmation_requested` and waits for its `respond()` or
   * {@link SessionManager.answerConfirmation}, or for the turn to be cancelled.
   * Only for consumers that iterate `send()`: `sendAndWait` drops the events, so it refuses
   * this option with `InvalidSendOptionError` rather than wait for an answer that cannot come.
   */
  confirmFromStream?: boolean;
  /**
   * When the session has a turn running (here, or in another process sharing the store), wait
   * for it up to `timeoutMs` (and while `signal` has not aborted) instead of throwing
   * `TurnInProgressError` at once; the turn then runs on the history the other one left
   * (decision 0156).
   */
  waitForTurn?: WaitForTurnOptions;
}

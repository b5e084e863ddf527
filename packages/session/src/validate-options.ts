import {
  type EventBus,
  type Logger,
  type SessionStore,
  silentLogger,
  unknownNameMessage,
} from '@yourtool/core';
import type { CostOptions, PriceTable } from '@yourtool/pricing';
import type { Router } from '@yourtool/router';
import type { SessionBudgetOptions } from './budget-options.js';
import { budgetsProblem } from './budget-options.js';
import type { CompactionHook } from './compaction.js';
import { InvalidManagerOptionError } from './errors.js';
import type {
  ConfirmHook,
  HistoryRecovery,
  SessionManagerOptions,
  SystemPromptPart,
  ToolResultLimits,
} from './options.js';
import type { SessionTelemetryOptions } from './telemetry-options.js';
import type { ResolvedToolResultLimits } from './tool-result-bound.js';
import { ToolRegistry } from './tools.js';
import type { TurnLeaseSettings } from './turn-lease.js';
import { resolveTurnLease, turnLeaseProblem } from './turn-lease-options.js';

/** The options of a manager once checked, with their defaults filled in. */
export interface ManagerSettings {
  readonly store: SessionStore;
  readonly router: Router;
  readonly pricing: PriceTable;
  readonly costOptions: CostOptions | undefined;
  readonly bus: EventBus | undefined;
  readonly tools: ToolRegistry;
  readonly confirm: ConfirmHook | undefined;
  readonly systemPrompt: readonly SystemPromptPart[];
  readonly maxSteps: number;
  readonly maxOutputTokens: number;
  readonly compaction: CompactionHook | undefined;
  readonly historyRecovery: HistoryRecovery;
  readonly toolResults: ResolvedToolResultLimits;
  /** Estimated heap bytes the kept histories may take together. */
  readonly keptHistoryBytes: number;
  /** Histories kept at most; Infinity when `keptSessions` was not given. */
  readonly keptSessions: number;
  readonly partialRowAfterMs: number;
  readonly logger: Logger;
  readonly telemetry: SessionTelemetryOptions | undefined;
  readonly turnLease: TurnLeaseSettings;
  readonly budgets: SessionBudgetOptions | undefined;
}

/** Model calls a turn may make unless told otherwise. */
const DEFAULT_MAX_STEPS = 8;
/** `max_output_tokens` of a call unless told otherwise. */
const DEFAULT_MAX_OUTPUT_TOKENS = 4096;
/**
 * Heap bytes the kept histories may take unless told otherwise: 64 MiB holds several thousand
 * typical histories (3 to 14 KB each), a small share of Node's default heap (decision 0186).
 */
const DEFAULT_KEPT_HISTORY_BYTES = 64 * 1024 * 1024;
/** How long a reply streams before its `partial` row is stored, unless told otherwise. */
const DEFAULT_PARTIAL_ROW_AFTER_MS = 1000;
/** Tokens one tool result may take in a request unless told otherwise (decision 0155). */
const DEFAULT_TOOL_RESULT_TOKENS = 16_000;
/** Share of the target's window all tool results of a request may take unless told otherwise. */
const DEFAULT_TOOL_RESULTS_SHARE = 0.5;
/** The longest delay a timer takes (2^31 - 1 ms, about 24.8 days). */
const MAX_TIMER_MS = 2_147_483_647;

/** A value as an error message names it: `the string "echo"`, `-1`, `an object`. */
function shown(value: unknown): string {
  if (typeof value === 'string') {
    const cut = value.length > 40 ? `${value.slice(0, 40)}...` : value;
    return `the string "${cut}"`;
  }
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') {
    return String(value);
  }
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The methods of `value` named in `names` that are not functions. */
function missingMethods(value: Record<string, unknown>, names: readonly string[]): string[] {
  return names.filter((name) => typeof value[name] !== 'function');
}

/** The problem with an object that must have `methods`, or null. */
function methodsProblem(
  name: string,
  value: unknown,
  what: string,
  methods: readonly string[],
): string | null {
  if (!isObject(value)) return `${name} must be ${what}, got ${shown(value)}`;
  const missing = missingMethods(value, methods);
  if (missing.length === 0) return null;
  return `${name} must be ${what}: it has no ${missing.map((m) => `${m}()`).join(', ')}`;
}

function wholeNumberProblem(name: string, value: unknown, min: number, unit: string) {
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= min) return null;
  return `${name} must be a whole number of ${unit}, ${min} or more (got ${shown(value)})`;
}

const optionalFunction = (name: string, value: unknown, what: string) =>
  typeof value === 'function' ? null : `${name} must be ${what} (a function), got ${shown(value)}`;

function costOptionsProblem(value: unknown): string | null {
  if (!isObject(value)) return `costOptions must be an object, got ${shown(value)}`;
  const ttl = value.cacheWriteTtl;
  if (ttl === undefined || ttl === '5m' || ttl === '1h') return null;
  const tokens = isObject(ttl) ? ttl.oneHourTokens : undefined;
  if (typeof tokens === 'number' && Number.isSafeInteger(tokens) && tokens >= 0) return null;
  return `costOptions.cacheWriteTtl must be '5m', '1h' or { oneHourTokens }, got ${shown(ttl)}`;
}

function systemPromptProblem(value: unknown): string | null {
  if (!Array.isArray(value)) {
    const hint = typeof value === 'string' ? ` (write [${JSON.stringify(value)}])` : '';
    return `systemPrompt must be an array of parts, each a string or a function returning a string or null; got ${shown(value)}${hint}`;
  }
  const at = value.findIndex((part) => typeof part !== 'string' && typeof part !== 'function');
  if (at < 0) return null;
  return `systemPrompt[${at}] must be a string or a function returning a string or null, got ${shown(value[at])}`;
}

function loggerProblem(value: unknown): string | null {
  if (!isObject(value) || typeof value.warn !== 'function') {
    return `logger must be a Logger (an object with warn(), and optionally error(), info(), debug()), got ${shown(value)}`;
  }
  const wrong = ['error', 'info', 'debug'].find(
    (level) => value[level] !== undefined && typeof value[level] !== 'function',
  );
  return wrong ? `logger.${wrong} must be a function when given` : null;
}

/** The options of `telemetry` (every one: the compiler holds the list to the type). */
const TELEMETRY_OPTIONS = Object.keys({
  captureContent: true,
  agentName: true,
  tracerProvider: true,
  meterProvider: true,
} satisfies { [K in keyof SessionTelemetryOptions]-?: true });

function telemetryProblem(value: unknown): string | null {
  if (!isObject(value)) {
    return `telemetry must be an object ({ captureContent, agentName, tracerProvider, meterProvider }), got ${shown(value)}`;
  }
  const unknown = Object.keys(value).filter((k) => !TELEMETRY_OPTIONS.includes(k));
  if (unknown.length > 0)
    return unknownNameMessage('option', unknown, TELEMETRY_OPTIONS, 'telemetry.');
  const { captureContent, agentName } = value;
  if (captureContent !== undefined && typeof captureContent !== 'boolean') {
    return `telemetry.captureContent must be a boolean, got ${shown(captureContent)}`;
  }
  if (agentName !== undefined && (typeof agentName !== 'string' || agentName.trim() === '')) {
    return `telemetry.agentName must be a non-empty string, got ${shown(agentName)}`;
  }
  for (const [option, method] of [
    ['tracerProvider', 'getTracer'],
    ['meterProvider', 'getMeter'],
  ] as const) {
    const provider = value[option];
    if (provider === undefined) continue;
    if (!isObject(provider) || typeof provider[method] !== 'function') {
      return `telemetry.${option} must be an OpenTelemetry ${option === 'tracerProvider' ? 'TracerProvider' : 'MeterProvider'} (an object with ${method}()), got ${shown(provider)}`;
    }
  }
  return null;
}

const HISTORY_RECOVERIES: readonly HistoryRecovery[] = ['leave_out_oldest_turns', 'off'];

/** The options of `toolResults` (every one: the compiler holds the list to the type). */
const TOOL_RESULT_OPTIONS = Object.keys({
  maxTokens: true,
  maxShareOfContext: true,
  perTool: true,
} satisfies { [K in keyof ToolResultLimits]-?: true });

function toolResultsProblem(value: unknown): string | null {
  if (!isObject(value)) {
    return `toolResults must be an object ({ maxTokens, maxShareOfContext, perTool }), got ${shown(value)}`;
  }
  const unknown = Object.keys(value).filter((k) => !TOOL_RESULT_OPTIONS.includes(k));
  if (unknown.length > 0) {
    return unknownNameMessage('option', unknown, TOOL_RESULT_OPTIONS, 'toolResults.');
  }
  const { maxTokens, maxShareOfContext, perTool } = value;
  if (maxTokens !== undefined) {
    const problem = wholeNumberProblem('toolResults.maxTokens', maxTokens, 1, 'tokens');
    if (problem) return problem;
  }
  if (
    maxShareOfContext !== undefined &&
    !(typeof maxShareOfContext === 'number' && maxShareOfContext > 0 && maxShareOfContext <= 1)
  ) {
    return `toolResults.maxShareOfContext must be a number above 0 and at most 1, got ${shown(maxShareOfContext)}`;
  }
  if (perTool === undefined) return null;
  if (!isObject(perTool)) {
    return `toolResults.perTool must be an object of token limits by tool name, got ${shown(perTool)}`;
  }
  for (const [name, tokens] of Object.entries(perTool)) {
    const problem = wholeNumberProblem(`toolResults.perTool.${name}`, tokens, 1, 'tokens');
    if (problem) return problem;
  }
  return null;
}

/** The check of each option, for a value that is not `undefined`. */
const CHECKS: { [K in keyof SessionManagerOptions]-?: (value: unknown) => string | null } = {
  store: (v) =>
    methodsProblem('store', v, 'a SessionStore', [
      'createSession',
      'getSession',
      'updateSession',
      'appendMessage',
      'updateMessage',
      'loadMessages',
      'loadToolIdMap',
    ]),
  router: (v) =>
    methodsProblem('router', v, 'a Router', ['route', 'fallback', 'checkSwap', 'prepare']) ??
    (isObject((v as { registry?: unknown }).registry)
      ? null
      : 'router must be a Router: it has no registry'),
  pricing: (v) =>
    isObject(v) && typeof v.pricing_version === 'string' && isObject(v.models)
      ? null
      : `pricing must be a PriceTable (pricing_version and models; see defaultPriceTable()), got ${shown(v)}`,
  costOptions: costOptionsProblem,
  bus: (v) => methodsProblem('bus', v, 'an EventBus', ['emit']),
  tools: (v) =>
    methodsProblem('tools', v, 'a ToolRegistry (new ToolRegistry([...handlers]))', [
      'get',
      'definitions',
    ]),
  confirm: (v) => optionalFunction('confirm', v, 'a ConfirmHook'),
  systemPrompt: systemPromptProblem,
  maxSteps: (v) => wholeNumberProblem('maxSteps', v, 1, 'model calls'),
  maxOutputTokens: (v) => wholeNumberProblem('maxOutputTokens', v, 1, 'tokens'),
  compaction: (v) => optionalFunction('compaction', v, 'a CompactionHook'),
  historyRecovery: (v) =>
    HISTORY_RECOVERIES.includes(v as HistoryRecovery)
      ? null
      : `historyRecovery must be ${HISTORY_RECOVERIES.map((r) => `'${r}'`).join(' or ')}, got ${shown(v)}`,
  toolResults: toolResultsProblem,
  keptHistoryBytes: (v) => wholeNumberProblem('keptHistoryBytes', v, 0, 'bytes'),
  keptSessions: (v) => wholeNumberProblem('keptSessions', v, 0, 'sessions'),
  partialRowAfterMs: (v) =>
    wholeNumberProblem('partialRowAfterMs', v, 0, 'milliseconds') ??
    ((v as number) > MAX_TIMER_MS
      ? `partialRowAfterMs must be at most ${MAX_TIMER_MS} milliseconds (got ${shown(v)})`
      : null),
  logger: loggerProblem,
  telemetry: telemetryProblem,
  turnLease: turnLeaseProblem,
  budgets: budgetsProblem,
};

/** Options a manager cannot run without. */
const REQUIRED: ReadonlySet<string> = new Set(['store', 'router', 'pricing']);

/** What is wrong with an option: the field at fault (`systemPrompt[1]`) and why. */
export interface OptionProblem {
  option: string;
  message: string;
}

/**
 * What is wrong with `value` as the manager option `name`, or null when the manager can use it
 * (`undefined` is fine for every option but `store`, `router` and `pricing`). `createRuntime`
 * checks the options it passes on with it, so both name the same problems.
 */
export function managerOptionProblem(
  name: keyof SessionManagerOptions,
  value: unknown,
): OptionProblem | null {
  const message =
    value === undefined ? (REQUIRED.has(name) ? `${name} is required` : null) : CHECKS[name](value);
  return message === null ? null : { option: optionOf(message, name), message };
}

/**
 * Checks every option of a {@link SessionManager} and fills in the defaults. A key that is no
 * option is refused first, with the nearest option when one is close (`maxStep` is not taken
 * for `maxSteps` and quietly ignored).
 * @throws InvalidManagerOptionError naming the first option it cannot use.
 */
export function resolveManagerOptions(options: unknown): ManagerSettings {
  if (!isObject(options)) {
    throw new InvalidManagerOptionError(
      'options',
      `the SessionManager needs an options object ({ store, router, pricing, ... }), got ${shown(options)}`,
    );
  }
  const known = Object.keys(CHECKS);
  const unknown = Object.keys(options).filter((key) => !known.includes(key));
  if (unknown.length > 0) {
    throw new InvalidManagerOptionError(
      unknown[0] as string,
      unknownNameMessage('option', unknown, known),
    );
  }
  for (const name of known as Array<keyof SessionManagerOptions>) {
    const problem = managerOptionProblem(name, options[name]);
    if (problem) throw new InvalidManagerOptionError(problem.option, problem.message);
  }
  const given = options as unknown as SessionManagerOptions;
  return {
    store: given.store,
    router: given.router,
    pricing: given.pricing,
    costOptions: given.costOptions,
    bus: given.bus,
    tools: given.tools ?? new ToolRegistry(),
    confirm: given.confirm,
    systemPrompt: given.systemPrompt ?? [],
    maxSteps: given.maxSteps ?? DEFAULT_MAX_STEPS,
    maxOutputTokens: given.maxOutputTokens ?? DEFAULT_MAX_OUTPUT_TOKENS,
    compaction: given.compaction,
    historyRecovery: given.historyRecovery ?? 'off',
    toolResults: {
      maxTokens: given.toolResults?.maxTokens ?? DEFAULT_TOOL_RESULT_TOKENS,
      maxShareOfContext: given.toolResults?.maxShareOfContext ?? DEFAULT_TOOL_RESULTS_SHARE,
      perTool: { ...given.toolResults?.perTool },
    },
    keptHistoryBytes: given.keptHistoryBytes ?? DEFAULT_KEPT_HISTORY_BYTES,
    keptSessions: given.keptSessions ?? Number.POSITIVE_INFINITY,
    partialRowAfterMs: given.partialRowAfterMs ?? DEFAULT_PARTIAL_ROW_AFTER_MS,
    logger: given.logger ?? silentLogger,
    telemetry: given.telemetry,
    turnLease: resolveTurnLease(given.turnLease),
    budgets: given.budgets,
  };
}

/**
 * The field a problem names: `systemPrompt[1]` or `costOptions.cacheWriteTtl` when it says so,
 * the first unknown one (`telemetry.agentNam`) when it names unknown options.
 */
function optionOf(problem: string, name: string): string {
  const named =
    /^unknown options? "([^"]+)"/.exec(problem)?.[1] ??
    /^([A-Za-z]+(?:\[\d+\]|\.[A-Za-z_][\w-]*)*) /.exec(problem)?.[1];
  return named?.startsWith(name) ? named : name;
}

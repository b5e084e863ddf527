import { unknownNameMessage } from '@yourtool/core';
import { managerOptionProblem } from '@yourtool/session';
import { runtimeBudgetsProblem } from './budgets.js';
import type { RuntimeOptions } from './runtime-options.js';
import { RuntimeSetupError } from './setup-error.js';

/**
 * Thrown by `createRuntime` for an option it cannot use, before anything is read, loaded,
 * opened or stored: `option` names the field (`maxSteps`, `models.file`, `factories.acme`).
 * A {@link RuntimeSetupError} with code `invalid_option`.
 */
export class InvalidRuntimeOptionError extends RuntimeSetupError {
  /** The option at fault. */
  readonly option: string;

  constructor(option: string, message: string) {
    super('invalid_option', message);
    this.option = option;
  }
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A value as an error message names it. */
function shown(value: unknown): string {
  if (typeof value === 'string') return `the string "${value.slice(0, 40)}"`;
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  return typeof value === 'function' ? 'a function' : String(value);
}

/** A document option (`models`, `routing`): YAML text, `{ file }`, or a parsed object. */
function documentProblem(name: string, value: unknown): [string, string] | null {
  if (typeof value === 'string') return null;
  if (!isObject(value)) {
    return [name, `${name} must be YAML text, { file } or a parsed document, got ${shown(value)}`];
  }
  if ('file' in value && typeof value.file !== 'string') {
    return [`${name}.file`, `${name}.file must be a path, got ${shown(value.file)}`];
  }
  return null;
}

/** A tools option: a ToolRegistry, or an array of tool handlers. */
function toolsProblem(value: unknown): [string, string] | null {
  if (!Array.isArray(value)) {
    const problem = managerOptionProblem('tools', value);
    return problem ? [problem.option, `${problem.message} (or an array of tool handlers)`] : null;
  }
  const at = value.findIndex(
    (tool) => !isObject(tool) || !isObject(tool.definition) || typeof tool.run !== 'function',
  );
  if (at < 0) return null;
  return [`tools[${at}]`, `tools[${at}] must be a tool handler ({ definition, run })`];
}

/** An object option whose values must all pass `check` (env, factories, retry, availability). */
function entriesProblem(
  name: string,
  value: unknown,
  check: (entry: unknown) => boolean,
  what: string,
): [string, string] | null {
  if (!isObject(value)) return [name, `${name} must be an object, got ${shown(value)}`];
  const bad = Object.keys(value).find((key) => !check(value[key]));
  if (bad === undefined) return null;
  return [`${name}.${bad}`, `${name}.${bad} must be ${what}, got ${shown(value[bad])}`];
}

/** `sharedAvailability`: a boolean, or `{ refreshMs?: whole ms ≥ 10, instanceId?: non-empty string }`. */
function sharedAvailabilityProblem(v: unknown): [string, string] | null {
  if (typeof v === 'boolean') return null;
  if (!isObject(v)) {
    return [
      'sharedAvailability',
      `sharedAvailability must be a boolean or an object, got ${shown(v)}`,
    ];
  }
  const refresh = v.refreshMs;
  if (refresh !== undefined && !(Number.isSafeInteger(refresh) && (refresh as number) >= 10)) {
    return [
      'sharedAvailability.refreshMs',
      `sharedAvailability.refreshMs must be a whole number of ms, 10 or more, got ${shown(refresh)}`,
    ];
  }
  const id = v.instanceId;
  if (id !== undefined && (typeof id !== 'string' || id === '')) {
    return [
      'sharedAvailability.instanceId',
      `sharedAvailability.instanceId must be a non-empty string, got ${shown(id)}`,
    ];
  }
  const unknown = Object.keys(v).find((key) => key !== 'refreshMs' && key !== 'instanceId');
  return unknown === undefined
    ? null
    : [
        `sharedAvailability.${unknown}`,
        `sharedAvailability.${unknown} is not an option (refreshMs, instanceId)`,
      ];
}

const nonNegative = (v: unknown) =>
  v === undefined || (typeof v === 'number' && Number.isFinite(v) && v >= 0);

/** Options `createRuntime` hands to the `SessionManager` as they are. */
const MANAGER_OPTIONS = [
  'pricing',
  'costOptions',
  'confirm',
  'systemPrompt',
  'maxSteps',
  'maxOutputTokens',
  'compaction',
  'historyRecovery',
  'toolResults',
  'partialRowAfterMs',
  'keptHistoryBytes',
  'turnLease',
  'telemetry',
] as const satisfies ReadonlyArray<keyof RuntimeOptions>;

/**
 * The check of each runtime option that is not a manager option, for a defined value (every
 * one: the compiler holds the list to {@link RuntimeOptions}).
 */
const OWN_CHECKS: {
  [K in Exclude<keyof RuntimeOptions, (typeof MANAGER_OPTIONS)[number]>]-?: (
    value: unknown,
  ) => [string, string] | null;
} = {
  models: (v) => documentProblem('models', v),
  budgets: runtimeBudgetsProblem,
  routing: (v) => documentProblem('routing', v),
  store: (v) => {
    if (typeof v === 'string') return v === '' ? ['store', 'store must be a non-empty URL'] : null;
    const problem = managerOptionProblem('store', v);
    return problem
      ? [problem.option, `${problem.message} (or a store URL such as sqlite:./sessions.db)`]
      : null;
  },
  tools: toolsProblem,
  mcpServers: (v) => (typeof v === 'string' ? null : documentProblem('mcpServers', v)),
  logger: (v) => {
    const problem = v === false ? null : managerOptionProblem('logger', v);
    return problem ? [problem.option, `${problem.message} (or false for no logging)`] : null;
  },
  env: (v) => entriesProblem('env', v, (e) => e === undefined || typeof e === 'string', 'a string'),
  factories: (v) =>
    entriesProblem('factories', v, (e) => typeof e === 'function', 'an adapter factory'),
  retry: (v) =>
    entriesProblem(
      'retry',
      v,
      (e) => nonNegative(e) || typeof e === 'function',
      'a number of ms, 0 or more (random: a function)',
    ),
  sharedAvailability: sharedAvailabilityProblem,
  availability: (v) =>
    entriesProblem(
      'availability',
      v,
      (e) => nonNegative(e) || typeof e === 'function',
      'a number, 0 or more (now: a function)',
    ),
};

/** Every option `createRuntime` takes. */
const RUNTIME_OPTIONS: readonly string[] = [...Object.keys(OWN_CHECKS), ...MANAGER_OPTIONS];

/**
 * Checks every option of `createRuntime` before anything is read, loaded, opened or stored: a
 * key that is no option first (with the nearest option when one is close: `maxStep` is not
 * taken for `maxSteps` and quietly ignored), then each value. The options it passes to the
 * session manager are checked as the manager checks them.
 * @throws InvalidRuntimeOptionError naming the first option it cannot use.
 */
export function checkRuntimeOptions(options: unknown): asserts options is RuntimeOptions {
  const unknown = isObject(options)
    ? Object.keys(options).filter((key) => !RUNTIME_OPTIONS.includes(key))
    : [];
  if (unknown.length > 0) {
    throw new InvalidRuntimeOptionError(
      unknown[0] as string,
      unknownNameMessage('option', unknown, RUNTIME_OPTIONS),
    );
  }
  if (!isObject(options) || options.models === undefined) {
    throw new InvalidRuntimeOptionError(
      'models',
      'createRuntime needs models (models.yaml text, a parsed document or { file })',
    );
  }
  for (const [name, check] of Object.entries(OWN_CHECKS)) {
    const problem = options[name] === undefined ? null : check(options[name]);
    if (problem) throw new InvalidRuntimeOptionError(problem[0], problem[1]);
  }
  for (const name of MANAGER_OPTIONS) {
    const problem = options[name] === undefined ? null : managerOptionProblem(name, options[name]);
    if (problem) throw new InvalidRuntimeOptionError(problem.option, problem.message);
  }
}

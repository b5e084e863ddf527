import type { BudgetDefinition, BudgetWindow } from '@yourtool/core';
import { RuntimeSetupError } from './setup-error.js';

// models.yaml's `budgets:` section (decision 0181): the same fields as the `budgets.define`
// option, with micro-dollars as YAML integers or digit strings (a float would lose cents).

const FIELDS = new Set(['scope', 'limit_micros', 'soft_limit_micros', 'window']);

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function fail(path: string, message: string): never {
  throw new RuntimeSetupError('invalid_option', `models.yaml ${path}: ${message}`);
}

/** Micro-dollars from a whole non-negative YAML number or a string of digits. */
function micros(value: unknown, path: string): bigint {
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return BigInt(value);
  if (typeof value === 'string' && /^\d+$/.test(value)) return BigInt(value);
  if (typeof value === 'bigint' && value >= 0n) return value;
  return fail(path, 'must be a whole number of micro-dollars (0 or more)');
}

/** A window: `{ kind: day }`, `{ kind: month }` or `{ kind: period, seconds: N }`. */
function windowOf(value: unknown, path: string): BudgetWindow {
  if (!isObject(value)) return fail(path, 'must be { kind: day | month | period, seconds? }');
  if (value.kind === 'day' || value.kind === 'month') return { kind: value.kind };
  if (value.kind !== 'period') return fail(`${path}.kind`, 'must be day, month or period');
  const { seconds } = value;
  if (typeof seconds !== 'number' || !Number.isSafeInteger(seconds) || seconds <= 0) {
    return fail(`${path}.seconds`, 'must be a whole number of seconds above 0');
  }
  return { kind: 'period', seconds };
}

/** One entry of the section, checked field by field. */
function definitionOf(entry: unknown, path: string): BudgetDefinition {
  if (!isObject(entry)) return fail(path, 'must be a mapping with scope and limit_micros');
  for (const key of Object.keys(entry)) {
    if (!FIELDS.has(key))
      fail(`${path}.${key}`, `unknown field (known: ${[...FIELDS].join(', ')})`);
  }
  const { scope } = entry;
  if (typeof scope !== 'string' || scope === '') {
    return fail(`${path}.scope`, 'must be a scope such as global, user:<id> or tag:<tag>');
  }
  const definition: BudgetDefinition = {
    scope,
    limit_micros: micros(entry.limit_micros, `${path}.limit_micros`),
  };
  if (entry.soft_limit_micros !== undefined) {
    definition.soft_limit_micros = micros(entry.soft_limit_micros, `${path}.soft_limit_micros`);
  }
  if (entry.window !== undefined) definition.window = windowOf(entry.window, `${path}.window`);
  return definition;
}

/**
 * The budgets of models.yaml's `budgets:` section (a list of definitions), or an empty list
 * when there is none. Throws `RuntimeSetupError` naming the path of a bad field.
 */
export function readConfigBudgets(section: unknown): BudgetDefinition[] {
  if (section === undefined || section === null) return [];
  if (!Array.isArray(section)) return fail('budgets', 'must be a list of budgets');
  const definitions = section.map((entry, index) => definitionOf(entry, `budgets[${index}]`));
  const seen = new Set<string>();
  for (const [index, { scope }] of definitions.entries()) {
    if (seen.has(scope)) fail(`budgets[${index}].scope`, `"${scope}" is defined twice`);
    seen.add(scope);
  }
  return definitions;
}

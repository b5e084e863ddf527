import { nearestName } from '@yourtool/core';
import { RuntimeSetupError } from './setup-error.js';

/**
 * What a configured `type` looks like (`anthropic`, `openai-compatible`): only such a value is
 * quoted back, since another may be a key pasted in the wrong field (the router's rule too).
 */
const ADAPTER_TYPE = /^[a-z][a-z0-9-]{0,39}$/;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Why `type` of the adapter entry `key` is unknown: its path, the type (when it looks like one),
 * and the nearest known type when one is close, else every known type.
 */
function problemOf(key: string, type: string, known: readonly string[]): string {
  const shown = ADAPTER_TYPE.test(type)
    ? `"${type}"`
    : '(not shown: it is not an adapter type name)';
  const near = nearestName(type, known);
  const hint =
    near === undefined ? `the known types are ${known.join(', ')}` : `did you mean "${near}"?`;
  return `adapters.${key}.type: unknown adapter type ${shown}; ${hint}`;
}

/**
 * Refuses adapter entries of a models.yaml document (a parsed value, before validation) whose
 * `type` is none of `known`. It runs before the document is validated, so that a misspelt type
 * is named as such, not as the mismatch it causes with the provider of its models
 * (`type: antropic` serving `anthropic:` models).
 * @throws RuntimeSetupError (`unknown_adapter_type`) naming `source`, each such entry's path and
 * type, and the nearest known type when one is close, else the known types.
 */
export function checkAdapterTypes(
  document: unknown,
  known: readonly string[],
  source: string,
): void {
  const adapters = isObject(document) ? document.adapters : undefined;
  if (!isObject(adapters)) return;
  const problems = Object.entries(adapters).flatMap(([key, entry]) => {
    const type = isObject(entry) ? entry.type : undefined;
    return typeof type === 'string' && type !== '' && !known.includes(type)
      ? [problemOf(key, type, known)]
      : [];
  });
  if (problems.length === 0) return;
  throw new RuntimeSetupError(
    'unknown_adapter_type',
    `${source}: ${problems.join('; ')} (for a type of your own, pass its factory in the factories option)`,
  );
}

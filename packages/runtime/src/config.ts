import {
  parseRegistryConfig,
  parseRoutingConfig,
  type RegistryConfig,
  RouterConfigError,
  type RoutingConfig,
} from '@yourtool/router';
import { parseDocument } from 'yaml';
import { checkAdapterTypes } from './adapter-types.js';

/** Where `${NAME}` values come from. */
export type Env = Readonly<Record<string, string | undefined>>;

const PLACEHOLDER = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/**
 * A YAML document as a plain value, or `undefined` when it does not parse: the router's own
 * parser is then asked to throw its error, which never quotes a secret of the document.
 */
function yamlValue(text: string): unknown {
  const document = parseDocument(text);
  if (document.errors.length > 0) return undefined;
  try {
    return document.toJS({ maxAliasCount: 100 });
  } catch {
    return undefined;
  }
}

/**
 * Replaces every `${NAME}` inside the document's string values with the environment variable
 * `NAME` (keys are left alone). A variable that is not set is an issue naming the path and the
 * variable, never its value.
 */
export function interpolateEnv(
  value: unknown,
  env: Env,
  path = '',
  issues: Array<{ path: string; message: string }> = [],
): unknown {
  if (typeof value === 'string') {
    return value.replace(PLACEHOLDER, (whole, name: string) => {
      const found = env[name];
      if (found === undefined || found === '') {
        issues.push({
          path: path || '$',
          message: `the environment variable ${name} (from ${whole}) is not set`,
        });
        return whole;
      }
      return found;
    });
  }
  if (Array.isArray(value)) {
    return value.map((item, i) => interpolateEnv(item, env, `${path}[${i}]`, issues));
  }
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      out[key] = interpolateEnv(item, env, path ? `${path}.${key}` : key, issues);
    }
    return out;
  }
  return value;
}

/** Moves `base_url_env` of each adapter entry into `base_url`, read from the environment. */
function resolveBaseUrlEnv(
  value: unknown,
  env: Env,
  issues: Array<{ path: string; message: string }>,
): unknown {
  if (value === null || typeof value !== 'object') return value;
  const adapters = (value as { adapters?: unknown }).adapters;
  if (adapters === null || typeof adapters !== 'object') return value;
  const next: Record<string, unknown> = {};
  for (const [key, entry] of Object.entries(adapters)) {
    if (entry === null || typeof entry !== 'object' || !('base_url_env' in entry)) {
      next[key] = entry;
      continue;
    }
    const { base_url_env, ...rest } = entry as Record<string, unknown>;
    const at = `adapters.${key}.base_url_env`;
    if (typeof base_url_env !== 'string' || base_url_env === '') {
      issues.push({ path: at, message: 'must name an environment variable' });
    } else if ('base_url' in rest) {
      issues.push({ path: at, message: 'give either base_url or base_url_env, not both' });
    } else if (env[base_url_env]) {
      rest.base_url = env[base_url_env];
    } else {
      issues.push({ path: at, message: `the environment variable ${base_url_env} is not set` });
    }
    next[key] = rest;
  }
  return { ...value, adapters: next };
}

/** Options of {@link readModelsConfig}. */
export interface ReadModelsConfigOptions {
  /**
   * The adapter types that can be built (`createRuntime`: the known packages' and the
   * factories'). When given, an entry of another type is refused before the document is
   * validated, naming the nearest known type.
   */
  adapterTypes?: readonly string[];
}

/**
 * Reads a models.yaml document: YAML text or an already-parsed value, with `${NAME}`
 * placeholders in values filled from `env` and `base_url_env: NAME` on adapter entries, then
 * validated like `parseRegistryConfig`. Throws `RouterConfigError` naming every problem, or,
 * with `adapterTypes`, `RuntimeSetupError` (`unknown_adapter_type`) for an adapter type none of
 * them is, first.
 */
export function readModelsConfig(
  input: string | unknown,
  env: Env,
  source: string,
  options: ReadModelsConfigOptions = {},
): RegistryConfig {
  const value = typeof input === 'string' ? yamlValue(input) : input;
  if (value === undefined) return parseRegistryConfig(input, source);
  const issues: Array<{ path: string; message: string }> = [];
  const filled = resolveBaseUrlEnv(interpolateEnv(value, env, '', issues), env, issues);
  if (issues.length > 0) throw new RouterConfigError(source, issues);
  if (options.adapterTypes) checkAdapterTypes(filled, options.adapterTypes, source);
  return parseRegistryConfig(filled, source);
}

/** Reads a routing.yaml document the same way (placeholders filled, then validated). */
export function readRoutingConfig(
  input: string | unknown,
  env: Env,
  source: string,
): RoutingConfig {
  const value = typeof input === 'string' ? yamlValue(input) : input;
  if (value === undefined) return parseRoutingConfig(input, source);
  const issues: Array<{ path: string; message: string }> = [];
  const filled = interpolateEnv(value, env, '', issues);
  if (issues.length > 0) throw new RouterConfigError(source, issues);
  return parseRoutingConfig(filled, source);
}

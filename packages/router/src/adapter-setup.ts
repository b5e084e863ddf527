import {
  type AdapterCapabilities,
  type AdapterConfigInput,
  type AdapterOptionError,
  type CallRunnerOptions,
  isYourtoolError,
  type Logger,
  nearestName,
  type ProviderAdapter,
  silentLogger,
} from '@yourtool/core';
import { redactSecrets } from '@yourtool/core/adapter';
import { RouterConfigError } from './errors.js';
import type { AdapterEntry, RegistryConfig } from './registry-config.js';
import { secretsInValue, shownEnvName, shownType } from './secrets.js';

/** Builds an adapter for an entry; the runtime carries wire names and capability overrides. */
export type AdapterFactory = (
  config: AdapterConfigInput,
  runtime: CallRunnerOptions & { wireNames: Record<string, string> },
) => ProviderAdapter;

/** Options of {@link ModelRegistry}. */
export interface ModelRegistryOptions {
  /** Adapter factories by `type`. */
  factories: Record<string, AdapterFactory>;
  /** The document's name for configuration errors (a file path). */
  source?: string;
  /** Where `api_key_env` values are read. Default `process.env`. */
  env?: Record<string, string | undefined>;
  /** Passed to every adapter. */
  logger?: Logger;
  /** Passed to every adapter (tests shorten the backoff). */
  retry?: CallRunnerOptions['retry'];
}

/** The adapters of a registry by entry key, and why an entry cannot serve its models. */
export interface AdapterSetup {
  adapters: Map<string, ProviderAdapter>;
  problems: Map<string, string>;
}

/** What setting one entry up gave: an adapter, a reason its models are not configured, or both. */
interface EntryOutcome {
  adapter?: ProviderAdapter;
  problem?: string;
  /** An option the adapter refused: a configuration error of the whole document. */
  issue?: { path: string; message: string };
}

/**
 * `; did you mean "anthropic"?` when a configured type is a near miss of a factory's type, else
 * nothing. Only the factory's type is quoted, never the configured value.
 */
function typeHint(type: string, factories: Record<string, AdapterFactory>): string {
  const near = nearestName(type, Object.keys(factories));
  return near === undefined ? '' : `; did you mean "${near}"?`;
}

/** The settings of an entry the adapter is built with, the API key resolved. */
function adapterConfig(entry: AdapterEntry, api_key: string | undefined): AdapterConfigInput {
  return {
    ...(api_key ? { api_key } : {}),
    ...(entry.base_url ? { base_url: entry.base_url } : {}),
    ...(entry.timeout_seconds ? { timeout_seconds: entry.timeout_seconds } : {}),
    ...(entry.idle_timeout_seconds ? { idle_timeout_seconds: entry.idle_timeout_seconds } : {}),
    ...(entry.max_retries !== undefined ? { max_retries: entry.max_retries } : {}),
    ...(entry.extra_headers ? { extra_headers: entry.extra_headers } : {}),
    ...(entry.options ? { options: entry.options } : {}),
  };
}

/** What a factory is handed beside the entry's settings. */
type AdapterRuntime = Parameters<AdapterFactory>[1];

/** The wire names and capability overrides of the models an entry serves. */
function modelSettings(
  config: RegistryConfig,
  key: string,
): Pick<AdapterRuntime, 'wireNames' | 'capabilityOverrides'> {
  const models = Object.entries(config.models).filter(([, m]) => m.adapter === key);
  const wireNames = Object.fromEntries(models.map(([id, m]) => [id, m.wire_name]));
  const capabilityOverrides = Object.fromEntries(
    models.flatMap(([id, m]) => (m.capabilities ? [[id, m.capabilities]] : [])),
  ) as Record<string, Partial<AdapterCapabilities>>;
  return { wireNames, capabilityOverrides };
}

/** Sets one adapter entry up: finds its factory and API key, builds the adapter, asks it for problems. */
function setUpAdapter(
  key: string,
  entry: AdapterEntry,
  config: RegistryConfig,
  options: ModelRegistryOptions,
): EntryOutcome {
  const factory = options.factories[entry.type];
  if (!factory) {
    return {
      problem: `no adapter factory for type ${shownType(entry.type)}${typeHint(entry.type, options.factories)} (known: ${Object.keys(options.factories).join(', ')})`,
    };
  }
  let api_key: string | undefined = entry.api_key;
  if (!api_key && entry.api_key_env) {
    api_key = (options.env ?? process.env)[entry.api_key_env];
    if (!api_key) {
      return {
        problem: `the environment variable ${shownEnvName(entry.api_key_env, `adapters.${key}.api_key_env`)} is not set`,
      };
    }
  }
  const runtime: AdapterRuntime = {
    logger: options.logger ?? silentLogger,
    ...modelSettings(config, key),
    ...(options.retry ? { retry: options.retry } : {}),
  };
  // an adapter built before its setup check threw stays in the registry, so it is closed with the rest
  let adapter: ProviderAdapter | undefined;
  try {
    adapter = factory(adapterConfig(entry, api_key), runtime);
    // an adapter with no key would fail every call with `auth`: not routed to at all
    const problem = adapter.setupProblem?.() ?? null;
    return problem ? { adapter, problem: redactSecrets(problem, [api_key]) } : { adapter };
  } catch (error) {
    // an option the adapter refused is a configuration error, not a model quietly unavailable
    if (isYourtoolError(error) && error.code === 'invalid_adapter_option') {
      const { path, reason } = error as AdapterOptionError;
      return {
        ...(adapter ? { adapter } : {}),
        issue: { path: `adapters.${key}.${path}`, message: reason },
      };
    }
    // an adapter may quote the key it refused: keep it out of the reason users see
    const message = redactSecrets(error instanceof Error ? error.message : String(error), [
      api_key,
    ]);
    return {
      ...(adapter ? { adapter } : {}),
      problem: `the adapter could not be created: ${message}`,
    };
  }
}

/**
 * Builds the adapter of every entry of a validated document. An entry without a factory or
 * API key, or whose adapter reports a setup problem or fails to build, gets a problem (its
 * models are `not_configured`); an option an adapter refuses throws `RouterConfigError` for the
 * whole document, after closing the adapters already built.
 */
export function setUpAdapters(config: RegistryConfig, options: ModelRegistryOptions): AdapterSetup {
  const setup: AdapterSetup = { adapters: new Map(), problems: new Map() };
  const optionIssues: Array<{ path: string; message: string }> = [];
  for (const [key, entry] of Object.entries(config.adapters)) {
    const outcome = setUpAdapter(key, entry, config, options);
    if (outcome.adapter) setup.adapters.set(key, outcome.adapter);
    if (outcome.problem !== undefined) setup.problems.set(key, outcome.problem);
    if (outcome.issue) optionIssues.push(outcome.issue);
  }
  if (optionIssues.length > 0) {
    for (const adapter of setup.adapters.values()) void adapter.close();
    throw new RouterConfigError(options.source ?? '<models>', optionIssues, {
      secrets: secretsInValue(config),
    });
  }
  return setup;
}

import { readFileSync } from 'node:fs';
import {
  type AdapterCapabilities,
  AdapterCapabilitiesSchema,
  type AdapterConfigInput,
  type AdapterOptionError,
  type CallRunnerOptions,
  isYourtoolError,
  type Logger,
  nearestName,
  type ProviderAdapter,
  parseModelId,
  silentLogger,
} from '@yourtool/core';
import { redactSecrets } from '@yourtool/core/adapter';
import { distance } from 'fastest-levenshtein';
import { z } from 'zod';
import { ModelNotConfiguredError, RouterConfigError, UnknownModelError } from './errors.js';
import { ENV_NAME, secretsInValue, shownEnvName, shownType } from './secrets.js';
import { parseYamlDocument } from './yaml.js';

/** One adapter instance of the registry (`adapters:` in models.yaml, contract §7.1). */
export const AdapterEntrySchema = z.strictObject({
  /** Which adapter implementation (`anthropic`, `openai`, `openrouter`, `ollama`, ...). */
  type: z.string().min(1),
  /**
   * Environment variable holding the API key (preferred over `api_key`): a name of letters,
   * digits and `_`. A value that is not one (often the key itself, put in the wrong field) is
   * refused without being quoted.
   */
  api_key_env: z
    .string()
    .regex(
      ENV_NAME,
      'must name an environment variable (letters, digits and "_", e.g. ANTHROPIC_API_KEY); the value given is not one and is not shown, in case it is the key itself',
    )
    .optional(),
  /** The API key itself (discouraged: it sits in a config file in plain text). */
  api_key: z.string().min(1).optional(),
  base_url: z.string().url().optional(),
  timeout_seconds: z.number().positive().optional(),
  /** Longest silence between two stream chunks before the call fails as `network` (default 60). */
  idle_timeout_seconds: z.number().positive().optional(),
  max_retries: z.number().int().nonnegative().optional(),
  extra_headers: z.record(z.string(), z.string()).optional(),
  /**
   * Adapter-specific options, passed to the adapter as `config.options`. A string `provider`
   * here is the provider key the entry serves (see {@link providerOf}).
   */
  options: z.record(z.string(), z.unknown()).optional(),
});
/** An adapter entry. */
export type AdapterEntry = z.output<typeof AdapterEntrySchema>;

/** One model of the registry (`models:` in models.yaml). */
export const ModelEntrySchema = z.strictObject({
  /** Key of the adapter entry that serves it. */
  adapter: z.string().min(1),
  /** The model name the adapter sends to the provider. */
  wire_name: z.string().min(1),
  /** Capability tier (`fast`, `balanced`, `deep`, ...), for rules and delegation. */
  tier: z.string().min(1).optional(),
  /** Whether work may be delegated to this model. */
  can_delegate: z.boolean().default(false),
  /** Short names that resolve to the canonical id. */
  aliases: z.array(z.string().min(1)).default([]),
  /** Human name for messages, e.g. "Claude Haiku 4.5". */
  display_name: z.string().min(1).optional(),
  /** Overrides of the adapter's declared capabilities for this model. */
  capabilities: AdapterCapabilitiesSchema.partial().optional(),
});
/** A model entry. */
export type ModelEntry = z.output<typeof ModelEntrySchema>;

/** The whole models.yaml document. */
export const RegistryConfigSchema = z.strictObject({
  adapters: z.record(z.string(), AdapterEntrySchema),
  models: z.record(z.string(), ModelEntrySchema),
});
/** A registry document after validation. */
export type RegistryConfig = z.output<typeof RegistryConfigSchema>;

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

/** A model as the registry knows it. */
export interface RegisteredModel {
  /** Canonical `provider:name` id. */
  id: string;
  provider: string;
  /** Key of its adapter entry. */
  adapter: string;
  wire_name: string;
  tier: string | null;
  can_delegate: boolean;
  aliases: string[];
  /** Display name (defaults to the id). */
  display_name: string;
  /** `not_configured` when its adapter could not be set up (e.g. missing API key). */
  status: 'ready' | 'not_configured';
  /** Why it is not configured. */
  not_configured_reason: string | null;
}

/**
 * The provider key an adapter entry serves: its `options.provider` when it names one (a
 * configurable adapter such as `@yourtool/openai-compatible`'s, serving `together:` models under
 * `type: openai-compatible`), else its `type`. Model ids of the entry must use that key.
 */
export function providerOf(entry: AdapterEntry): string {
  const declared = entry.options?.provider;
  return typeof declared === 'string' && declared !== '' ? declared : entry.type;
}

/**
 * `; did you mean "anthropic"?` when a configured type is a near miss of a factory's type, else
 * nothing. Only the factory's type is quoted, never the configured value.
 */
function typeHint(type: string, factories: Record<string, AdapterFactory>): string {
  const near = nearestName(type, Object.keys(factories));
  return near === undefined ? '' : `; did you mean "${near}"?`;
}

/** Parses and validates a models.yaml document (text or already-parsed value). */
export function parseRegistryConfig(input: string | unknown, source = '<inline>'): RegistryConfig {
  const config = parseYamlDocument(RegistryConfigSchema, input, source);
  const issues: Array<{ path: string; message: string }> = [];
  const names = new Map<string, string>();
  for (const [id, model] of Object.entries(config.models)) {
    const at = `models["${id}"]`;
    let provider: string | null = null;
    try {
      provider = parseModelId(id).provider;
    } catch (error) {
      issues.push({ path: at, message: (error as Error).message });
    }
    const adapter = config.adapters[model.adapter];
    if (!adapter) {
      issues.push({ path: `${at}.adapter`, message: `no adapter "${model.adapter}" in adapters` });
    } else if (provider !== null && provider !== providerOf(adapter)) {
      const serves =
        providerOf(adapter) === adapter.type
          ? `of type ${shownType(adapter.type)}`
          : `serving provider "${providerOf(adapter)}" (options.provider)`;
      issues.push({
        path: `${at}.adapter`,
        message: `model provider "${provider}" does not match adapter "${model.adapter}" ${serves}`,
      });
    }
    for (const name of [id, ...model.aliases]) {
      const owner = names.get(name);
      if (owner && owner !== id) {
        issues.push({ path: `${at}.aliases`, message: `"${name}" already names ${owner}` });
      }
      names.set(name, id);
    }
  }
  if (issues.length > 0)
    throw new RouterConfigError(source, issues, { secrets: secretsInValue(config) });
  return config;
}

/**
 * The model registry: canonical ids, wire names, tiers, aliases and the adapter instance that
 * serves each model. Models of an adapter whose API key is missing are `not_configured`, with
 * the variable's name in the reason.
 */
export class ModelRegistry {
  readonly #models = new Map<string, RegisteredModel>();
  readonly #entries = new Map<string, ModelEntry>();
  readonly #names = new Map<string, string>();
  readonly #adapters = new Map<string, ProviderAdapter>();
  readonly #adapterProblems = new Map<string, string>();

  /** Builds the registry and its adapters from a validated document. */
  constructor(config: RegistryConfig, options: ModelRegistryOptions) {
    const env = options.env ?? process.env;
    const logger = options.logger ?? silentLogger;
    const optionIssues: Array<{ path: string; message: string }> = [];
    for (const [key, entry] of Object.entries(config.adapters)) {
      const factory = options.factories[entry.type];
      if (!factory) {
        this.#adapterProblems.set(
          key,
          `no adapter factory for type ${shownType(entry.type)}${typeHint(entry.type, options.factories)} (known: ${Object.keys(options.factories).join(', ')})`,
        );
        continue;
      }
      let api_key: string | undefined = entry.api_key;
      if (!api_key && entry.api_key_env) {
        api_key = env[entry.api_key_env];
        if (!api_key) {
          this.#adapterProblems.set(
            key,
            `the environment variable ${shownEnvName(entry.api_key_env, `adapters.${key}.api_key_env`)} is not set`,
          );
          continue;
        }
      }
      const models = Object.entries(config.models).filter(([, m]) => m.adapter === key);
      const wireNames = Object.fromEntries(models.map(([id, m]) => [id, m.wire_name]));
      const capabilityOverrides = Object.fromEntries(
        models.flatMap(([id, m]) => (m.capabilities ? [[id, m.capabilities]] : [])),
      ) as Record<string, Partial<AdapterCapabilities>>;
      try {
        const adapter = factory(
          {
            ...(api_key ? { api_key } : {}),
            ...(entry.base_url ? { base_url: entry.base_url } : {}),
            ...(entry.timeout_seconds ? { timeout_seconds: entry.timeout_seconds } : {}),
            ...(entry.idle_timeout_seconds
              ? { idle_timeout_seconds: entry.idle_timeout_seconds }
              : {}),
            ...(entry.max_retries !== undefined ? { max_retries: entry.max_retries } : {}),
            ...(entry.extra_headers ? { extra_headers: entry.extra_headers } : {}),
            ...(entry.options ? { options: entry.options } : {}),
          },
          {
            logger,
            wireNames,
            capabilityOverrides,
            ...(options.retry ? { retry: options.retry } : {}),
          },
        );
        this.#adapters.set(key, adapter);
        // an adapter with no key would fail every call with `auth`: not routed to at all
        const problem = adapter.setupProblem?.() ?? null;
        if (problem) this.#adapterProblems.set(key, redactSecrets(problem, [api_key]));
      } catch (error) {
        // an option the adapter refused is a configuration error, not a model quietly unavailable
        if (isYourtoolError(error) && error.code === 'invalid_adapter_option') {
          const { path, reason } = error as AdapterOptionError;
          optionIssues.push({ path: `adapters.${key}.${path}`, message: reason });
          continue;
        }
        // an adapter may quote the key it refused: keep it out of the reason users see
        this.#adapterProblems.set(
          key,
          `the adapter could not be created: ${redactSecrets(
            error instanceof Error ? error.message : String(error),
            [api_key],
          )}`,
        );
      }
    }
    if (optionIssues.length > 0) {
      for (const adapter of this.#adapters.values()) void adapter.close();
      throw new RouterConfigError(options.source ?? '<models>', optionIssues, {
        secrets: secretsInValue(config),
      });
    }
    for (const [id, entry] of Object.entries(config.models)) {
      const problem = this.#adapterProblems.get(entry.adapter) ?? null;
      this.#entries.set(id, entry);
      this.#models.set(id, {
        id,
        provider: parseModelId(id).provider,
        adapter: entry.adapter,
        wire_name: entry.wire_name,
        tier: entry.tier ?? null,
        can_delegate: entry.can_delegate,
        aliases: [...entry.aliases],
        display_name: entry.display_name ?? id,
        status: problem ? 'not_configured' : 'ready',
        not_configured_reason: problem,
      });
      this.#names.set(id, id);
      for (const alias of entry.aliases) this.#names.set(alias, id);
    }
  }

  /** Loads a models.yaml document. */
  static fromYaml(text: string, options: ModelRegistryOptions, source = '<inline>'): ModelRegistry {
    return new ModelRegistry(parseRegistryConfig(text, source), { source, ...options });
  }

  /** Loads a models.yaml file. */
  static fromFile(path: string, options: ModelRegistryOptions): ModelRegistry {
    return ModelRegistry.fromYaml(readFileSync(path, 'utf8'), options, path);
  }

  /** Every model, in file order. */
  models(): RegisteredModel[] {
    return [...this.#models.values()];
  }

  /** The canonical id for an id or alias, or throws {@link UnknownModelError} with close matches. */
  resolve(nameOrAlias: string): string {
    const id = this.#names.get(nameOrAlias.trim());
    if (id) return id;
    throw new UnknownModelError(nameOrAlias, this.suggest(nameOrAlias));
  }

  /** Known names (ids and aliases) closest to `name`, best first (at most three). */
  suggest(name: string): string[] {
    const wanted = name.trim().toLowerCase();
    return [...this.#names.keys()]
      .map((known) => {
        const lower = known.toLowerCase();
        const bare = lower.includes(':') ? lower.slice(lower.indexOf(':') + 1) : lower;
        const score = Math.min(distance(wanted, lower), distance(wanted, bare));
        return { known, score, contains: lower.includes(wanted) || wanted.includes(bare) };
      })
      .filter((c) => c.contains || c.score <= Math.max(2, Math.floor(wanted.length / 3)))
      .sort((a, b) => a.score - b.score || a.known.localeCompare(b.known))
      .slice(0, 3)
      .map((c) => c.known);
  }

  /** A model by canonical id or alias. */
  get(nameOrAlias: string): RegisteredModel {
    const model = this.#models.get(this.resolve(nameOrAlias));
    if (!model) throw new UnknownModelError(nameOrAlias, []);
    return model;
  }

  /** The adapter serving a model; throws {@link ModelNotConfiguredError} naming why not. */
  adapterFor(nameOrAlias: string): ProviderAdapter {
    const model = this.get(nameOrAlias);
    const adapter = this.#adapters.get(model.adapter);
    if (!adapter)
      throw new ModelNotConfiguredError(model.id, model.not_configured_reason ?? 'no adapter');
    return adapter;
  }

  /** Capabilities of a model: its adapter's declaration with the registry's overrides. */
  capabilitiesFor(nameOrAlias: string): AdapterCapabilities {
    const model = this.get(nameOrAlias);
    const adapter = this.adapterFor(model.id);
    const override = this.#entries.get(model.id)?.capabilities;
    return { ...adapter.capabilitiesFor(model.id), ...override };
  }

  /** Models of a tier, in file order. */
  modelsOfTier(tier: string): RegisteredModel[] {
    return this.models().filter((m) => m.tier === tier);
  }

  /** Closes every adapter. */
  async close(): Promise<void> {
    await Promise.all([...this.#adapters.values()].map((a) => a.close()));
  }
}

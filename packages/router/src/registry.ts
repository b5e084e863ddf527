import { readFileSync } from 'node:fs';
import { type AdapterCapabilities, type ProviderAdapter, parseModelId } from '@yourtool/core';
import { distance } from 'fastest-levenshtein';
import { type ModelRegistryOptions, setUpAdapters } from './adapter-setup.js';
import { ModelNotConfiguredError, UnknownModelError } from './errors.js';
import { type ModelEntry, parseRegistryConfig, type RegistryConfig } from './registry-config.js';

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
 * The model registry: canonical ids, wire names, tiers, aliases and the adapter instance that
 * serves each model. Models of an adapter whose API key is missing are `not_configured`, with
 * the variable's name in the reason.
 */
export class ModelRegistry {
  readonly #models = new Map<string, RegisteredModel>();
  readonly #entries = new Map<string, ModelEntry>();
  readonly #names = new Map<string, string>();
  readonly #adapters: Map<string, ProviderAdapter>;
  readonly #adapterProblems: Map<string, string>;

  /** Builds the registry and its adapters from a validated document. */
  constructor(config: RegistryConfig, options: ModelRegistryOptions) {
    const { adapters, problems } = setUpAdapters(config, options);
    this.#adapters = adapters;
    this.#adapterProblems = problems;
    this.#registerModels(config);
  }

  /** Registers every model of the document under its id and aliases, with its adapter's status. */
  #registerModels(config: RegistryConfig): void {
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

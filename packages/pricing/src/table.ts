import { deepFreeze } from './deep-freeze.js';

/**
 * Rates of one model in USD per million tokens, as exact decimal strings (`"3.75"`): never a
 * binary float. Optional rates are absent when the provider does not sell that kind of token;
 * a usage that needs a missing rate is reported as unpriced, never priced at zero.
 */
export interface RateSet {
  /** Uncached input tokens. */
  input_per_mtok_usd: string;
  /** Output tokens (reasoning tokens included, as providers bill them). */
  output_per_mtok_usd: string;
  /** Input tokens read from the prompt cache (`cached_input_tokens`). */
  cached_read_per_mtok_usd?: string;
  /** Input tokens written to a cache entry that lives 5 minutes (Anthropic's default TTL). */
  cache_write_5m_per_mtok_usd?: string;
  /** Input tokens written to a cache entry that lives 1 hour. */
  cache_write_1h_per_mtok_usd?: string;
}

/**
 * Rates that replace the base rates for a whole request once its prompt (input + cache read +
 * cache write tokens) exceeds `above_input_tokens`. A tier defines every rate its base defines.
 */
export interface LongContextTier extends RateSet {
  /** The tier applies when the prompt has strictly more tokens than this. */
  above_input_tokens: number;
}

/** The price of one model (or of every model matching a `provider:prefix*` pattern). */
export interface ModelPrice extends RateSet {
  /** Long-context tiers, lowest threshold first; empty when the model has one flat price. */
  long_context: LongContextTier[];
  /** Where the figures come from (usually the provider's pricing page). */
  source?: string;
  /** Free text. */
  notes?: string;
}

/**
 * A versioned price table. `pricing_version` is recorded on every cost computed from it
 * (`Usage.pricing_version`), so a cost can always be audited and recomputed.
 */
export interface PriceTable {
  /** Identifies this exact set of prices, e.g. `"2026-11-22"`. */
  pricing_version: string;
  /** The day from which these prices apply (`YYYY-MM-DD`). */
  effective_date: string;
  /** Where the prices come from. */
  source: string;
  /** Free text. */
  notes?: string;
  /**
   * Prices by canonical model id (`anthropic:claude-sonnet-4-6`), or by pattern
   * (`ollama:*`, `openai:gpt-5*`) for every model starting with the text before `*`.
   */
  models: Readonly<Record<string, ModelPrice>>;
}

/**
 * A layer of prices merged over a base table with {@link mergePriceTables}: its own
 * `pricing_version`, and model entries that replace the base's entries whole (`null` removes
 * one, making that model unpriced).
 */
export interface PriceOverrides {
  /** Identifies this layer; the merged table's version is `<base>+<this>`. */
  pricing_version: string;
  effective_date?: string;
  source?: string;
  notes?: string;
  models: Readonly<Record<string, ModelPrice | null>>;
}

/**
 * Merges an override layer over a base table. Each model entry of the layer replaces the base
 * entry whole (no rate of the base leaks into a negotiated price); `null` removes the entry.
 * The result's `pricing_version` is `<base version>+<layer version>`, so costs computed from
 * it are never confused with costs from the base table alone.
 */
export function mergePriceTables(base: PriceTable, overrides: PriceOverrides): PriceTable {
  const models: Record<string, ModelPrice> = { ...base.models };
  for (const [key, entry] of Object.entries(overrides.models)) {
    if (entry === null) delete models[key];
    else models[key] = entry;
  }
  const table: PriceTable = {
    pricing_version: `${base.pricing_version}+${overrides.pricing_version}`,
    effective_date: overrides.effective_date ?? base.effective_date,
    source: `${base.source}; overrides: ${overrides.source ?? overrides.pricing_version}`,
    models,
  };
  const notes = [base.notes, overrides.notes].filter((n) => n !== undefined).join('\n');
  if (notes !== '') table.notes = notes;
  return deepFreeze(table);
}

/** A table entry found for a model id. */
export interface ModelPriceMatch {
  /** The `models` key that matched: the id itself, or a pattern such as `ollama:*`. */
  key: string;
  price: ModelPrice;
}

/**
 * Finds the price of a canonical model id: its exact entry, else the longest matching
 * `prefix*` pattern. `undefined` when the table does not price the model.
 */
export function findModelPrice(table: PriceTable, model: string): ModelPriceMatch | undefined {
  const exact = Object.hasOwn(table.models, model) ? table.models[model] : undefined;
  if (exact !== undefined && !model.endsWith('*')) return { key: model, price: exact };
  let best: ModelPriceMatch | undefined;
  for (const [key, price] of Object.entries(table.models)) {
    if (!key.endsWith('*')) continue;
    const stem = key.slice(0, -1);
    if (model.startsWith(stem) && model.length > stem.length) {
      if (best === undefined || stem.length > best.key.length - 1) best = { key, price };
    }
  }
  return best;
}

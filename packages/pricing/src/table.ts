import { readFile } from 'node:fs/promises';
import { InvalidModelIdError, parseModelId } from '@yourtool/core';
import Decimal from 'decimal.js';
import { isScalar, parseDocument, visit } from 'yaml';
import { z } from 'zod';
import { PriceTableError, type PriceTableIssue } from './errors.js';

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

const RATE_PATTERN = /^\d{1,12}(\.\d{1,30})?$/;
const RATE_HINT = 'a non-negative decimal such as 3.75 (up to 12 integer and 30 fractional digits)';

/** A rate: a plain decimal, written as a YAML number or string, or a JS number. */
const RateSchema = z.unknown().transform((value, ctx): string => {
  if (typeof value === 'string') {
    if (RATE_PATTERN.test(value)) return value;
    ctx.addIssue({ code: 'custom', message: `must be ${RATE_HINT}, got "${value}"` });
    return z.NEVER;
  }
  if (typeof value === 'number') {
    if (Number.isFinite(value) && value >= 0) {
      const text = new Decimal(value).toFixed();
      if (RATE_PATTERN.test(text)) return text;
    }
    ctx.addIssue({ code: 'custom', message: `must be ${RATE_HINT}, got ${value}` });
    return z.NEVER;
  }
  ctx.addIssue({
    code: 'custom',
    message: value === undefined ? `required: ${RATE_HINT}` : `must be ${RATE_HINT}`,
  });
  return z.NEVER;
});

const rateFields = {
  input_per_mtok_usd: RateSchema,
  output_per_mtok_usd: RateSchema,
  cached_read_per_mtok_usd: RateSchema.optional(),
  cache_write_5m_per_mtok_usd: RateSchema.optional(),
  cache_write_1h_per_mtok_usd: RateSchema.optional(),
  /** Spelling of canonical-format §6.4: the 5-minute cache write rate. */
  cache_write_per_mtok_usd: RateSchema.optional(),
};

const OPTIONAL_RATES = [
  'cached_read_per_mtok_usd',
  'cache_write_5m_per_mtok_usd',
  'cache_write_1h_per_mtok_usd',
] as const;

const TierSchema = z.strictObject({
  above_input_tokens: z
    .number({ message: 'required: a positive integer token count' })
    .int('must be an integer token count')
    .positive('must be a positive token count'),
  ...rateFields,
});

const ModelEntrySchema = z.strictObject({
  ...rateFields,
  long_context: z.union([TierSchema, z.array(TierSchema)]).optional(),
  source: z.string().min(1, 'must not be empty').optional(),
  notes: z.string().optional(),
});

type RawRates = {
  input_per_mtok_usd: string;
  output_per_mtok_usd: string;
  cached_read_per_mtok_usd?: string | undefined;
  cache_write_5m_per_mtok_usd?: string | undefined;
  cache_write_1h_per_mtok_usd?: string | undefined;
  cache_write_per_mtok_usd?: string | undefined;
};

/** Folds the spec's `cache_write_per_mtok_usd` into the 5-minute rate; reports a clash. */
function normalizeRates(raw: RawRates, path: string, issues: PriceTableIssue[]): RateSet {
  const rates: RateSet = {
    input_per_mtok_usd: raw.input_per_mtok_usd,
    output_per_mtok_usd: raw.output_per_mtok_usd,
  };
  if (raw.cached_read_per_mtok_usd !== undefined) {
    rates.cached_read_per_mtok_usd = raw.cached_read_per_mtok_usd;
  }
  if (raw.cache_write_per_mtok_usd !== undefined && raw.cache_write_5m_per_mtok_usd !== undefined) {
    issues.push({
      path: `${path}.cache_write_per_mtok_usd`,
      message: 'give either cache_write_per_mtok_usd or cache_write_5m_per_mtok_usd, not both',
    });
  }
  const fiveMinutes = raw.cache_write_5m_per_mtok_usd ?? raw.cache_write_per_mtok_usd;
  if (fiveMinutes !== undefined) rates.cache_write_5m_per_mtok_usd = fiveMinutes;
  if (raw.cache_write_1h_per_mtok_usd !== undefined) {
    rates.cache_write_1h_per_mtok_usd = raw.cache_write_1h_per_mtok_usd;
  }
  return rates;
}

type RawModelEntry = z.output<typeof ModelEntrySchema>;

function normalizeModelEntry(
  raw: RawModelEntry,
  path: string,
  issues: PriceTableIssue[],
): ModelPrice {
  const base = normalizeRates(raw, path, issues);
  const rawTiers = raw.long_context === undefined ? [] : [raw.long_context].flat();
  const tiers = rawTiers.map((tier, index) => {
    const tierPath = Array.isArray(raw.long_context)
      ? `${path}.long_context[${index}]`
      : `${path}.long_context`;
    const rates = normalizeRates(tier, tierPath, issues);
    for (const field of OPTIONAL_RATES) {
      if (base[field] !== undefined && rates[field] === undefined) {
        issues.push({
          path: `${tierPath}.${field}`,
          message: 'required: the base price has this rate, so the long-context tier must too',
        });
      }
      if (base[field] === undefined && rates[field] !== undefined) {
        issues.push({
          path: `${tierPath}.${field}`,
          message: 'the base price has no such rate; add it there first',
        });
      }
    }
    return { above_input_tokens: tier.above_input_tokens, ...rates };
  });
  tiers.sort((a, b) => a.above_input_tokens - b.above_input_tokens);
  for (let i = 1; i < tiers.length; i++) {
    if (tiers[i]?.above_input_tokens === tiers[i - 1]?.above_input_tokens) {
      issues.push({
        path: `${path}.long_context`,
        message: `two tiers start above ${tiers[i]?.above_input_tokens} tokens`,
      });
    }
  }
  const price: ModelPrice = { ...base, long_context: tiers };
  if (raw.source !== undefined) price.source = raw.source;
  if (raw.notes !== undefined) price.notes = raw.notes;
  return price;
}

const VersionSchema = z
  .string({ message: 'required: a non-empty string such as "2026-11-22"' })
  .min(1, 'must not be empty')
  .max(200, 'must be at most 200 characters')
  .refine((v) => v.trim() === v, 'must not start or end with spaces');

const DateSchema = z.iso.date('must be a date written YYYY-MM-DD');

const TableSchema = z.strictObject({
  pricing_version: VersionSchema,
  effective_date: DateSchema,
  source: z.string({ message: 'required: where these prices come from' }).min(1),
  notes: z.string().optional(),
  models: z.record(z.string(), ModelEntrySchema, { message: 'required: a map of model prices' }),
});

const OverridesSchema = z.strictObject({
  pricing_version: VersionSchema,
  effective_date: DateSchema.optional(),
  source: z.string().min(1).optional(),
  notes: z.string().optional(),
  models: z.record(z.string(), ModelEntrySchema.nullable(), {
    message: 'required: a map of model prices (null removes a model)',
  }),
});

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Formats a path as `models["openai:gpt-5"].long_context[0].input_per_mtok_usd`. */
export function formatTablePath(path: ReadonlyArray<PropertyKey>): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else {
      const name = String(key);
      if (IDENTIFIER.test(name)) out += out === '' ? name : `.${name}`;
      else out += `[${JSON.stringify(name)}]`;
    }
  }
  return out === '' ? '$' : out;
}

function modelPath(key: string): string {
  return `models[${JSON.stringify(key)}]`;
}

/**
 * Checks a `models` key: a canonical model id (`provider:name`) or a pattern ending in `*`
 * (`ollama:*`, `openai:gpt-5*`) that matches every id starting with the text before it.
 * Returns a problem description, or `undefined` when the key is valid.
 */
export function checkModelKey(key: string): string | undefined {
  const star = key.indexOf('*');
  if (star >= 0 && star !== key.length - 1) {
    return 'a pattern may only have one "*", at the end (e.g. "ollama:*")';
  }
  const stem = star >= 0 ? key.slice(0, -1) : key;
  try {
    parseModelId(star >= 0 ? `${stem}x` : stem);
    if (star >= 0 && !stem.includes(':')) return 'a pattern must name its provider ("ollama:*")';
    return undefined;
  } catch (error) {
    if (error instanceof InvalidModelIdError) {
      return `not a canonical model id or pattern: ${error.message.replace(/^invalid model id "[^"]*": /, '')}`;
    }
    throw error;
  }
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}

function normalizeModels(
  models: Record<string, RawModelEntry | null>,
  issues: PriceTableIssue[],
): Record<string, ModelPrice | null> {
  const out: Record<string, ModelPrice | null> = {};
  for (const [key, entry] of Object.entries(models)) {
    const problem = checkModelKey(key);
    if (problem) issues.push({ path: modelPath(key), message: problem });
    out[key] = entry === null ? null : normalizeModelEntry(entry, modelPath(key), issues);
  }
  return out;
}

function zodIssues(error: z.ZodError): PriceTableIssue[] {
  return error.issues.map((issue) => ({
    path: formatTablePath(issue.path),
    message: issue.message,
  }));
}

/** Options of the functions that read price tables. */
export interface PriceTableSourceOptions {
  /** Named in errors: a file path, `"default table"`, ... */
  origin?: string;
}

/**
 * Validates a price table given as a plain object (e.g. parsed JSON, or written in code).
 * Throws {@link PriceTableError} naming every offending path. The returned table is frozen.
 */
export function validatePriceTable(
  value: unknown,
  options: PriceTableSourceOptions = {},
): PriceTable {
  const parsed = TableSchema.safeParse(value);
  if (!parsed.success) throw new PriceTableError(zodIssues(parsed.error), options.origin);
  const issues: PriceTableIssue[] = [];
  const models = normalizeModels(parsed.data.models, issues) as Record<string, ModelPrice>;
  if (issues.length > 0) throw new PriceTableError(issues, options.origin);
  const table: PriceTable = {
    pricing_version: parsed.data.pricing_version,
    effective_date: parsed.data.effective_date,
    source: parsed.data.source,
    models,
  };
  if (parsed.data.notes !== undefined) table.notes = parsed.data.notes;
  return deepFreeze(table);
}

/** Keys whose numeric YAML scalars are kept as written, so no rate passes through a float. */
function keepsSourceText(key: unknown): boolean {
  return typeof key === 'string' && (key.endsWith('_usd') || key === 'pricing_version');
}

/**
 * How much alias expansion a price table may ask for: the `yaml` library's `maxAliasCount`
 * (each alias resolution counts the aliases inside what it copies). A hand-written table that
 * shares a few price entries through anchors stays far below it; a "billion laughs" document,
 * whose aliases multiply one another, exceeds it after a few levels instead of expanding to
 * gigabytes. See docs/decisions/0064.
 */
export const MAX_PRICE_TABLE_ALIAS_COUNT = 100;

/**
 * Parses YAML keeping every rate exactly as written: `0.30` stays the decimal string `"0.30"`
 * rather than the float 0.3, so figures with more than 15 significant digits survive intact.
 * Alias expansion is bounded ({@link MAX_PRICE_TABLE_ALIAS_COUNT}); a document past the bound
 * is a {@link PriceTableError} naming the origin, never the `yaml` library's `ReferenceError`.
 */
function parseYaml(text: string, origin: string | undefined): unknown {
  const doc = parseDocument(text, { uniqueKeys: true, prettyErrors: true });
  if (doc.errors.length > 0) {
    throw new PriceTableError(
      doc.errors.map((error) => ({ path: '$', message: error.message })),
      origin,
    );
  }
  visit(doc, {
    Pair(_, pair) {
      if (!isScalar(pair.key) || !isScalar(pair.value)) return;
      if (!keepsSourceText(pair.key.value)) return;
      const scalar = pair.value;
      if (typeof scalar.value === 'number' && typeof scalar.source === 'string') {
        scalar.value = scalar.source;
      }
    },
  });
  try {
    return doc.toJS({ maxAliasCount: MAX_PRICE_TABLE_ALIAS_COUNT });
  } catch (cause) {
    // The yaml library throws a ReferenceError when the aliases expand past the bound.
    const detail = cause instanceof Error ? cause.message : String(cause);
    const message = `cannot be expanded to data (aliases may expand at most ${MAX_PRICE_TABLE_ALIAS_COUNT} times): ${detail}`;
    throw new PriceTableError([{ path: '$', message }], origin, { cause });
  }
}

/**
 * Parses and validates a price table written in YAML (see the package README for the format).
 * Rates keep the exact digits written. Throws {@link PriceTableError} naming every offending
 * path, e.g. `models["openai:gpt-5"].input_per_mtok_usd`.
 */
export function parsePriceTable(yaml: string, options: PriceTableSourceOptions = {}): PriceTable {
  return validatePriceTable(parseYaml(yaml, options.origin), options);
}

/** Reads and validates a YAML price table file. */
export async function readPriceTableFile(path: string): Promise<PriceTable> {
  return parsePriceTable(await readFile(path, 'utf8'), { origin: path });
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

/** Validates an override layer given as a plain object. */
export function validatePriceOverrides(
  value: unknown,
  options: PriceTableSourceOptions = {},
): PriceOverrides {
  const parsed = OverridesSchema.safeParse(value);
  if (!parsed.success) throw new PriceTableError(zodIssues(parsed.error), options.origin);
  const issues: PriceTableIssue[] = [];
  const models = normalizeModels(parsed.data.models, issues);
  if (issues.length > 0) throw new PriceTableError(issues, options.origin);
  const overrides: PriceOverrides = { pricing_version: parsed.data.pricing_version, models };
  if (parsed.data.effective_date !== undefined) {
    overrides.effective_date = parsed.data.effective_date;
  }
  if (parsed.data.source !== undefined) overrides.source = parsed.data.source;
  else if (options.origin !== undefined) overrides.source = options.origin;
  if (parsed.data.notes !== undefined) overrides.notes = parsed.data.notes;
  return deepFreeze(overrides);
}

/** Parses and validates an override layer written in YAML. */
export function parsePriceOverrides(
  yaml: string,
  options: PriceTableSourceOptions = {},
): PriceOverrides {
  return validatePriceOverrides(parseYaml(yaml, options.origin), options);
}

/** Reads and validates a YAML override file. */
export async function readPriceOverridesFile(path: string): Promise<PriceOverrides> {
  return parsePriceOverrides(await readFile(path, 'utf8'), { origin: path });
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

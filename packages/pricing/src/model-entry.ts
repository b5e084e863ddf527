import Decimal from 'decimal.js';
import { z } from 'zod';
import type { PriceTableIssue } from './errors.js';
import type { ModelPrice, RateSet } from './table.js';

// One model's entry of a price table as written (rates as YAML numbers or strings, the spec's
// `cache_write_per_mtok_usd` spelling, one tier or a list) and its normal form, `ModelPrice`.

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

/** A `models` entry as written; {@link normalizeModelEntry} gives its `ModelPrice`. */
export const ModelEntrySchema = z.strictObject({
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

/** A `models` entry as {@link ModelEntrySchema} parsed it. */
export type RawModelEntry = z.output<typeof ModelEntrySchema>;

/**
 * The `ModelPrice` of a parsed entry at `path`: tiers sorted, each checked against the base
 * rates; what is wrong goes to `issues`.
 */
export function normalizeModelEntry(
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

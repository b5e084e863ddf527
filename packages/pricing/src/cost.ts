import type Decimal from 'decimal.js';
import { DECIMAL_STRING, Exact } from './decimal.js';
import { InvalidUsageError, UnpricedModelError, type UnpricedReason } from './errors.js';
import {
  findModelPrice,
  type LongContextTier,
  type ModelPrice,
  type PriceTable,
  type RateSet,
} from './table.js';

const PER_MTOK = new Exact(1_000_000);

/** Token counts to price: core's `TokenUsage` and `Usage` both fit. */
export interface TokenCounts {
  /** Uncached input tokens (cache reads and writes are counted separately). */
  input_tokens: number;
  output_tokens: number;
  /** Input tokens read from the prompt cache. */
  cached_input_tokens?: number;
  /** Input tokens written to the prompt cache. */
  cache_creation_input_tokens?: number;
}

/**
 * How long the cache entries written by this request live, which decides their rate
 * (`cache_creation_input_tokens` does not say). `'5m'` (the default, Anthropic's default TTL)
 * or `'1h'` for all of them, or `{ oneHourTokens }` when the provider reported the split
 * (Anthropic's `usage.cache_creation.ephemeral_1h_input_tokens`): that many at the 1-hour
 * rate, the rest at the 5-minute rate.
 */
export type CacheWriteTtl = '5m' | '1h' | { oneHourTokens: number };

/** Options of {@link computeCost}. */
export interface CostOptions {
  /** Which cache write rate applies; default `'5m'`. */
  cacheWriteTtl?: CacheWriteTtl;
}

/** The cost of each kind of token, as exact decimal strings in USD. */
export interface CostBreakdown {
  input: string;
  output: string;
  cached_read: string;
  cache_write_5m: string;
  cache_write_1h: string;
}

/** A usage priced from a table. */
export interface PricedCost {
  priced: true;
  /** Exact cost in USD as a decimal string (`"0.02775"`), never rounded. */
  cost_usd: string;
  /** The table version that produced the cost: store it with the cost. */
  pricing_version: string;
  /** The model priced. */
  model: string;
  /** The table entry used: the model id, or the pattern that matched (`ollama:*`). */
  price_key: string;
  /** `above_input_tokens` of the long-context tier applied, `null` for the base rates. */
  long_context_tier: number | null;
  /** Input + cache read + cache write tokens: what long-context thresholds compare against. */
  prompt_tokens: number;
  breakdown: CostBreakdown;
}

/**
 * A usage that could not be priced. Its `cost_usd` and `pricing_version` are `null`, which is
 * exactly how `Usage` records "unpriced" (never a silent zero).
 */
export interface UnpricedCost {
  priced: false;
  cost_usd: null;
  pricing_version: null;
  model: string;
  /** The version of the table that had no price. */
  table_version: string;
  reason: UnpricedReason;
  /** What is missing, naming the table path. */
  detail: string;
}

/** The result of {@link computeCost}: check `priced` before using `cost_usd`. */
export type CostResult = PricedCost | UnpricedCost;

function count(usage: TokenCounts, field: keyof TokenCounts): number {
  const value = usage[field] ?? 0;
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new InvalidUsageError(field, `must be a non-negative integer token count, got ${value}`);
  }
  return value;
}

function splitCacheWrites(
  creation: number,
  ttl: CacheWriteTtl,
): { fiveMinutes: number; oneHour: number } {
  if (ttl === '5m') return { fiveMinutes: creation, oneHour: 0 };
  if (ttl === '1h') return { fiveMinutes: 0, oneHour: creation };
  const oneHour = ttl.oneHourTokens;
  if (!Number.isSafeInteger(oneHour) || oneHour < 0 || oneHour > creation) {
    throw new InvalidUsageError(
      'cacheWriteTtl.oneHourTokens',
      `must be an integer between 0 and cache_creation_input_tokens (${creation}), got ${oneHour}`,
    );
  }
  return { fiveMinutes: creation - oneHour, oneHour };
}

function selectTier(price: ModelPrice, promptTokens: number): LongContextTier | undefined {
  let selected: LongContextTier | undefined;
  for (const tier of price.long_context) {
    if (promptTokens > tier.above_input_tokens) selected = tier;
  }
  return selected;
}

function part(tokens: number, rate: string | undefined): Decimal {
  if (tokens === 0) return new Exact(0);
  return new Exact(tokens).times(new Exact(rate ?? '0')).dividedBy(PER_MTOK);
}

/**
 * Computes the cost of a usage from a price table, exactly (decimal arithmetic, no binary
 * float, no rounding):
 *
 * `input × input rate + output × output rate + cached × cache read rate
 *  + cache writes × 5-minute or 1-hour write rate`, all rates per million tokens.
 *
 * `input_tokens` are the uncached input tokens. When the prompt (input + cache read + cache
 * write tokens) exceeds a long-context tier's threshold, that tier's rates apply to the whole
 * request, output included. A model the table does not price, or a usage needing a rate the
 * entry lacks, gives `{ priced: false, cost_usd: null, ... }`: the caller has to look at
 * `priced` to get a string out. Use {@link requireCost} to throw instead.
 *
 * @throws InvalidUsageError when a count is not a non-negative integer.
 */
export function computeCost(
  usage: TokenCounts,
  model: string,
  table: PriceTable,
  options: CostOptions = {},
): CostResult {
  const input = count(usage, 'input_tokens');
  const output = count(usage, 'output_tokens');
  const cachedRead = count(usage, 'cached_input_tokens');
  const creation = count(usage, 'cache_creation_input_tokens');
  const writes = splitCacheWrites(creation, options.cacheWriteTtl ?? '5m');

  const unpriced = (reason: UnpricedReason, detail: string): UnpricedCost => ({
    priced: false,
    cost_usd: null,
    pricing_version: null,
    model,
    table_version: table.pricing_version,
    reason,
    detail,
  });

  const match = findModelPrice(table, model);
  if (match === undefined) {
    return unpriced(
      'unknown_model',
      `the table has no entry for ${model} (and no pattern matching it)`,
    );
  }
  const promptTokens = input + cachedRead + creation;
  const tier = selectTier(match.price, promptTokens);
  const rates: RateSet = tier ?? match.price;
  const ratePath = (field: keyof RateSet): string => {
    const entry = `models[${JSON.stringify(match.key)}]`;
    if (tier === undefined) return `${entry}.${field}`;
    return `${entry}.long_context(above ${tier.above_input_tokens}).${field}`;
  };
  const needed: Array<[number, keyof RateSet, string]> = [
    [cachedRead, 'cached_read_per_mtok_usd', 'cache read'],
    [writes.fiveMinutes, 'cache_write_5m_per_mtok_usd', '5-minute cache write'],
    [writes.oneHour, 'cache_write_1h_per_mtok_usd', '1-hour cache write'],
  ];
  for (const [tokens, field, what] of needed) {
    if (tokens > 0 && rates[field] === undefined) {
      return unpriced('missing_rate', `${tokens} ${what} tokens but no rate at ${ratePath(field)}`);
    }
  }

  const breakdown = {
    input: part(input, rates.input_per_mtok_usd),
    output: part(output, rates.output_per_mtok_usd),
    cached_read: part(cachedRead, rates.cached_read_per_mtok_usd),
    cache_write_5m: part(writes.fiveMinutes, rates.cache_write_5m_per_mtok_usd),
    cache_write_1h: part(writes.oneHour, rates.cache_write_1h_per_mtok_usd),
  };
  const total = Object.values(breakdown).reduce((sum, value) => sum.plus(value), new Exact(0));
  return {
    priced: true,
    cost_usd: total.toFixed(),
    pricing_version: table.pricing_version,
    model,
    price_key: match.key,
    long_context_tier: tier?.above_input_tokens ?? null,
    prompt_tokens: promptTokens,
    breakdown: {
      input: breakdown.input.toFixed(),
      output: breakdown.output.toFixed(),
      cached_read: breakdown.cached_read.toFixed(),
      cache_write_5m: breakdown.cache_write_5m.toFixed(),
      cache_write_1h: breakdown.cache_write_1h.toFixed(),
    },
  };
}

/**
 * Like {@link computeCost}, for callers that cannot continue without a price.
 *
 * @throws UnpricedModelError when the usage cannot be priced from `table`.
 */
export function requireCost(
  usage: TokenCounts,
  model: string,
  table: PriceTable,
  options: CostOptions = {},
): PricedCost {
  const result = computeCost(usage, model, table, options);
  if (!result.priced) {
    throw new UnpricedModelError(model, result.reason, table.pricing_version, result.detail);
  }
  return result;
}

/** Adds decimal strings exactly (e.g. to total the `cost_usd` of many messages). */
export function sumCosts(costs: Iterable<string>): string {
  let total = new Exact(0);
  for (const cost of costs) {
    if (!DECIMAL_STRING.test(cost)) {
      throw new InvalidUsageError(
        'cost_usd',
        `must be a decimal string such as "0.000654", got "${cost}"`,
      );
    }
    total = total.plus(new Exact(cost));
  }
  return total.toFixed();
}

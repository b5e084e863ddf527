import { defaultPriceTable, findModelPrice, type ModelPrice } from '@yourtool/pricing';
import { describe, expect, it } from 'vitest';
import { estimateWorstCaseMicros } from '../src/index.js';

/** The worst-case estimate a budget reserves (decision 0181), on the shipped price table. */
describe('estimateWorstCaseMicros', () => {
  const table = defaultPriceTable();
  const tiered = Object.entries(table.models).find(
    ([key, p]) => !key.includes('*') && p.long_context.length > 0,
  );

  it('prices a long-context request at its tier, not at base rates', () => {
    expect(tiered, 'the shipped table has a model with a long-context tier').toBeDefined();
    const [model, price] = tiered as [string, ModelPrice];
    const tier = price.long_context[0] as (typeof price.long_context)[number];
    const prompt = tier.above_input_tokens + 1_000;
    const estimate = estimateWorstCaseMicros(
      { model, inputTokens: prompt, maxOutputTokens: 1_000 },
      table,
    );
    const perToken = (rate: string) => Number(rate) / 1_000_000;
    const atBase =
      prompt * perToken(price.input_per_mtok_usd) + 1_000 * perToken(price.output_per_mtok_usd);
    const atTier =
      prompt * perToken(tier.input_per_mtok_usd) + 1_000 * perToken(tier.output_per_mtok_usd);
    expect(atTier).toBeGreaterThan(atBase);
    // micro-dollars, rounded up: within one micro-dollar of the tier's exact figure
    expect(Number(estimate)).toBeGreaterThanOrEqual(Math.floor(atTier * 1_000_000));
    expect(Number(estimate)).toBeLessThanOrEqual(Math.ceil(atTier * 1_000_000) + 1);
  });

  it('adds the cache-write premium and the thinking budget', () => {
    const [model] = tiered as [string, unknown];
    const base = { model, inputTokens: 10_000, maxOutputTokens: 1_000 };
    const plain = estimateWorstCaseMicros(base, table) as bigint;
    const cached = estimateWorstCaseMicros({ ...base, cacheWrite: '1h' }, table);
    const thinking = estimateWorstCaseMicros({ ...base, thinkingTokens: 8_000 }, table) as bigint;
    expect(thinking).toBeGreaterThan(plain);
    if (findModelPrice(table, model)?.price.cache_write_1h_per_mtok_usd) {
      expect(cached as bigint).toBeGreaterThan(plain);
    }
  });

  it('is null for a model the table does not price', () => {
    expect(
      estimateWorstCaseMicros(
        { model: 'nowhere:model-x', inputTokens: 1, maxOutputTokens: 1 },
        table,
      ),
    ).toBeNull();
  });
});

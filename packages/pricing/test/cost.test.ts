import { describe, expect, it } from 'vitest';
import {
  computeCost,
  defaultPriceTable,
  InvalidUsageError,
  parsePriceTable,
  requireCost,
  sumCosts,
  UnpricedModelError,
} from '../src/index.js';

const table = defaultPriceTable();

/** A table with a long-context tier, as Anthropic priced Sonnet 4 / 4.5 beyond 200k tokens. */
const tiered = parsePriceTable(`
pricing_version: tiered-test
effective_date: 2026-01-01
source: test
models:
  anthropic:claude-sonnet-4-5:
    input_per_mtok_usd: 3
    output_per_mtok_usd: 15
    cached_read_per_mtok_usd: 0.30
    cache_write_5m_per_mtok_usd: 3.75
    cache_write_1h_per_mtok_usd: 6
    long_context:
      above_input_tokens: 200000
      input_per_mtok_usd: 6
      output_per_mtok_usd: 22.50
      cached_read_per_mtok_usd: 0.60
      cache_write_5m_per_mtok_usd: 7.50
      cache_write_1h_per_mtok_usd: 12
`);

function priced(result: ReturnType<typeof computeCost>) {
  if (!result.priced) throw new Error(`expected a price, got ${result.detail}`);
  return result;
}

describe('computeCost against hand-computed figures: Gemini', () => {
  it('prices Gemini 2.5 Flash with cache reads (thinking is already in output_tokens)', () => {
    const cost = priced(
      computeCost(
        { input_tokens: 200, output_tokens: 100, cached_input_tokens: 1_000 },
        'google:gemini-2.5-flash',
        table,
      ),
    );
    // 200 × 0.30 + 100 × 2.50 + 1000 × 0.03 = 60 + 250 + 30 = 340 µ$
    expect(cost.cost_usd).toBe('0.00034');
  });

  it('prices a Gemini 3 Pro prompt over 200k tokens at the long-context rates, whole', () => {
    const usage = { input_tokens: 150_000, output_tokens: 1_000, cached_input_tokens: 60_000 };
    const cost = priced(computeCost(usage, 'google:gemini-3-pro-preview', table));
    // 150000 × 4 + 1000 × 18 + 60000 × 0.40 = 600000 + 18000 + 24000 = 642000 µ$
    expect(cost.cost_usd).toBe('0.642');
    const small = priced(
      computeCost(
        { input_tokens: 150_000, output_tokens: 1_000 },
        'google:gemini-3-pro-preview',
        table,
      ),
    );
    // 150000 × 2 + 1000 × 12 = 312000 µ$
    expect(small.cost_usd).toBe('0.312');
  });
});

describe('computeCost against hand-computed figures', () => {
  it('prices the canonical-format example (8 in, 42 out on Sonnet 4.6) at 0.000654', () => {
    const cost = priced(
      computeCost({ input_tokens: 8, output_tokens: 42 }, 'anthropic:claude-sonnet-4-6', table),
    );
    // 8 × 3 / 10^6 + 42 × 15 / 10^6 = 0.000024 + 0.00063
    expect(cost.cost_usd).toBe('0.000654');
    expect(cost.pricing_version).toBe(table.pricing_version);
    expect(cost.price_key).toBe('anthropic:claude-sonnet-4-6');
  });

  it('prices cache reads and 5-minute cache writes at their own rates', () => {
    const usage = {
      input_tokens: 1_000,
      output_tokens: 500,
      cached_input_tokens: 20_000,
      cache_creation_input_tokens: 3_000,
    };
    const cost = priced(computeCost(usage, 'anthropic:claude-sonnet-4-6', table));
    // 1000×3 + 500×15 + 20000×0.30 + 3000×3.75 = 3000 + 7500 + 6000 + 11250 = 27750 µ$
    expect(cost.cost_usd).toBe('0.02775');
    expect(cost.breakdown).toEqual({
      input: '0.003',
      output: '0.0075',
      cached_read: '0.006',
      cache_write_5m: '0.01125',
      cache_write_1h: '0',
    });
    expect(cost.prompt_tokens).toBe(24_000);
  });

  it('prices cache writes at the 1-hour rate when told, or split as the provider reported', () => {
    const usage = {
      input_tokens: 1_000,
      output_tokens: 500,
      cached_input_tokens: 20_000,
      cache_creation_input_tokens: 3_000,
    };
    const model = 'anthropic:claude-sonnet-4-6';
    // 3000 × 6 = 18000 instead of 11250
    expect(priced(computeCost(usage, model, table, { cacheWriteTtl: '1h' })).cost_usd).toBe(
      '0.0345',
    );
    // 2000 × 3.75 + 1000 × 6 = 7500 + 6000
    const split = priced(
      computeCost(usage, model, table, { cacheWriteTtl: { oneHourTokens: 1000 } }),
    );
    expect(split.cost_usd).toBe('0.03');
    expect(split.breakdown.cache_write_5m).toBe('0.0075');
    expect(split.breakdown.cache_write_1h).toBe('0.006');
  });

  it('prices OpenAI cached input at the cached rate', () => {
    const usage = { input_tokens: 12_345, output_tokens: 1_011, cached_input_tokens: 6_789 };
    // 12345×1.25 + 1011×10 + 6789×0.125 = 15431.25 + 10110 + 848.625 = 26389.875 µ$
    expect(priced(computeCost(usage, 'openai:gpt-5', table)).cost_usd).toBe('0.026389875');
    // 12345×0.25 + 1011×2 + 6789×0.025 = 3086.25 + 2022 + 169.725 = 5277.975 µ$
    expect(priced(computeCost(usage, 'openai:gpt-5-mini', table)).cost_usd).toBe('0.005277975');
  });

  it('prices Opus 4.7 and Haiku 4.5 from the default table', () => {
    const usage = { input_tokens: 2_000, output_tokens: 1_000, cached_input_tokens: 10_000 };
    // 2000×5 + 1000×25 + 10000×0.5 = 10000 + 25000 + 5000
    expect(priced(computeCost(usage, 'anthropic:claude-opus-4-7', table)).cost_usd).toBe('0.04');
    // 2000×1 + 1000×5 + 10000×0.1 = 2000 + 5000 + 1000
    expect(priced(computeCost(usage, 'anthropic:claude-haiku-4-5', table)).cost_usd).toBe('0.008');
  });

  it('prices local models at an explicit zero through the ollama:* pattern', () => {
    const cost = priced(
      computeCost({ input_tokens: 50_000, output_tokens: 9_000 }, 'ollama:qwen3:8b', table),
    );
    expect(cost.cost_usd).toBe('0');
    expect(cost.price_key).toBe('ollama:*');
  });
});

describe('long-context tiers', () => {
  const model = 'anthropic:claude-sonnet-4-5';

  it('applies the tier to the whole request once the prompt, cache tokens included, exceeds it', () => {
    // input alone (150k) is under 200k; with 40k cache reads and 20k cache writes it is 210k.
    const usage = {
      input_tokens: 150_000,
      output_tokens: 1_000,
      cached_input_tokens: 40_000,
      cache_creation_input_tokens: 20_000,
    };
    const cost = priced(computeCost(usage, model, tiered));
    // 150000×6 + 1000×22.5 + 40000×0.6 + 20000×7.5 = 900000 + 22500 + 24000 + 150000 µ$
    expect(cost.cost_usd).toBe('1.0965');
    expect(cost.long_context_tier).toBe(200_000);
    expect(cost.prompt_tokens).toBe(210_000);
  });

  it('keeps the base rates at exactly the threshold', () => {
    const usage = {
      input_tokens: 150_000,
      output_tokens: 1_000,
      cached_input_tokens: 40_000,
      cache_creation_input_tokens: 10_000,
    };
    const cost = priced(computeCost(usage, model, tiered));
    // 150000×3 + 1000×15 + 40000×0.3 + 10000×3.75 = 450000 + 15000 + 12000 + 37500 µ$
    expect(cost.cost_usd).toBe('0.5145');
    expect(cost.long_context_tier).toBeNull();
  });

  it('picks the highest tier exceeded when there are several', () => {
    const multi = parsePriceTable(`
pricing_version: multi
effective_date: 2026-01-01
source: test
models:
  google:gemini-x:
    input_per_mtok_usd: 1
    output_per_mtok_usd: 2
    long_context:
      - above_input_tokens: 500000
        input_per_mtok_usd: 4
        output_per_mtok_usd: 8
      - above_input_tokens: 100000
        input_per_mtok_usd: 2
        output_per_mtok_usd: 4
`);
    const at = (input: number) =>
      priced(
        computeCost({ input_tokens: input, output_tokens: 1_000_000 }, 'google:gemini-x', multi),
      );
    expect(at(100_000).cost_usd).toBe('2.1'); // 100000×1 + 10^6×2 µ$
    expect(at(100_001).cost_usd).toBe('4.200002'); // 100001×2 + 10^6×4 µ$
    expect(at(600_000).cost_usd).toBe('10.4'); // 600000×4 + 10^6×8 µ$
  });
});

describe('exact decimals', () => {
  it('gives exact results where binary floats drift', () => {
    const floats = parsePriceTable(`
pricing_version: floats
effective_date: 2026-01-01
source: test
models:
  test:tenth:
    input_per_mtok_usd: 0.1
    output_per_mtok_usd: 0.2
`);
    const cost = priced(computeCost({ input_tokens: 3, output_tokens: 0 }, 'test:tenth', floats));
    expect((3 * 0.1) / 1e6).not.toBe(3e-7); // the float answer is off in the last digit
    expect(cost.cost_usd).toBe('0.0000003');
    const sum = priced(computeCost({ input_tokens: 1, output_tokens: 1 }, 'test:tenth', floats));
    expect(0.1 + 0.2).not.toBe(0.3);
    expect(sum.cost_usd).toBe('0.0000003');
  });

  it('keeps every digit of a rate written with more digits than a float holds', () => {
    const precise = parsePriceTable(`
pricing_version: precise
effective_date: 2026-01-01
source: test
models:
  test:precise:
    input_per_mtok_usd: 1.23456789012345678901
    output_per_mtok_usd: "0"
`);
    expect(precise.models['test:precise']?.input_per_mtok_usd).toBe('1.23456789012345678901');
    const cost = priced(
      computeCost({ input_tokens: 1_000_001, output_tokens: 0 }, 'test:precise', precise),
    );
    // 1.23456789012345678901 × 1.000001 = 1.23456789012345678901 + 0.00000123456789012345678901
    expect(cost.cost_usd).toBe('1.23456912469134691246678901');
  });

  it('stays exact at the largest safe token count', () => {
    const cost = priced(
      computeCost(
        { input_tokens: 0, output_tokens: Number.MAX_SAFE_INTEGER },
        'anthropic:claude-sonnet-4-6',
        table,
      ),
    );
    // 9007199254740991 × 15 = 135107988821114865 µ$
    expect(cost.cost_usd).toBe('135107988821.114865');
  });

  it('sums costs exactly', () => {
    expect(sumCosts(['0.1', '0.2', '0.000000000000000001'])).toBe('0.300000000000000001');
    expect(sumCosts([])).toBe('0');
    expect(() => sumCosts(['1e-3'])).toThrow(InvalidUsageError);
  });
});

describe('what cannot be priced is never a silent zero', () => {
  it('reports an unknown model as unpriced with null cost and version', () => {
    const result = computeCost({ input_tokens: 10, output_tokens: 10 }, 'openrouter:x/y', table);
    expect(result).toMatchObject({
      priced: false,
      cost_usd: null,
      pricing_version: null,
      reason: 'unknown_model',
      table_version: table.pricing_version,
    });
  });

  it('reports a usage needing a rate the entry lacks, naming the path', () => {
    const result = computeCost(
      { input_tokens: 10, output_tokens: 10, cache_creation_input_tokens: 5 },
      'openai:gpt-5',
      table,
    );
    expect(result.priced).toBe(false);
    if (result.priced) return;
    expect(result.reason).toBe('missing_rate');
    expect(result.detail).toContain('models["openai:gpt-5"].cache_write_5m_per_mtok_usd');
  });

  it('requireCost throws a typed error for the caller that needs a price', () => {
    expect(() => requireCost({ input_tokens: 1, output_tokens: 1 }, 'acme:unknown', table)).toThrow(
      UnpricedModelError,
    );
    try {
      requireCost({ input_tokens: 1, output_tokens: 1 }, 'acme:unknown', table);
    } catch (error) {
      expect(error).toMatchObject({ model: 'acme:unknown', reason: 'unknown_model' });
    }
    expect(requireCost({ input_tokens: 1, output_tokens: 1 }, 'openai:gpt-5', table).cost_usd).toBe(
      '0.00001125',
    );
  });

  it('rejects counts that are not non-negative integers', () => {
    const model = 'openai:gpt-5';
    expect(() => computeCost({ input_tokens: -1, output_tokens: 0 }, model, table)).toThrow(
      /input_tokens/,
    );
    expect(() => computeCost({ input_tokens: 1.5, output_tokens: 0 }, model, table)).toThrow(
      InvalidUsageError,
    );
    expect(() =>
      computeCost(
        { input_tokens: 1, output_tokens: 0, cache_creation_input_tokens: 10 },
        'anthropic:claude-sonnet-4-6',
        table,
        { cacheWriteTtl: { oneHourTokens: 11 } },
      ),
    ).toThrow(/oneHourTokens/);
  });
});

import { createMemoryLogger, UsageSchema } from '@yourtool/core';
import { describe, expect, it } from 'vitest';
import { buildUsage, defaultPriceTable, InvalidUsageError, parsePriceTable } from '../src/index.js';

const table = defaultPriceTable();

describe('buildUsage', () => {
  it('turns token counts and latency into a priced core Usage', () => {
    const usage = buildUsage(
      { input_tokens: 812, output_tokens: 64 },
      { model: 'anthropic:claude-sonnet-4-6', table, latencyMs: 940.4 },
    );
    expect(usage).toEqual({
      input_tokens: 812,
      output_tokens: 64,
      cached_input_tokens: 0,
      cache_creation_input_tokens: 0,
      cost_usd: '0.003396', // 812×3 + 64×15 = 2436 + 960 µ$
      pricing_version: '2026-11-22',
      latency_ms: 940,
    });
    expect(UsageSchema.parse(usage)).toEqual(usage);
  });

  it('records an unknown model as unpriced (null, null) and warns', () => {
    const logger = createMemoryLogger();
    const usage = buildUsage(
      { input_tokens: 10, output_tokens: 5, estimated: true },
      { model: 'openrouter:qwen/qwen3-coder', table, latencyMs: 12, logger },
    );
    expect(usage.cost_usd).toBeNull();
    expect(usage.pricing_version).toBeNull();
    expect(usage.estimated).toBe(true);
    expect(logger.warnings().map((w) => w.obj)).toEqual([
      {
        event: 'usage_unpriced',
        model: 'openrouter:qwen/qwen3-coder',
        reason: 'unknown_model',
        pricing_version: '2026-11-22',
      },
    ]);
  });

  it('passes the cache write TTL through to the price', () => {
    const usage = buildUsage(
      { input_tokens: 0, output_tokens: 0, cache_creation_input_tokens: 1_000_000 },
      { model: 'anthropic:claude-opus-4-7', table, latencyMs: 1, cacheWriteTtl: '1h' },
    );
    expect(usage.cost_usd).toBe('10');
  });

  it('rejects a negative latency', () => {
    expect(() =>
      buildUsage(
        { input_tokens: 1, output_tokens: 1 },
        { model: 'openai:gpt-5', table, latencyMs: -1 },
      ),
    ).toThrow(InvalidUsageError);
  });

  it('keeps reasoning_tokens and the provider cost beside ours, silent within 1%', () => {
    const logger = createMemoryLogger();
    // 812×3 + 64×15 = 3396 µ$; the provider says 3420 µ$, 0.7% more
    const usage = buildUsage(
      { input_tokens: 812, output_tokens: 64, reasoning_tokens: 40, provider_cost_usd: '0.00342' },
      { model: 'anthropic:claude-sonnet-4-6', table, latencyMs: 1, logger },
    );
    expect(usage).toMatchObject({
      cost_usd: '0.003396',
      provider_cost_usd: '0.00342',
      reasoning_tokens: 40,
    });
    expect(UsageSchema.parse(usage)).toEqual(usage);
    expect(logger.warnings()).toEqual([]);
  });

  it('leaves both fields out when the adapter did not report them', () => {
    const usage = buildUsage(
      { input_tokens: 1, output_tokens: 1 },
      { model: 'openai:gpt-5', table, latencyMs: 1 },
    );
    expect(Object.keys(usage)).not.toContain('reasoning_tokens');
    expect(Object.keys(usage)).not.toContain('provider_cost_usd');
  });

  it('WARNs when the provider cost is more than 1% away from ours, keeping both', () => {
    const logger = createMemoryLogger();
    const usage = buildUsage(
      { input_tokens: 812, output_tokens: 64, provider_cost_usd: '0.0035' },
      { model: 'anthropic:claude-sonnet-4-6', table, latencyMs: 1, logger },
    );
    expect(usage.cost_usd).toBe('0.003396');
    expect(usage.provider_cost_usd).toBe('0.0035');
    expect(logger.warnings().map((w) => w.obj)).toEqual([
      {
        event: 'provider_cost_mismatch',
        model: 'anthropic:claude-sonnet-4-6',
        cost_usd: '0.003396',
        provider_cost_usd: '0.0035',
        pricing_version: '2026-11-22',
      },
    ]);
  });

  it('draws the 1% line exactly, in decimals, on either side of ours', () => {
    // ours: 1,000,000 output tokens of gpt-5 = $10 exactly; 1% is $0.10
    const at = (provider: string) => {
      const logger = createMemoryLogger();
      buildUsage(
        { input_tokens: 0, output_tokens: 1_000_000, provider_cost_usd: provider },
        { model: 'openai:gpt-5', table, latencyMs: 1, logger },
      );
      return logger.warnings().length;
    };
    expect([at('10.1'), at('9.9'), at('10')]).toEqual([0, 0, 0]);
    expect([at('10.100000000000000001'), at('9.899999999999999999')]).toEqual([1, 1]);
  });

  it('treats two zero costs as equal, and any provider cost against our zero as a mismatch', () => {
    const zero = (provider: string) => {
      const logger = createMemoryLogger();
      const usage = buildUsage(
        { input_tokens: 10, output_tokens: 10, provider_cost_usd: provider },
        { model: 'ollama:qwen3:8b', table, latencyMs: 1, logger },
      );
      expect(usage.cost_usd).toBe('0');
      return logger.warnings().map((w) => w.obj.event);
    };
    expect(zero('0')).toEqual([]);
    expect(zero('0.000')).toEqual([]);
    expect(zero('0.000001')).toEqual(['provider_cost_mismatch']);
  });

  it('keeps the provider cost of an unpriced call without comparing, and a null as null', () => {
    const logger = createMemoryLogger();
    const unpriced = buildUsage(
      { input_tokens: 10, output_tokens: 10, provider_cost_usd: '0.5' },
      { model: 'openrouter:qwen/qwen3-coder', table, latencyMs: 1, logger },
    );
    expect(unpriced).toMatchObject({ cost_usd: null, provider_cost_usd: '0.5' });
    expect(logger.warnings().map((w) => w.obj.event)).toEqual(['usage_unpriced']);
    const unknown = buildUsage(
      { input_tokens: 10, output_tokens: 10, provider_cost_usd: null },
      { model: 'openai:gpt-5', table, latencyMs: 1 },
    );
    expect(unknown.provider_cost_usd).toBeNull();
    expect(UsageSchema.parse(unknown)).toEqual(unknown);
  });

  it('leaves out, with a WARN, figures a stored usage could not hold', () => {
    const logger = createMemoryLogger();
    const usage = buildUsage(
      {
        input_tokens: 10,
        output_tokens: 10,
        reasoning_tokens: -1,
        provider_cost_usd: '1.2e-5',
      },
      { model: 'openai:gpt-5', table, latencyMs: 1, logger },
    );
    expect(usage).not.toHaveProperty('reasoning_tokens');
    expect(usage).not.toHaveProperty('provider_cost_usd');
    expect(UsageSchema.parse(usage)).toEqual(usage);
    expect(logger.warnings().map((w) => w.obj)).toEqual([
      expect.objectContaining({ event: 'usage_field_dropped', field: 'reasoning_tokens' }),
      expect.objectContaining({
        event: 'usage_field_dropped',
        field: 'provider_cost_usd',
        value: '1.2e-5',
      }),
    ]);
  });
});

describe('buildUsage with a served model', () => {
  it('prices the model that answered when the table knows it', () => {
    // asked for gpt-5, answered by gpt-5-mini: 1000×0.25 + 100×2 = 450 µ$ (gpt-5 would be 2250)
    const usage = buildUsage(
      { input_tokens: 1_000, output_tokens: 100 },
      { model: 'openai:gpt-5', servedModel: 'openai:gpt-5-mini', table, latencyMs: 1 },
    );
    expect(usage.cost_usd).toBe('0.00045');
  });

  it('prices the requested model when the table does not know the served one', () => {
    const logger = createMemoryLogger();
    const usage = buildUsage(
      { input_tokens: 1_000, output_tokens: 100 },
      {
        model: 'openai:gpt-5',
        servedModel: 'openai:gpt-5-2025-08-07',
        table,
        latencyMs: 1,
        logger,
      },
    );
    expect(usage.cost_usd).toBe('0.00225');
    expect(logger.warnings()).toEqual([]);
  });

  it("prices OpenRouter's auto router as the model it chose", () => {
    const usage = buildUsage(
      { input_tokens: 1_000, output_tokens: 100 },
      {
        model: 'openrouter:openrouter/auto',
        servedModel: 'openrouter:anthropic/claude-4.6-sonnet-20260217',
        table,
        latencyMs: 1,
      },
    );
    expect(usage).toMatchObject({ cost_usd: '0.0045', pricing_version: '2026-11-22' });
  });

  it('names both models in the WARN when neither has a price', () => {
    const logger = createMemoryLogger();
    const usage = buildUsage(
      { input_tokens: 1, output_tokens: 1 },
      {
        model: 'openrouter:openrouter/auto',
        servedModel: 'openrouter:someone/new-model',
        table,
        latencyMs: 1,
        logger,
      },
    );
    expect(usage.cost_usd).toBeNull();
    expect(logger.warnings().map((w) => w.obj)).toEqual([
      {
        event: 'usage_unpriced',
        model: 'openrouter:openrouter/auto',
        served_model: 'openrouter:someone/new-model',
        reason: 'unknown_model',
        pricing_version: '2026-11-22',
      },
    ]);
  });

  it('reports a missing rate of the served model rather than falling back to a guess', () => {
    const own = parsePriceTable(`
pricing_version: t
effective_date: 2026-11-25
source: test
models:
  a:big: { input_per_mtok_usd: 1, output_per_mtok_usd: 1, cached_read_per_mtok_usd: 0.1 }
  a:small: { input_per_mtok_usd: 1, output_per_mtok_usd: 1 }
`);
    const logger = createMemoryLogger();
    const usage = buildUsage(
      { input_tokens: 1, output_tokens: 1, cached_input_tokens: 5 },
      { model: 'a:big', servedModel: 'a:small', table: own, latencyMs: 1, logger },
    );
    expect(usage.cost_usd).toBeNull();
    expect(logger.warnings()[0]?.obj).toMatchObject({ model: 'a:small', reason: 'missing_rate' });
  });

  it('compares the provider cost with the cost of the served model', () => {
    const logger = createMemoryLogger();
    buildUsage(
      { input_tokens: 1_000, output_tokens: 100, provider_cost_usd: '0.0045' },
      {
        model: 'openrouter:openrouter/auto',
        servedModel: 'openrouter:anthropic/claude-4.6-sonnet-20260217',
        table,
        latencyMs: 1,
        logger,
      },
    );
    expect(logger.warnings()).toEqual([]);
  });
});

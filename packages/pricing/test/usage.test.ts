import { createMemoryLogger, UsageSchema } from '@yourtool/core';
import { describe, expect, it } from 'vitest';
import { buildUsage, defaultPriceTable, InvalidUsageError } from '../src/index.js';

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
      { model: 'openrouter:deepseek/deepseek-v3', table, latencyMs: 12, logger },
    );
    expect(usage.cost_usd).toBeNull();
    expect(usage.pricing_version).toBeNull();
    expect(usage.estimated).toBe(true);
    expect(logger.warnings().map((w) => w.obj)).toEqual([
      {
        event: 'usage_unpriced',
        model: 'openrouter:deepseek/deepseek-v3',
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
});

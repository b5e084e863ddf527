import { describe, expect, it } from 'vitest';
import { computeCost, defaultPriceTable, findModelPrice, modelToPrice } from '../src/index.js';

const table = defaultPriceTable();
const usage = { input_tokens: 100_000, output_tokens: 100_000 };

/** 100k input and 100k output tokens: a tenth of the sum of the two rates per million. */
const OPENROUTER_MODELS: Record<string, string> = {
  'openrouter:anthropic/claude-opus-4.7': '3',
  'openrouter:anthropic/claude-sonnet-4.6': '1.8',
  'openrouter:anthropic/claude-haiku-4.5': '0.6',
  'openrouter:openai/gpt-5': '1.125',
  'openrouter:openai/gpt-5-mini': '0.225',
  'openrouter:openai/gpt-4.1': '1',
  'openrouter:google/gemini-2.5-pro': '1.125',
  'openrouter:google/gemini-2.5-flash': '0.28',
  'openrouter:deepseek/deepseek-chat': '0.137',
  'openrouter:deepseek/deepseek-v3': '0.137',
};

describe('OpenRouter models in the default table', () => {
  it('prices the models of the examples and the adapter table, each with a source', () => {
    for (const [model, expected] of Object.entries(OPENROUTER_MODELS)) {
      const cost = computeCost(usage, model, table);
      expect(cost.priced, model).toBe(true);
      expect(cost.cost_usd, model).toBe(expected);
      expect(cost.pricing_version).toBe('2026-11-22');
      expect(findModelPrice(table, model)?.price.source, model).toMatch(
        /^https:\/\/openrouter\.ai\//,
      );
    }
  });

  it('prices the names OpenRouter answers with (permaslugs) like their models', () => {
    const pairs: Array<[string, string]> = [
      ['openrouter:anthropic/claude-4.6-sonnet-20260217', 'openrouter:anthropic/claude-sonnet-4.6'],
      ['openrouter:anthropic/claude-4.7-opus-20260416', 'openrouter:anthropic/claude-opus-4.7'],
      ['openrouter:anthropic/claude-4.5-haiku-20251001', 'openrouter:anthropic/claude-haiku-4.5'],
      ['openrouter:deepseek/deepseek-chat-v3', 'openrouter:deepseek/deepseek-chat'],
    ];
    const withCache = { ...usage, cached_input_tokens: 1_000 };
    for (const [served, model] of pairs) {
      const a = computeCost(withCache, served, table);
      const b = computeCost(withCache, model, table);
      expect(a.priced && b.priced, served).toBe(true);
      expect(a.cost_usd, served).toBe(b.cost_usd);
    }
  });

  it('prices Claude cache reads and writes through OpenRouter at Anthropic rates', () => {
    const cost = computeCost(
      {
        input_tokens: 0,
        output_tokens: 0,
        cached_input_tokens: 1_000_000,
        cache_creation_input_tokens: 1_000_000,
      },
      'openrouter:anthropic/claude-sonnet-4.6',
      table,
    );
    expect(cost.cost_usd).toBe('4.05'); // 0.30 + 3.75
  });

  it('applies the Gemini 2.5 Pro long-context rates above 200k prompt tokens', () => {
    const cost = computeCost(
      { input_tokens: 200_001, output_tokens: 0 },
      'openrouter:google/gemini-2.5-pro',
      table,
    );
    expect(cost).toMatchObject({ priced: true, long_context_tier: 200_000, cost_usd: '0.5000025' });
  });

  it('has no price for the auto router itself: it is priced as the model it chose', () => {
    expect(computeCost(usage, 'openrouter:openrouter/auto', table).priced).toBe(false);
    expect(
      modelToPrice(
        table,
        'openrouter:openrouter/auto',
        'openrouter:anthropic/claude-4.6-sonnet-20260217',
      ),
    ).toBe('openrouter:anthropic/claude-4.6-sonnet-20260217');
    expect(modelToPrice(table, 'openrouter:openrouter/auto', 'openrouter:someone/else')).toBe(
      'openrouter:openrouter/auto',
    );
    expect(modelToPrice(table, 'openrouter:openai/gpt-5', null)).toBe('openrouter:openai/gpt-5');
  });

  it('leaves models without a single published price unpriced', () => {
    for (const model of [
      'openrouter:qwen/qwen3-coder',
      'openrouter:meta-llama/llama-3.3-70b-instruct',
    ]) {
      expect(computeCost(usage, model, table).priced, model).toBe(false);
    }
  });
});

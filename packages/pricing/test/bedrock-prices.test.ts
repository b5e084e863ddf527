import { describe, expect, it } from 'vitest';
import { computeCost, defaultPriceTable, findModelPrice } from '../src/index.js';

const table = defaultPriceTable();
/** 1M input and 1M output tokens: the sum of the two rates per million. */
const usage = { input_tokens: 1_000_000, output_tokens: 1_000_000 };

const SONNET_4_5 = 'anthropic.claude-sonnet-4-5-20250929-v1:0';
const HAIKU_4_5 = 'anthropic.claude-haiku-4-5-20251001-v1:0';
const OPUS_4_5 = 'anthropic.claude-opus-4-5-20251101-v1:0';
const OPUS_4_6 = 'anthropic.claude-opus-4-6-v1';
const SONNET_4_6 = 'anthropic.claude-sonnet-4-6';
const OPUS_4_1 = 'anthropic.claude-opus-4-1-20250805-v1:0';
const SONNET_4 = 'anthropic.claude-sonnet-4-20250514-v1:0';

/** Bedrock id → input + output per million: global at Anthropic's list, the rest 10% over it. */
const EXPECTED: Array<[string, string]> = [
  [`global.${SONNET_4_5}`, '18'],
  [SONNET_4_5, '19.8'],
  [`us.${SONNET_4_5}`, '19.8'],
  [`eu.${SONNET_4_5}`, '19.8'],
  [`jp.${SONNET_4_5}`, '19.8'],
  [`global.${SONNET_4_6}`, '18'],
  [`us.${SONNET_4_6}`, '19.8'],
  [`global.${HAIKU_4_5}`, '6'],
  [HAIKU_4_5, '6.6'],
  [`us.${HAIKU_4_5}`, '6.6'],
  [`eu.${HAIKU_4_5}`, '6.6'],
  [`global.${OPUS_4_5}`, '30'],
  [`us.${OPUS_4_5}`, '33'],
  [`global.${OPUS_4_6}`, '30'],
  [`apac.${OPUS_4_6}`, '33'],
  // older than Sonnet 4.5: one price, no premium, no global profile
  [`us.${OPUS_4_1}`, '90'],
  [OPUS_4_1, '90'],
  [SONNET_4, '18'],
  [`us.${SONNET_4}`, '18'],
  [`apac.${SONNET_4}`, '18'],
];

describe('Claude on Bedrock in the default table', () => {
  it('prices each documented id by the kind of endpoint it names, each with a source', () => {
    for (const [id, expected] of EXPECTED) {
      const model = `bedrock:${id}`;
      const cost = computeCost(usage, model, table);
      expect(cost.priced, model).toBe(true);
      expect(cost.cost_usd, model).toBe(expected);
      expect(findModelPrice(table, model)?.price.source, model).toMatch(/^https:\/\//);
    }
  });

  it('bills a geographic profile 10% over the global one for every rate it defines', () => {
    const cached = {
      input_tokens: 1_000_000,
      output_tokens: 1_000_000,
      cached_input_tokens: 1_000_000,
      cache_creation_input_tokens: 1_000_000,
    };
    for (const id of [SONNET_4_5, HAIKU_4_5, OPUS_4_5]) {
      const global = computeCost(cached, `bedrock:global.${id}`, table);
      const geographic = computeCost(cached, `bedrock:us.${id}`, table);
      expect(global.priced && geographic.priced, id).toBe(true);
      expect(Number(geographic.cost_usd), id).toBeCloseTo(Number(global.cost_usd) * 1.1, 9);
    }
    // Sonnet 4.5 global: 3 input + 15 output + 0.30 read + 3.75 five-minute write
    expect(computeCost(cached, `bedrock:global.${SONNET_4_5}`, table).cost_usd).toBe('22.05');
  });

  it('leaves 1-hour cache writes, ARNs and other families unpriced rather than guessed', () => {
    const oneHour = computeCost(
      { input_tokens: 0, output_tokens: 0, cache_creation_input_tokens: 1_000 },
      `bedrock:global.${SONNET_4_5}`,
      table,
      { cacheWriteTtl: '1h' },
    );
    expect(oneHour).toMatchObject({ priced: false, reason: 'missing_rate' });
    for (const model of [
      'bedrock:arn:aws:bedrock:us-east-1:123456789012:application-inference-profile/a1b2c3',
      'bedrock:us.meta.llama3-3-70b-instruct-v1:0',
      'bedrock:us.amazon.nova-pro-v1:0',
      'bedrock:openai.gpt-oss-120b-1:0',
      // a profile the table does not list stays unpriced (no prefix is stripped or guessed)
      `bedrock:au.${SONNET_4_5}`,
      // Sonnet 4's global profile: no source gives its figure
      `bedrock:global.${SONNET_4}`,
    ]) {
      expect(computeCost(usage, model, table).priced, model).toBe(false);
    }
  });
});

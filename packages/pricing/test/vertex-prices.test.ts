import { describe, expect, it } from 'vitest';
import {
  computeCost,
  defaultPriceTable,
  findModelPrice,
  mergePriceTables,
  parsePriceOverrides,
} from '../src/index.js';

const table = defaultPriceTable();
/** 1M input and 1M output tokens: the sum of the two rates per million. */
const usage = { input_tokens: 1_000_000, output_tokens: 1_000_000 };

/** Vertex id → input + output per million at the global endpoint (Anthropic's list price). */
const EXPECTED: Array<[string, string]> = [
  ['claude-sonnet-4-5@20250929', '18'],
  ['claude-haiku-4-5@20251001', '6'],
  ['claude-opus-4-5@20251101', '30'],
];

describe('Claude on Vertex AI in the default table', () => {
  it('prices each id as Vertex spells it, with a source', () => {
    for (const [name, expected] of EXPECTED) {
      const model = `vertex-anthropic:${name}`;
      const cost = computeCost(usage, model, table);
      expect(cost.priced, model).toBe(true);
      expect(cost.cost_usd, model).toBe(expected);
      expect(findModelPrice(table, model)?.price.source, model).toMatch(
        /^https:\/\/platform\.claude\.com\/docs\/en\/build-with-claude\/claude-on-vertex-ai/,
      );
    }
  });

  it('charges what Claude on the Anthropic API charges for the same model', () => {
    const cached = {
      input_tokens: 1_000_000,
      output_tokens: 1_000_000,
      cached_input_tokens: 1_000_000,
      cache_creation_input_tokens: 1_000_000,
    };
    const vertex = computeCost(cached, 'vertex-anthropic:claude-haiku-4-5@20251001', table);
    const anthropic = computeCost(cached, 'anthropic:claude-haiku-4-5', table);
    expect(vertex.priced).toBe(true);
    expect(vertex.cost_usd).toBe(anthropic.cost_usd);
  });

  it('leaves an id the table does not list unpriced instead of guessing from its name', () => {
    const cost = computeCost(usage, 'vertex-anthropic:claude-sonnet-4-5@20990101', table);
    expect(cost.priced).toBe(false);
  });

  it('takes a regional endpoint price from an override layer, as the README says', () => {
    const overrides = parsePriceOverrides(`pricing_version: us-east5
models:
  "vertex-anthropic:claude-sonnet-4-5@20250929":
    input_per_mtok_usd: 3.30
    output_per_mtok_usd: 16.50
    source: https://platform.claude.com/docs/en/build-with-claude/claude-on-vertex-ai
`);
    const regional = mergePriceTables(table, overrides);
    const cost = computeCost(usage, 'vertex-anthropic:claude-sonnet-4-5@20250929', regional);
    expect(cost.cost_usd).toBe('19.8');
    expect(regional.pricing_version).toBe(`${table.pricing_version}+us-east5`);
  });
});

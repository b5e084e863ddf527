import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  checkModelKey,
  DEFAULT_PRICE_TABLE_YAML,
  defaultPriceTable,
  findModelPrice,
  mergePriceTables,
  PriceTableError,
  parsePriceOverrides,
  parsePriceTable,
  readPriceOverridesFile,
  readPriceTableFile,
  validatePriceTable,
} from '../src/index.js';

function issuesOf(fn: () => unknown): string[] {
  try {
    fn();
  } catch (error) {
    if (error instanceof PriceTableError) return error.issues.map((i) => `${i.path}: ${i.message}`);
    throw error;
  }
  throw new Error('expected a PriceTableError');
}

describe('the default table', () => {
  const table = defaultPriceTable();

  it('prices every model of the contract registry example, each with a source', () => {
    for (const model of [
      'anthropic:claude-sonnet-4-6',
      'anthropic:claude-opus-4-7',
      'anthropic:claude-haiku-4-5',
      'openai:gpt-5',
      'openai:gpt-5-mini',
    ]) {
      const entry = table.models[model];
      expect(entry, model).toBeDefined();
      expect(entry?.source, model).toMatch(/^https:\/\//);
    }
    expect(table.pricing_version).toBe('2026-11-22');
    expect(table.effective_date).toBe('2026-11-22');
  });

  it('keeps rates as the exact strings written', () => {
    expect(table.models['anthropic:claude-sonnet-4-6']).toMatchObject({
      input_per_mtok_usd: '3.00',
      output_per_mtok_usd: '15.00',
      cached_read_per_mtok_usd: '0.30',
      cache_write_5m_per_mtok_usd: '3.75',
      cache_write_1h_per_mtok_usd: '6.00',
      long_context: [],
    });
    expect(table.models['openai:gpt-5']?.cached_read_per_mtok_usd).toBe('0.125');
  });

  it('is frozen, so no caller can change prices under another', () => {
    expect(Object.isFrozen(table)).toBe(true);
    expect(Object.isFrozen(table.models['openai:gpt-5'])).toBe(true);
    expect(defaultPriceTable()).toBe(table);
  });

  it('is the YAML exported alongside it', () => {
    expect(parsePriceTable(DEFAULT_PRICE_TABLE_YAML)).toEqual(table);
  });
});

describe('parsing and validation', () => {
  it('accepts the shape of canonical-format §6.4, reading cache_write_per_mtok_usd as the 5-minute rate', () => {
    const table = parsePriceTable(`
pricing_version: "2026-05-08"
effective_date: 2026-05-08
source: canonical-format §6.4
models:
  anthropic:claude-sonnet-4-6:
    input_per_mtok_usd: 3.00
    output_per_mtok_usd: 15.00
    cached_read_per_mtok_usd: 0.30
    cache_write_per_mtok_usd: 3.75
  openai:gpt-5:
    input_per_mtok_usd: 2.50
    output_per_mtok_usd: 10.00
  ollama:llama-3.3-70b:
    input_per_mtok_usd: 0.0
    output_per_mtok_usd: 0.0
`);
    expect(table.models['anthropic:claude-sonnet-4-6']?.cache_write_5m_per_mtok_usd).toBe('3.75');
    expect(table.models['ollama:llama-3.3-70b']?.input_per_mtok_usd).toBe('0.0');
  });

  it('names every offending path', () => {
    const issues = issuesOf(() =>
      parsePriceTable(`
pricing_version: v1
effective_date: 2026-13-45
source: test
models:
  openai:gpt-5:
    input_per_mtok_usd: -1
    output_per_mtok_usd: abc
    inptu_per_mtok_usd: 1
  not a model id:
    input_per_mtok_usd: 1
    output_per_mtok_usd: 1
`),
    );
    expect(issues).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^effective_date: /),
        expect.stringMatching(
          /^models\["openai:gpt-5"\]\.input_per_mtok_usd: must be a non-negative decimal/,
        ),
        expect.stringMatching(/^models\["openai:gpt-5"\]\.output_per_mtok_usd: /),
        expect.stringMatching(/^models\["openai:gpt-5"\]: .*inptu_per_mtok_usd/),
      ]),
    );
  });

  it('reports a missing rate and a bad model key with their paths', () => {
    expect(
      issuesOf(() =>
        validatePriceTable({
          pricing_version: 'v',
          effective_date: '2026-01-01',
          source: 's',
          models: { 'openai:gpt-5': { input_per_mtok_usd: 1 } },
        }),
      ),
    ).toEqual([expect.stringMatching(/^models\["openai:gpt-5"\]\.output_per_mtok_usd: required/)]);
    expect(
      issuesOf(() =>
        validatePriceTable({
          pricing_version: 'v',
          effective_date: '2026-01-01',
          source: 's',
          models: { gpt5: { input_per_mtok_usd: 1, output_per_mtok_usd: 1 } },
        }),
      ),
    ).toEqual([expect.stringMatching(/^models\["gpt5"\]: not a canonical model id/)]);
  });

  it('requires a long-context tier to carry every rate its base has', () => {
    const issues = issuesOf(() =>
      parsePriceTable(`
pricing_version: v
effective_date: 2026-01-01
source: s
models:
  anthropic:claude-x:
    input_per_mtok_usd: 3
    output_per_mtok_usd: 15
    cached_read_per_mtok_usd: 0.3
    long_context:
      above_input_tokens: 200000
      input_per_mtok_usd: 6
      output_per_mtok_usd: 22.5
`),
    );
    expect(issues).toEqual([
      expect.stringMatching(
        /^models\["anthropic:claude-x"\]\.long_context\.cached_read_per_mtok_usd: required/,
      ),
    ]);
  });

  it('refuses duplicate model entries and malformed YAML', () => {
    expect(
      issuesOf(() =>
        parsePriceTable(
          'pricing_version: v\neffective_date: 2026-01-01\nsource: s\nmodels:\n  a:b: {input_per_mtok_usd: 1, output_per_mtok_usd: 1}\n  a:b: {input_per_mtok_usd: 2, output_per_mtok_usd: 2}\n',
        ),
      )[0],
    ).toMatch(/unique/i);
    expect(() => parsePriceTable('models: [')).toThrow(PriceTableError);
  });

  it('checks model keys and patterns', () => {
    expect(checkModelKey('ollama:*')).toBeUndefined();
    expect(checkModelKey('openai:gpt-5*')).toBeUndefined();
    expect(checkModelKey('ollama:qwen3:8b')).toBeUndefined();
    expect(checkModelKey('*')).toMatch(/provider/);
    expect(checkModelKey('ollama:*:x')).toMatch(/at the end/);
    expect(checkModelKey('Open AI:gpt')).toMatch(/provider/);
  });
});

describe('finding a model price', () => {
  const table = parsePriceTable(`
pricing_version: v
effective_date: 2026-01-01
source: s
models:
  "ollama:*": { input_per_mtok_usd: 0, output_per_mtok_usd: 0 }
  "ollama:llama*": { input_per_mtok_usd: 1, output_per_mtok_usd: 1 }
  ollama:llama-3.3-70b: { input_per_mtok_usd: 2, output_per_mtok_usd: 2 }
`);

  it('prefers the exact entry, then the longest matching pattern', () => {
    expect(findModelPrice(table, 'ollama:llama-3.3-70b')?.key).toBe('ollama:llama-3.3-70b');
    expect(findModelPrice(table, 'ollama:llama-4')?.key).toBe('ollama:llama*');
    expect(findModelPrice(table, 'ollama:qwen3:8b')?.key).toBe('ollama:*');
    expect(findModelPrice(table, 'openai:gpt-5')).toBeUndefined();
    expect(findModelPrice(table, 'ollama:')).toBeUndefined();
  });
});

describe('overrides', () => {
  const base = defaultPriceTable();

  it('merges an override file over the defaults, replacing entries whole', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pricing-'));
    const file = join(dir, 'prices.yaml');
    writeFileSync(
      file,
      `pricing_version: acme-2026-12
source: Acme's negotiated rates
models:
  openai:gpt-5:
    input_per_mtok_usd: 1.00
    output_per_mtok_usd: 8.00
  anthropic:claude-haiku-4-5: null
  acme:internal-llm:
    input_per_mtok_usd: 0.05
    output_per_mtok_usd: 0.10
`,
    );
    const merged = mergePriceTables(base, await readPriceOverridesFile(file));
    expect(merged.pricing_version).toBe('2026-11-22+acme-2026-12');
    expect(merged.models['openai:gpt-5']).toEqual({
      input_per_mtok_usd: '1.00',
      output_per_mtok_usd: '8.00',
      long_context: [],
    });
    expect(merged.models['anthropic:claude-haiku-4-5']).toBeUndefined();
    expect(merged.models['acme:internal-llm']?.output_per_mtok_usd).toBe('0.10');
    expect(merged.models['anthropic:claude-sonnet-4-6']).toEqual(
      base.models['anthropic:claude-sonnet-4-6'],
    );
    expect(merged.source).toContain("Acme's negotiated rates");
    expect(base.models['openai:gpt-5']?.input_per_mtok_usd).toBe('1.25');
  });

  it('requires an override layer to have its own version, and validates it', () => {
    expect(() => parsePriceOverrides('models: {}')).toThrow(/pricing_version/);
    expect(() =>
      parsePriceOverrides(
        'pricing_version: x\nmodels:\n  openai:gpt-5:\n    input_per_mtok_usd: 1\n',
        { origin: 'overrides.yaml' },
      ),
    ).toThrow(/overrides\.yaml.*models\["openai:gpt-5"\]\.output_per_mtok_usd/);
  });

  it('reads a full table from a file, naming the file in errors', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pricing-'));
    const good = join(dir, 'good.yaml');
    writeFileSync(good, DEFAULT_PRICE_TABLE_YAML);
    expect((await readPriceTableFile(good)).pricing_version).toBe('2026-11-22');
    const bad = join(dir, 'bad.yaml');
    writeFileSync(bad, 'pricing_version: v\n');
    await expect(readPriceTableFile(bad)).rejects.toThrow(bad);
  });
});

describe('YAML aliases', () => {
  /** A "billion laughs" price table: each level's list holds nine aliases of the level before. */
  function aliasBomb(levels: number): string {
    const lines = ['pricing_version: v', 'effective_date: 2026-01-01', 'source: s'];
    lines.push('l0: &l0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]');
    for (let i = 1; i < levels; i++) {
      lines.push(`l${i}: &l${i} [${Array.from({ length: 9 }, () => `*l${i - 1}`).join(', ')}]`);
    }
    lines.push(`models: *l${levels - 1}`);
    return `${lines.join('\n')}\n`;
  }

  it('refuses an alias bomb file with a PriceTableError naming the file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pricing-'));
    const file = join(dir, 'prices.yaml');
    // 9^10 (about 3.5 billion) strings once expanded
    writeFileSync(file, aliasBomb(10));
    const error = await readPriceTableFile(file).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(PriceTableError);
    const typed = error as PriceTableError;
    expect(typed.code).toBe('invalid_price_table');
    expect(typed.origin).toBe(file);
    expect(typed.message).toContain(file);
    expect(typed.message).toMatch(/alias/i);
    expect(typed.cause).toBeInstanceOf(Error);
    // the same for an override layer
    const overrides = join(dir, 'overrides.yaml');
    writeFileSync(overrides, aliasBomb(10));
    await expect(readPriceOverridesFile(overrides)).rejects.toThrow(PriceTableError);
    await expect(readPriceOverridesFile(overrides)).rejects.toThrow(overrides);
  });

  it('still reads a table that shares a price entry through an anchor', () => {
    const table = parsePriceTable(`
pricing_version: v
effective_date: 2026-01-01
source: s
models:
  openai:gpt-5: &shared { input_per_mtok_usd: 1.25, output_per_mtok_usd: 10.00 }
  openai:gpt-5-2026: *shared
`);
    expect(table.models['openai:gpt-5-2026']).toEqual(table.models['openai:gpt-5']);
    expect(table.models['openai:gpt-5-2026']?.output_per_mtok_usd).toBe('10.00');
  });
});

import { readFile } from 'node:fs/promises';
import { isScalar, parseDocument, visit } from 'yaml';
import { PriceTableError } from './errors.js';
import type { PriceOverrides, PriceTable } from './table.js';
import {
  type PriceTableSourceOptions,
  validatePriceOverrides,
  validatePriceTable,
} from './validate-table.js';

// Price tables and override layers written in YAML, from text or a file: rates keep the digits
// written, and alias expansion is bounded.

/** Keys whose numeric YAML scalars are kept as written, so no rate passes through a float. */
function keepsSourceText(key: unknown): boolean {
  return typeof key === 'string' && (key.endsWith('_usd') || key === 'pricing_version');
}

/**
 * How much alias expansion a price table may ask for: the `yaml` library's `maxAliasCount`
 * (each alias resolution counts the aliases inside what it copies). A hand-written table that
 * shares a few price entries through anchors stays far below it; a "billion laughs" document,
 * whose aliases multiply one another, exceeds it after a few levels instead of expanding to
 * gigabytes. See docs/decisions/0064.
 */
export const MAX_PRICE_TABLE_ALIAS_COUNT = 100;

/**
 * Parses YAML keeping every rate exactly as written: `0.30` stays the decimal string `"0.30"`
 * rather than the float 0.3, so figures with more than 15 significant digits survive intact.
 * Alias expansion is bounded ({@link MAX_PRICE_TABLE_ALIAS_COUNT}); a document past the bound
 * is a {@link PriceTableError} naming the origin, never the `yaml` library's `ReferenceError`.
 */
function parseYaml(text: string, origin: string | undefined): unknown {
  const doc = parseDocument(text, { uniqueKeys: true, prettyErrors: true });
  if (doc.errors.length > 0) {
    throw new PriceTableError(
      doc.errors.map((error) => ({ path: '$', message: error.message })),
      origin,
    );
  }
  visit(doc, {
    Pair(_, pair) {
      if (!isScalar(pair.key) || !isScalar(pair.value)) return;
      if (!keepsSourceText(pair.key.value)) return;
      const scalar = pair.value;
      if (typeof scalar.value === 'number' && typeof scalar.source === 'string') {
        scalar.value = scalar.source;
      }
    },
  });
  try {
    return doc.toJS({ maxAliasCount: MAX_PRICE_TABLE_ALIAS_COUNT });
  } catch (cause) {
    // The yaml library throws a ReferenceError when the aliases expand past the bound.
    const detail = cause instanceof Error ? cause.message : String(cause);
    const message = `cannot be expanded to data (aliases may expand at most ${MAX_PRICE_TABLE_ALIAS_COUNT} times): ${detail}`;
    throw new PriceTableError([{ path: '$', message }], origin, { cause });
  }
}

/**
 * Parses and validates a price table written in YAML (see the package README for the format).
 * Rates keep the exact digits written. Throws {@link PriceTableError} naming every offending
 * path, e.g. `models["openai:gpt-5"].input_per_mtok_usd`.
 */
export function parsePriceTable(yaml: string, options: PriceTableSourceOptions = {}): PriceTable {
  return validatePriceTable(parseYaml(yaml, options.origin), options);
}

/** Reads and validates a YAML price table file. */
export async function readPriceTableFile(path: string): Promise<PriceTable> {
  return parsePriceTable(await readFile(path, 'utf8'), { origin: path });
}

/** Parses and validates an override layer written in YAML. */
export function parsePriceOverrides(
  yaml: string,
  options: PriceTableSourceOptions = {},
): PriceOverrides {
  return validatePriceOverrides(parseYaml(yaml, options.origin), options);
}

/** Reads and validates a YAML override file. */
export async function readPriceOverridesFile(path: string): Promise<PriceOverrides> {
  return parsePriceOverrides(await readFile(path, 'utf8'), { origin: path });
}

/**
 * @yourtool/pricing: versioned price tables and exact local cost computation for the canonical
 * format. Costs are decimal strings computed without binary floats, always paired with the
 * `pricing_version` that produced them; a model without a price is reported, never priced at 0.
 *
 * @packageDocumentation
 */

export * from './cost.js';
export * from './default-table.js';
export * from './errors.js';
export * from './model-to-price.js';
export * from './read-table.js';
export * from './reconcile.js';
export * from './reprice.js';
export * from './table.js';
export * from './usage.js';
export * from './validate-table.js';

import { findModelPrice, type PriceTable } from './table.js';

/**
 * Which model a call is priced as: the model that answered (`servedModel`, a canonical id such
 * as `openrouter:anthropic/claude-4.6-sonnet-20260217`) when `table` has a price for it, else
 * the requested `model`. A router (OpenRouter's `openrouter/auto`), an alias or a deployment may
 * answer with another model than the one asked for, and the bill follows the one that answered
 * (decision 0136).
 */
export function modelToPrice(
  table: PriceTable,
  model: string,
  servedModel?: string | null,
): string {
  if (servedModel && servedModel !== model && findModelPrice(table, servedModel) !== undefined) {
    return servedModel;
  }
  return model;
}

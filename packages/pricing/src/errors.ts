import { YourtoolError } from '@yourtool/core';

/** One problem in a price table: where (e.g. `models["openai:gpt-5"].input_per_mtok_usd`) and what. */
export interface PriceTableIssue {
  path: string;
  message: string;
}

/**
 * A price table (or override file) is malformed. `issues` names every offending path, so a
 * typo in one rate is reported together with all others.
 */
export class PriceTableError extends YourtoolError {
  /** Every problem found. */
  readonly issues: PriceTableIssue[];
  /** Where the table came from (a file path, `"default table"`, ...), when known. */
  readonly origin: string | undefined;

  constructor(issues: PriceTableIssue[], origin?: string, options?: { cause?: unknown }) {
    const where = origin ? ` (${origin})` : '';
    super(
      'invalid_price_table',
      `invalid price table${where}: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`,
      options,
    );
    this.issues = issues;
    this.origin = origin;
  }
}

/** Why a usage could not be priced. */
export type UnpricedReason =
  /** The table has no entry (exact or pattern) for the model. */
  | 'unknown_model'
  /** The entry exists but lacks a rate this usage needs (e.g. no 1-hour cache write rate). */
  | 'missing_rate';

/**
 * Thrown by {@link requireCost} when a usage cannot be priced. Code that can live with an
 * unpriced usage calls `computeCost` and handles `priced: false` instead.
 */
export class UnpricedModelError extends YourtoolError {
  /** The canonical model id that could not be priced. */
  readonly model: string;
  /** Why. */
  readonly reason: UnpricedReason;
  /** The `pricing_version` of the table consulted. */
  readonly tableVersion: string;

  constructor(model: string, reason: UnpricedReason, tableVersion: string, detail: string) {
    super('unpriced_model', `cannot price ${model} under pricing ${tableVersion}: ${detail}`);
    this.model = model;
    this.reason = reason;
    this.tableVersion = tableVersion;
  }
}

/** A token usage handed to the cost functions is not a set of non-negative integer counts. */
export class InvalidUsageError extends YourtoolError {
  /** The offending field, e.g. `cached_input_tokens`. */
  readonly field: string;

  constructor(field: string, message: string) {
    super('invalid_usage', `${field}: ${message}`);
    this.field = field;
  }
}

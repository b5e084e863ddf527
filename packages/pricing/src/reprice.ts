import {
  type CorruptRowError,
  type Logger,
  type SessionStore,
  silentLogger,
  type Usage,
} from '@yourtool/core';
import { type CostOptions, computeCost, sumCosts } from './cost.js';
import type { UnpricedReason } from './errors.js';
import { modelToPrice } from './model-to-price.js';
import type { PriceTable } from './table.js';

/** What repricing needs from a store: core's `SessionStore` iteration and usage update. */
export type RepriceableStore = Pick<SessionStore, 'iterateMessages' | 'updateMessageUsage'>;

/** Options of {@link repriceMessages}. */
export interface RepriceOptions extends CostOptions {
  /** The prices to apply. Its `pricing_version` is written on every repriced usage. */
  table: PriceTable;
  /** Only this session's messages; default every session. */
  sessionId?: string;
  /** Compute and report, write nothing. */
  dryRun?: boolean;
  /** Messages read per batch from the store. */
  batchSize?: number;
  /** Stops between messages. Rows already updated stay updated (each update is atomic). */
  signal?: AbortSignal;
  /**
   * A message whose model `table` cannot price: `'keep'` (default) leaves its stored cost
   * untouched and reports it; `'clear'` records it as unpriced (`cost_usd: null`,
   * `pricing_version: null`).
   */
  whenUnpriced?: 'keep' | 'clear';
  /** Receives a WARN per unreadable row and per unpriced message. */
  logger?: Logger;
}

/** A message that could not be priced under the new table. */
export interface UnpricedMessage {
  message_id: string;
  session_id: string;
  model: string;
  reason: UnpricedReason;
  detail: string;
}

/** What {@link repriceMessages} did (or, in a dry run, would do). */
export interface RepriceReport {
  /** The version applied. */
  pricing_version: string;
  dry_run: boolean;
  /** Assistant messages read. */
  scanned: number;
  /** Messages whose usage was (or would be) rewritten. */
  repriced: number;
  /** Messages already carrying this cost and version. */
  unchanged: number;
  /** Messages without usage or without a model: nothing to price. */
  without_usage: number;
  /** Messages the table cannot price. */
  unpriced: UnpricedMessage[];
  /** Rows the store could not read (skipped, untouched). */
  corrupt: CorruptRowError[];
  /** Total of the previous costs of the messages priced under the new table. */
  cost_before_usd: string;
  /** Total of their new costs. */
  cost_after_usd: string;
}

/**
 * Recomputes the cost of stored assistant messages under another price table, through the
 * store's iteration API: for each message with a `usage` and a `model`, the cost is recomputed
 * from its token counts (as `metadata.served_model` when the table knows it, else as `model`,
 * like `buildUsage`) and `metadata.usage` is replaced via `updateMessageUsage` (which
 * changes nothing else in the row). Messages already at the new cost and version are left
 * alone, so running it twice is harmless.
 */
export async function repriceMessages(
  store: RepriceableStore,
  options: RepriceOptions,
): Promise<RepriceReport> {
  const logger = options.logger ?? silentLogger;
  const { table } = options;
  const report: RepriceReport = {
    pricing_version: table.pricing_version,
    dry_run: options.dryRun === true,
    scanned: 0,
    repriced: 0,
    unchanged: 0,
    without_usage: 0,
    unpriced: [],
    corrupt: [],
    cost_before_usd: '0',
    cost_after_usd: '0',
  };
  const before: string[] = [];
  const after: string[] = [];

  const iterateOptions: Parameters<RepriceableStore['iterateMessages']>[0] = {
    role: 'assistant',
    onError: (error) => {
      report.corrupt.push(error);
      logger.warn(
        { event: 'reprice_row_skipped', table: error.table, row_id: error.rowId },
        error.message,
      );
    },
  };
  if (options.sessionId !== undefined) iterateOptions.sessionId = options.sessionId;
  if (options.batchSize !== undefined) iterateOptions.batchSize = options.batchSize;
  if (options.signal !== undefined) iterateOptions.signal = options.signal;

  for await (const message of store.iterateMessages(iterateOptions)) {
    options.signal?.throwIfAborted();
    report.scanned++;
    const usage = message.metadata.usage;
    const model = message.metadata.model;
    if (!usage || !model) {
      report.without_usage++;
      continue;
    }
    // priced as the model that answered when the table knows it, as buildUsage does
    const priced = modelToPrice(table, model, message.metadata.served_model);
    const cost = computeCost(usage, priced, table, options);
    let next: Usage;
    if (cost.priced) {
      if (usage.cost_usd !== null) before.push(usage.cost_usd);
      after.push(cost.cost_usd);
      next = { ...usage, cost_usd: cost.cost_usd, pricing_version: cost.pricing_version };
    } else {
      report.unpriced.push({
        message_id: message.id,
        session_id: message.session_id,
        model: priced,
        reason: cost.reason,
        detail: cost.detail,
      });
      logger.warn(
        { event: 'reprice_unpriced', message_id: message.id, model: priced, reason: cost.reason },
        `message ${message.id}: ${cost.detail}`,
      );
      if (options.whenUnpriced !== 'clear') continue;
      next = { ...usage, cost_usd: null, pricing_version: null };
    }
    if (next.cost_usd === usage.cost_usd && next.pricing_version === usage.pricing_version) {
      report.unchanged++;
      continue;
    }
    if (!report.dry_run) await store.updateMessageUsage(message.id, next);
    report.repriced++;
  }
  report.cost_before_usd = sumCosts(before);
  report.cost_after_usd = sumCosts(after);
  return report;
}

import type { SessionStats } from '@yourtool/core';
import { sumDecimals } from './decimal-sum.js';
import type { CountRow, PricedRow } from './page-query.js';

// Sessions in figures, from the rows `selectStatsRows` read, as the store's `statsFor` makes
// them: message count, last model, exact total cost, unpriced messages.

/** The stats of a session without messages. */
export function noStats(): SessionStats {
  return { message_count: 0, last_model: null, total_cost_usd: '0', unpriced_messages: 0 };
}

/** The metadata fields stats read from an assistant or system message. */
interface PricedMetadata {
  model?: unknown;
  usage?: { cost_usd?: unknown } | null;
}

/** What the stats of a page came to, and the message rows whose metadata is not JSON. */
export interface PageStats {
  stats: Map<string, SessionStats>;
  unreadable: Array<{ id: string; cause: unknown }>;
}

/** Counts one priced message into `stats`; its cost when it has a readable one. */
function countMessage(stats: SessionStats, role: string, metadata: PricedMetadata) {
  if (role === 'assistant' && typeof metadata.model === 'string' && metadata.model)
    stats.last_model = metadata.model;
  const usage = metadata.usage;
  if (!usage || typeof usage !== 'object') return undefined;
  const cost = usage.cost_usd;
  if (cost === null) stats.unpriced_messages++;
  else if (typeof cost === 'string' && /^\d+(?:\.\d+)?$/.test(cost)) return cost;
  return undefined;
}

/** The stats of each session that has messages. */
export function pageStats(counts: readonly CountRow[], priced: readonly PricedRow[]): PageStats {
  const stats = new Map<string, SessionStats>();
  const unreadable: PageStats['unreadable'] = [];
  for (const row of counts)
    stats.set(row.session_id, { ...noStats(), message_count: Number(row.n) });
  const costs = new Map<string, string[]>();
  for (const row of priced) {
    const entry = stats.get(row.session_id);
    if (!entry) continue;
    let metadata: PricedMetadata;
    try {
      metadata = JSON.parse(row.metadata_json);
    } catch (cause) {
      unreadable.push({ id: row.id, cause });
      continue;
    }
    const cost = countMessage(entry, row.role, metadata);
    if (cost === undefined) continue;
    const list = costs.get(row.session_id) ?? [];
    list.push(cost);
    costs.set(row.session_id, list);
  }
  for (const [id, list] of costs) {
    const entry = stats.get(id);
    if (entry) entry.total_cost_usd = sumDecimals(list);
  }
  return { stats, unreadable };
}

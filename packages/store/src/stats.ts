import { CorruptRowError, type SessionStats, sumDecimalStrings } from '@yourtool/core';
import { checkKey } from './checks.js';
import { reportCorrupt, type StoreContext } from './context.js';

// Sessions in figures: message count, last model, exact total cost, unpriced messages.

/** The stats of a session without messages. */
export function emptyStats(): SessionStats {
  return { message_count: 0, last_model: null, total_cost_usd: '0', unpriced_messages: 0 };
}

export async function sessionStats(ctx: StoreContext, sessionId: string): Promise<SessionStats> {
  checkKey(sessionId, 'sessionId');
  return (await statsFor(ctx, [sessionId])).get(sessionId) ?? emptyStats();
}

/** The metadata fields stats read from an assistant or system message. */
interface PricedMetadata {
  model?: unknown;
  usage?: { cost_usd?: unknown } | null;
}

/** The rows stats are made of: message counts, and the priced messages in load order. */
interface StatsRows {
  counts: Array<{ session_id: string; n: number | string | bigint }>;
  priced: Array<{ id: string; session_id: string; role: string; metadata_json: string }>;
}

// one session on SQLite without plugins: both statements prepared, in one synchronous section
const COUNT_ONE = 'select "session_id", count(*) as "n" from "messages" where "session_id" = ?';
const PRICED_ONE =
  'select "id", "session_id", "role", "metadata_json" from "messages" where "session_id" = ? and "role" in (\'assistant\', \'system\') order by "created_at", "id"';

/** The rows of {@link statsFor}: two statements. */
async function statsRows(ctx: StoreContext, sessionIds: readonly string[]): Promise<StatsRows> {
  const [only] = sessionIds;
  if (ctx.direct && only !== undefined && sessionIds.length === 1) {
    return ctx.direct.read((sqlite) => ({
      counts: (sqlite.prepare(COUNT_ONE).all([only]) as StatsRows['counts']).filter(
        (row) => row.session_id !== null,
      ),
      priced: sqlite.prepare(PRICED_ONE).all([only]) as StatsRows['priced'],
    }));
  }
  const counts = await ctx.db
    .selectFrom('messages')
    .select(['session_id', (eb) => eb.fn.countAll<number | string | bigint>().as('n')])
    .where('session_id', 'in', sessionIds)
    .groupBy('session_id')
    .execute();
  // usage is on assistant messages and on compaction summaries (system messages)
  const priced = await ctx.db
    .selectFrom('messages')
    .select(['id', 'session_id', 'role', 'metadata_json'])
    .where('session_id', 'in', sessionIds)
    .where('role', 'in', ['assistant', 'system'])
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return { counts, priced };
}

/** The stats of each of `sessionIds` that has messages: two queries in all. */
export async function statsFor(
  ctx: StoreContext,
  sessionIds: readonly string[],
): Promise<Map<string, SessionStats>> {
  const { counts, priced: assistants } = await statsRows(ctx, sessionIds);
  const out = new Map<string, SessionStats>();
  for (const row of counts)
    out.set(row.session_id, { ...emptyStats(), message_count: Number(row.n) });
  const costs = new Map<string, string[]>();
  for (const row of assistants) {
    const stats = out.get(row.session_id);
    if (!stats) continue;
    let metadata: PricedMetadata;
    try {
      metadata = JSON.parse(row.metadata_json);
    } catch (error) {
      reportCorrupt(
        ctx.logger,
        new CorruptRowError('messages', row.id, 'metadata_json is not valid JSON', {
          cause: error,
        }),
      );
      continue;
    }
    const cost = countMessage(stats, row.role, metadata);
    if (cost !== undefined) {
      const list = costs.get(row.session_id) ?? [];
      list.push(cost);
      costs.set(row.session_id, list);
    }
  }
  for (const [id, list] of costs) {
    const stats = out.get(id);
    if (stats) stats.total_cost_usd = sumDecimalStrings(list);
  }
  return out;
}

/**
 * Counts one assistant or system message into `stats` (last model, unpriced messages); resolves
 * to its cost when it has a readable one, to be summed exactly.
 */
function countMessage(
  stats: SessionStats,
  role: string,
  metadata: PricedMetadata,
): string | undefined {
  if (role === 'assistant' && typeof metadata.model === 'string' && metadata.model)
    stats.last_model = metadata.model;
  const usage = metadata.usage;
  if (!usage || typeof usage !== 'object') return undefined;
  const cost = usage.cost_usd;
  if (cost === null) stats.unpriced_messages++;
  else if (typeof cost === 'string' && /^\d+(?:\.\d+)?$/.test(cost)) return cost;
  return undefined;
}

import { type Message, type SessionRecord, sumDecimalStrings } from '@yourtool/core';
import type { SqlSessionStore } from '@yourtool/store';
import type { CommandContext } from '../context.js';
import { costWithUnpriced, describeBlock, money, oneLine, shortTime, table } from '../format.js';
import { CliError } from '../io.js';
import { openCliStore, READS, type StoreUse, storeUrlOf } from '../stores.js';

/**
 * Opens the command's store (by default as a command that reads: an existing store at the
 * current schema, nothing changed to find out), runs `work`, closes it.
 */
export async function withStore<T>(
  context: CommandContext,
  storeOption: string | undefined,
  work: (store: SqlSessionStore) => Promise<T>,
  use: StoreUse = READS,
): Promise<T> {
  const store = await openCliStore(storeUrlOf(storeOption, context.io), context, use);
  try {
    return await work(store);
  } finally {
    await store.close();
  }
}

/** A session, or a `CliError` saying there is none. */
export async function requireSession(store: SqlSessionStore, id: string): Promise<SessionRecord> {
  const session = await store.getSession(id);
  if (!session) throw new CliError(`no session "${id}" in ${store.url}`);
  return session;
}

/** Options of `sessions show`. */
export interface ShowOptions {
  store?: string;
  /** Whole texts, tool inputs and results (default: shortened to a line). */
  full?: boolean;
  json?: boolean;
}

function describeMessage(message: Message, full: boolean): string {
  const meta = message.metadata;
  const facts = [
    shortTime(message.created_at),
    message.role,
    ...(message.role === 'assistant' && meta.model ? [meta.model] : []),
    ...(meta.status !== 'complete' ? [meta.status] : []),
    ...(meta.usage ? [money(meta.usage.cost_usd)] : []),
    ...(meta.compaction ? ['summary of older turns'] : []),
  ];
  const blocks = message.content.map((block) => `  ${describeBlock(block, full)}`);
  const error = meta.error ? [`  (error: ${oneLine(meta.error.message, 200)})`] : [];
  return [`[${facts.join(' · ')}]  ${message.id}`, ...blocks, ...error].join('\n');
}

/** `yourtool sessions show <id>`: the session and its messages. */
export async function showSession(
  context: CommandContext,
  id: string,
  options: ShowOptions,
): Promise<void> {
  await withStore(context, options.store, async (store) => {
    const session = await requireSession(store, id);
    const { messages, errors } = await store.loadMessages(id);
    const stats = await store.sessionStats(id);
    const { stdout } = context.io;
    if (options.json) {
      stdout.write(`${JSON.stringify({ session: { ...session, stats }, messages }, null, 2)}\n`);
    } else {
      const head = [
        `session    ${session.id}`,
        `workspace  ${session.workspace_path}`,
        `created    ${shortTime(session.created_at)} UTC · updated ${shortTime(session.updated_at)} UTC`,
        `model      ${session.active_model ?? '(routing decides)'}`,
        `messages   ${stats.message_count} · cost ${costWithUnpriced(stats.total_cost_usd, stats.unpriced_messages)}`,
      ];
      stdout.write(`${head.join('\n')}\n\n`);
      for (const message of messages) stdout.write(`${describeMessage(message, !!options.full)}\n`);
    }
    for (const error of errors) context.io.stderr.write(`unreadable row: ${error.message}\n`);
  });
}

/** The cost of one model in a session. */
interface ModelCost {
  model: string;
  calls: number;
  input_tokens: number;
  output_tokens: number;
  cached_input_tokens: number;
  cost_usd: string;
  unpriced_calls: number;
}

/** Cost per model over the messages that carry usage (replies and compaction summaries). */
export function costByModel(messages: readonly Message[]): ModelCost[] {
  const byModel = new Map<string, ModelCost & { costs: string[] }>();
  for (const message of messages) {
    const usage = message.metadata.usage;
    if (!usage) continue;
    const model = message.metadata.model ?? '(unknown model)';
    let entry = byModel.get(model);
    if (!entry) {
      entry = {
        model,
        calls: 0,
        input_tokens: 0,
        output_tokens: 0,
        cached_input_tokens: 0,
        cost_usd: '0',
        unpriced_calls: 0,
        costs: [],
      };
      byModel.set(model, entry);
    }
    entry.calls++;
    entry.input_tokens += usage.input_tokens;
    entry.output_tokens += usage.output_tokens;
    entry.cached_input_tokens += usage.cached_input_tokens;
    if (usage.cost_usd === null) entry.unpriced_calls++;
    else entry.costs.push(usage.cost_usd);
  }
  return [...byModel.values()].map(({ costs, ...entry }) => ({
    ...entry,
    cost_usd: sumDecimalStrings(costs),
  }));
}

/** `yourtool sessions cost <id>`: the exact total and the cost of each model. */
export async function sessionCost(
  context: CommandContext,
  id: string,
  options: { store?: string; json?: boolean },
): Promise<void> {
  await withStore(context, options.store, async (store) => {
    await requireSession(store, id);
    const stats = await store.sessionStats(id);
    const models = costByModel((await store.loadMessages(id)).messages);
    const { stdout } = context.io;
    if (options.json) {
      const total = {
        total_cost_usd: stats.total_cost_usd,
        unpriced_messages: stats.unpriced_messages,
      };
      stdout.write(`${JSON.stringify({ session_id: id, ...total, models }, null, 2)}\n`);
      return;
    }
    const rows = models.map((m) => [
      m.model,
      String(m.calls),
      String(m.input_tokens),
      String(m.cached_input_tokens),
      String(m.output_tokens),
      costWithUnpriced(m.cost_usd, m.unpriced_calls),
    ]);
    stdout.write(table(['MODEL', 'CALLS', 'INPUT', 'CACHED', 'OUTPUT', 'COST'], rows));
    stdout.write(`total ${costWithUnpriced(stats.total_cost_usd, stats.unpriced_messages)}\n`);
  });
}

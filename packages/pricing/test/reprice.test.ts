import {
  CorruptRowError,
  createMessage,
  type Message,
  newSessionId,
  parseMessage,
  type SessionStore,
  serializeMessage,
  type Usage,
} from '@yourtool/core';
import { describe, expect, it } from 'vitest';
import {
  defaultPriceTable,
  mergePriceTables,
  parsePriceOverrides,
  repriceMessages,
} from '../src/index.js';

/** The two store methods repricing uses, over rows kept as JSON text. */
class RowStore implements Pick<SessionStore, 'iterateMessages' | 'updateMessageUsage'> {
  readonly rows = new Map<string, string>();
  updates = 0;

  add(message: Message): void {
    this.rows.set(message.id, serializeMessage(message));
  }

  async *iterateMessages(
    options: Parameters<SessionStore['iterateMessages']>[0] = {},
  ): AsyncGenerator<Message> {
    for (const [id, json] of [...this.rows].sort(([a], [b]) => a.localeCompare(b))) {
      let message: Message;
      try {
        message = parseMessage(json);
      } catch (cause) {
        options.onError?.(new CorruptRowError('messages', id, 'unreadable', { cause }));
        continue;
      }
      if (options.role && message.role !== options.role) continue;
      if (options.sessionId && message.session_id !== options.sessionId) continue;
      yield message;
    }
  }

  async updateMessageUsage(messageId: string, usage: Usage): Promise<void> {
    const row = JSON.parse(this.rows.get(messageId) ?? 'null') as { metadata: { usage: Usage } };
    row.metadata.usage = usage;
    this.rows.set(messageId, JSON.stringify(row));
    this.updates++;
  }
}

const table = defaultPriceTable();
const session_id = newSessionId();

function assistant(
  model: string,
  usage: Partial<Usage> | null,
  extra: Record<string, unknown> = {},
) {
  return createMessage({
    session_id,
    role: 'assistant',
    content: [{ type: 'text', text: `reply from ${model}` }],
    metadata: {
      model,
      provider: model.split(':')[0] ?? null,
      routing: {
        mode: 'default',
        chosen_model: model,
        reason: 'test',
        alternatives_considered: [],
      },
      usage:
        usage === null
          ? null
          : {
              input_tokens: 1_000,
              output_tokens: 100,
              cached_input_tokens: 0,
              cache_creation_input_tokens: 0,
              cost_usd: '999',
              pricing_version: 'old',
              latency_ms: 50,
              ...usage,
            },
      ...extra,
    },
  });
}

describe('repriceMessages', () => {
  it('rewrites only metadata.usage.cost_usd and pricing_version, and reports totals', async () => {
    const store = new RowStore();
    const sonnet = assistant(
      'anthropic:claude-sonnet-4-6',
      {},
      { user_id: 'u1', custom_field: 42 },
    );
    const gpt = assistant('openai:gpt-5', { cached_input_tokens: 400 });
    const user = createMessage({
      session_id,
      role: 'user',
      content: [{ type: 'text', text: 'hi' }],
    });
    for (const m of [sonnet, gpt, user]) store.add(m);
    const beforeRows = new Map(store.rows);

    const report = await repriceMessages(store, { table });

    expect(report).toMatchObject({
      pricing_version: '2026-11-22',
      scanned: 2,
      repriced: 2,
      unchanged: 0,
      without_usage: 0,
      unpriced: [],
      cost_before_usd: '1998',
      // sonnet: 1000×3 + 100×15 = 4500 µ$; gpt-5: 1000×1.25 + 100×10 + 400×0.125 = 2300 µ$
      cost_after_usd: '0.0068',
    });
    const after = JSON.parse(store.rows.get(sonnet.id) ?? '') as Record<string, unknown>;
    const before = JSON.parse(beforeRows.get(sonnet.id) ?? '') as Record<string, unknown>;
    const expected = structuredClone(before) as { metadata: { usage: Usage } };
    expected.metadata.usage.cost_usd = '0.0045';
    expected.metadata.usage.pricing_version = '2026-11-22';
    expect(after).toEqual(expected);
    expect(store.rows.get(user.id)).toBe(beforeRows.get(user.id));

    const again = await repriceMessages(store, { table });
    expect(again).toMatchObject({ repriced: 0, unchanged: 2 });
  });

  it('leaves unpriced models alone by default, or clears them when asked', async () => {
    const store = new RowStore();
    const local = assistant('acme:private', {});
    store.add(local);
    const report = await repriceMessages(store, { table });
    expect(report.unpriced).toEqual([
      expect.objectContaining({
        message_id: local.id,
        model: 'acme:private',
        reason: 'unknown_model',
      }),
    ]);
    expect(report.repriced).toBe(0);
    expect(parseMessage(store.rows.get(local.id)).metadata.usage?.cost_usd).toBe('999');

    const cleared = await repriceMessages(store, { table, whenUnpriced: 'clear' });
    expect(cleared.repriced).toBe(1);
    expect(parseMessage(store.rows.get(local.id)).metadata.usage).toMatchObject({
      cost_usd: null,
      pricing_version: null,
    });
  });

  it('computes without writing in a dry run, and reprices under an override version', async () => {
    const store = new RowStore();
    store.add(assistant('openai:gpt-5', {}));
    store.add(assistant('openai:gpt-5', null));
    const negotiated = mergePriceTables(
      table,
      parsePriceOverrides(
        'pricing_version: acme\nmodels:\n  openai:gpt-5: { input_per_mtok_usd: 1, output_per_mtok_usd: 8 }\n',
      ),
    );
    const dry = await repriceMessages(store, { table: negotiated, dryRun: true });
    expect(dry).toMatchObject({
      dry_run: true,
      repriced: 1,
      without_usage: 1,
      cost_after_usd: '0.0018',
    });
    expect(store.updates).toBe(0);
    const real = await repriceMessages(store, { table: negotiated });
    expect(real.repriced).toBe(1);
    const usages = [...store.rows.values()].map((json) => parseMessage(json).metadata.usage);
    expect(usages.filter((u) => u)).toEqual([
      expect.objectContaining({ cost_usd: '0.0018', pricing_version: '2026-11-22+acme' }),
    ]);
  });

  it('skips corrupt rows, reports them, and stops on abort', async () => {
    const store = new RowStore();
    store.add(assistant('openai:gpt-5', {}));
    store.rows.set('00000000000000000000000000', '{not json');
    const report = await repriceMessages(store, { table });
    expect(report.corrupt).toHaveLength(1);
    expect(report.corrupt[0]?.rowId).toBe('00000000000000000000000000');
    expect(report.repriced).toBe(1);

    const controller = new AbortController();
    controller.abort();
    await expect(repriceMessages(store, { table, signal: controller.signal })).rejects.toThrow();
  });

  it('reprices as the served model when the table knows it, as buildUsage priced it', async () => {
    const store = new RowStore();
    const auto = assistant(
      'openrouter:openrouter/auto',
      {},
      { served_model: 'openrouter:anthropic/claude-4.6-sonnet-20260217' },
    );
    const alias = assistant('openai:gpt-5', {}, { served_model: 'openai:gpt-5-2025-08-07' });
    store.add(auto);
    store.add(alias);
    const report = await repriceMessages(store, { table });
    expect(report).toMatchObject({ repriced: 2, unpriced: [] });
    // auto → Sonnet 4.6: 1000×3 + 100×15 = 4500 µ$; the unknown alias → gpt-5: 2250 µ$
    expect(parseMessage(store.rows.get(auto.id)).metadata.usage?.cost_usd).toBe('0.0045');
    expect(parseMessage(store.rows.get(alias.id)).metadata.usage?.cost_usd).toBe('0.00225');
  });
});

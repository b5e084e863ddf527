import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createMessage, newRequestId, newSessionId } from '@yourtool/core';
import { openStore, SqlBudgetLedger, type SqlSessionStore } from '@yourtool/store';
import pg from 'pg';
import {
  check,
  interleave,
  peakRss,
  type RunOptions,
  type ScenarioResult,
} from '../lib/harness.js';
import { postgresUrl, type StoreDb } from '../store/bench.js';

/** Concurrent sessions of the budget scenarios. */
export const BUDGET_CONCURRENCY = [1, 100] as const;
/** What a complete reply records (canonical-format §5): model, provider, routing, usage. */
const REPLY_METADATA = {
  model: 'anthropic:claude-sonnet-4-6',
  provider: 'anthropic',
  routing: {
    mode: 'default' as const,
    chosen_model: 'anthropic:claude-sonnet-4-6',
    reason: 'global default',
    rule_name: null,
    confidence: null,
    alternatives_considered: [],
  },
  usage: {
    input_tokens: 1200,
    output_tokens: 80,
    cached_input_tokens: 0,
    cache_creation_input_tokens: 0,
    cost_usd: '0.001234',
    pricing_version: 'bench',
    latency_ms: 900,
  },
};
/** Turns per timed repetition, spread over the sessions. */
const TURNS = 100;

/**
 * What a reservation and a settlement add to a turn (issue 48): `TURNS` turns, each storing its
 * user message and reply, run by `sessions` concurrent sessions; ours also reserves each call's
 * worst case under three budgets (global, user, session) first and settles it after.
 */
export async function budgetsScenario(
  db: StoreDb,
  sessions: number,
  options: RunOptions,
): Promise<ScenarioResult> {
  const dir = db === 'sqlite' ? mkdtempSync(join(tmpdir(), 'yourtool-bench-budgets-')) : '';
  const schema = `bench_${process.pid}_budgets`;
  const url = db === 'postgres' ? postgresUrl() : '';
  const store: SqlSessionStore =
    db === 'sqlite'
      ? await openStore(`sqlite:${join(dir, 'store.db')}`)
      : await openStore(url, { schema });
  const ledger = new SqlBudgetLedger(store);
  await ledger.setBudget({ scope: 'global', limit_micros: 10n ** 15n });
  await ledger.setBudget({
    scope: 'user:bench',
    limit_micros: 10n ** 15n,
    window: { kind: 'day' },
  });
  let settled = 0;
  const turn = async (sessionId: string, budgets: boolean) => {
    const requestId = newRequestId();
    if (budgets) {
      await ledger.reserve({
        request_id: requestId,
        scopes: ['global', 'user:bench', `session:${sessionId}`],
        amount_micros: 25_000n,
        ttl_ms: 600_000,
      });
    }
    const text = (role: 'user' | 'assistant', t: string) =>
      createMessage({
        session_id: sessionId,
        role,
        content: [{ type: 'text', text: t }],
        metadata: role === 'assistant' ? REPLY_METADATA : {},
      });
    await store.appendMessage(text('user', 'hello'));
    await store.appendMessage(text('assistant', 'hi there'));
    if (budgets && (await ledger.settle(requestId, 1_234n))) settled++;
  };
  const round = async (budgets: boolean) => {
    const ids = Array.from({ length: sessions }, () => newSessionId());
    for (const id of ids) await store.createSession({ id, workspace_path: '/bench' });
    const perSession = TURNS / sessions;
    await Promise.all(
      ids.map(async (id) => {
        for (let i = 0; i < perSession; i++) await turn(id, budgets);
      }),
    );
  };
  try {
    const timings = await interleave(options, {
      ours: () => round(true),
      baseline: () => round(false),
    });
    const [global] = (await ledger.listBudgets()).filter((b) => b.scope === 'global');
    if (options.only !== 'baseline') {
      check(global?.reserved_micros === 0n, 'every reservation settled');
      check(global?.spent_micros === BigInt(settled) * 1_234n, 'spent is the sum of settlements');
    }
    return {
      id: `budgets/${db}/${sessions}`,
      group: 'store',
      title: `${db}: ${TURNS} turns over ${sessions} concurrent session${sessions === 1 ? '' : 's'}, each reserving under 3 budgets and settling`,
      baseline: 'the same turns (user message and reply appended) without budgets',
      measurements: [
        {
          metric: `wall ms per ${TURNS} turns`,
          ours: timings.ours.map((t) => t.wallMs),
          baseline: timings.baseline.map((t) => t.wallMs),
          higherIsBetter: false,
        },
      ],
      checks: ['reserved back to 0 after every round', 'spent = settlements × cost'],
      notes: db === 'postgres' ? ['synchronous_commit=off on both sides'] : [],
      maxRssBytes: peakRss(),
    };
  } finally {
    await store.close();
    if (db === 'sqlite') rmSync(dir, { recursive: true, force: true });
    else {
      const admin = new pg.Client({ connectionString: url });
      await admin.connect();
      await admin.query(`drop schema if exists "${schema}" cascade`);
      await admin.end();
    }
  }
}

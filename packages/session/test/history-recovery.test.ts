import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AnthropicAdapter } from '@yourtool/anthropic';
import { createMemoryLogger, validateHistory } from '@yourtool/core';
import { defaultPriceTable } from '@yourtool/pricing';
import { ModelRegistry, NoRouteError, parseRoutingConfig, Router } from '@yourtool/router';
import { openStore, type SqlSessionStore } from '@yourtool/store';
import { afterEach, describe, expect, it } from 'vitest';
import { type HistoryRecovery, HistoryTooLongError, SessionManager } from '../src/index.js';
import { fixturesOf, loopbackForFile, requireFixture } from './helpers.js';

// A history that no longer fits the model (issue 36, decision 0155). The SessionManager's own
// default refuses it, naming what to do; `historyRecovery: 'leave_out_oldest_turns'` (the
// runtime's default) leaves the oldest turns out of the request, storing nothing.

const anthropic = fixturesOf('anthropic');
const loopback = loopbackForFile();
const text = () => requireFixture(anthropic, 'text-stream');

/** About 1,000 tokens. */
const paragraph = (n: number) => `Paragraph ${n}. ${'lorem ipsum dolor sit amet '.repeat(150)}`;

const stores: SqlSessionStore[] = [];
afterEach(async () => {
  await Promise.all(stores.splice(0).map((s) => s.close()));
});

async function harness(window: number, historyRecovery?: HistoryRecovery) {
  const store = await openStore(`sqlite:${join(mkdtempSync(join(tmpdir(), 'recover-')), 's.db')}`);
  stores.push(store);
  const logger = createMemoryLogger();
  const registry = ModelRegistry.fromYaml(
    `
adapters:
  anthropic: { type: anthropic, api_key: sk-ant-recover-test-0000, base_url: ${loopback.server.url}, max_retries: 0 }
models:
  anthropic:claude-sonnet-4-6:
    { adapter: anthropic, wire_name: claude-sonnet-4-6, aliases: [sonnet], capabilities: { max_context_tokens: ${window} } }
`,
    { factories: { anthropic: (config, runtime) => new AnthropicAdapter(config, runtime) } },
  );
  const manager = new SessionManager({
    store,
    router: new Router({ registry, config: parseRoutingConfig('global_default: sonnet') }),
    pricing: defaultPriceTable(),
    logger,
    maxOutputTokens: 1024,
    ...(historyRecovery ? { historyRecovery } : {}),
  });
  return { manager, store, logger };
}

const bodyOf = (index: number) =>
  JSON.stringify(
    (loopback.server.requests[index]?.body as { messages: unknown[] } | undefined)?.messages,
  );

describe("the SessionManager's default (decision 0155)", () => {
  it('refuses a history that outgrew the model with HistoryTooLongError saying what to do; nothing is stored', async () => {
    const { manager, store } = await harness(6000);
    const session = await manager.createSession({ workspace_path: '/w' });
    let refused: unknown;
    let n = 0;
    while (!refused && n < 10) {
      n++;
      loopback.server.enqueue(...text());
      refused = await manager.sendAndWait(session.id, paragraph(n)).then(
        () => undefined,
        (error: unknown) => error,
      );
    }
    expect(n).toBeGreaterThan(2);
    expect(refused).toBeInstanceOf(HistoryTooLongError);
    expect(refused).toBeInstanceOf(NoRouteError);
    const error = refused as HistoryTooLongError;
    expect(error.recovery).toBe('off');
    expect(error.message).toMatch(
      /^the history is too long for this turn: anthropic:claude-sonnet-4-6 \(session needs about \d+ input \+ 1024 output tokens and this model's context window is 6000\)\. It needs about \d+ input tokens for anthropic:claude-sonnet-4-6's context window of 6000\. To go on, leave the oldest turns out of the request \(the SessionManager option historyRecovery: 'leave_out_oldest_turns'/,
    );
    expect(error.message).toContain('compaction: dropOldestTurns()');
    expect(error.message).toContain('swap to a model with a larger context window');
    // the refused turn stored nothing
    expect((await store.loadMessages(session.id)).messages).toHaveLength((n - 1) * 2);
  });

  it('a message too long on its own is refused as before (no older turn could make room)', async () => {
    const { manager } = await harness(6000, 'leave_out_oldest_turns');
    const session = await manager.createSession({ workspace_path: '/w' });
    const refused = await manager.sendAndWait(session.id, paragraph(1).repeat(8)).then(
      () => null,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(NoRouteError);
    expect(refused).not.toBeInstanceOf(HistoryTooLongError);
    expect(loopback.server.requests).toHaveLength(0);
  });
});

describe("historyRecovery: 'leave_out_oldest_turns' (decision 0155)", () => {
  it('turn after turn: the same turns are left out while that fits, a new cut (and WARN) when it no longer does; every turn runs', async () => {
    const { manager, store, logger } = await harness(6000, 'leave_out_oldest_turns');
    const session = await manager.createSession({ workspace_path: '/w' });
    const firstSent: number[] = [];
    for (let n = 1; n <= 14; n++) {
      loopback.server.enqueue(...text());
      const result = await manager.sendAndWait(session.id, paragraph(n));
      expect(result.end, `turn ${n}`).toBe('end_turn');
      const body = loopback.server.requests.at(-1)?.body as { messages: unknown[] };
      firstSent.push(Number(/Paragraph (\d+)\./.exec(JSON.stringify(body.messages[0]))?.[1]));
    }
    // where each request starts: 1 until the window is full, then cuts that hold for turns
    const starts = [...new Set(firstSent)];
    expect(starts[0]).toBe(1);
    expect(starts.length).toBeGreaterThanOrEqual(3);
    expect(starts).toEqual([...starts].sort((a, b) => a - b));
    // each cut but the last served more than one turn
    for (const start of starts.slice(1, -1)) {
      expect(firstSent.filter((first) => first === start).length).toBeGreaterThan(1);
    }
    const warned = logger.warnings().filter((w) => w.obj.event === 'history_turns_left_out');
    expect(warned).toHaveLength(starts.length - 1);
    const rows = (await store.loadMessages(session.id)).messages;
    expect(rows).toHaveLength(28);
    expect(validateHistory(rows).ok).toBe(true);
  });

  it('a message that does not fit even with every older turn left out: HistoryTooLongError saying so, nothing stored', async () => {
    const { manager, store } = await harness(6000, 'leave_out_oldest_turns');
    const session = await manager.createSession({ workspace_path: '/w' });
    loopback.server.enqueue(...text());
    await manager.sendAndWait(session.id, 'Hello.');
    loopback.server.reset();
    const refused = await manager.sendAndWait(session.id, paragraph(2).repeat(7)).then(
      () => null,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(HistoryTooLongError);
    expect((refused as HistoryTooLongError).recovery).toBe('not_enough');
    expect((refused as Error).message).toMatch(
      /Even with every older turn left out it needs about \d+ input tokens for anthropic:claude-sonnet-4-6's context window of 6000: swap to a model with a larger context window/,
    );
    expect(loopback.server.requests).toHaveLength(0);
    expect((await store.loadMessages(session.id)).messages).toHaveLength(2);
  });

  it("a provider's context overflow no fallback takes: the oldest turns are left out and the step retried once", async () => {
    const { manager, store, logger } = await harness(200_000, 'leave_out_oldest_turns');
    const session = await manager.createSession({ workspace_path: '/w' });
    for (let n = 1; n <= 4; n++) {
      loopback.server.enqueue(...text());
      await manager.sendAndWait(session.id, paragraph(n));
    }
    loopback.server.reset();
    loopback.server.enqueue(...requireFixture(anthropic, 'error-context_overflow'), ...text());
    const result = await manager.sendAndWait(session.id, paragraph(5));
    expect(result.end).toBe('end_turn');
    expect(result.error).toBeNull();
    expect(loopback.server.requests).toHaveLength(2);
    expect(bodyOf(0)).toContain('Paragraph 1.');
    expect(bodyOf(1)).not.toContain('Paragraph 1.');
    expect(bodyOf(1)).toContain('Paragraph 5.');
    const [left] = logger.warnings().filter((w) => w.obj.event === 'history_turns_left_out');
    expect(left?.obj).toMatchObject({ reason: 'context_overflow', session_id: session.id });
    // the refused request left no row (it failed before any event); the retry names it
    const rows = (await store.loadMessages(session.id)).messages;
    expect(rows).toHaveLength(10);
    expect(rows[9]?.metadata.routing?.fallback_from).toMatchObject([
      { model: 'anthropic:claude-sonnet-4-6', error_class: 'context_overflow' },
    ]);
    expect(rows.filter((m) => m.role === 'user')).toHaveLength(5);
    expect(validateHistory(rows).ok).toBe(true);
  });
});

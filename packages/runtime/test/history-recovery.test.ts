import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  type LoopbackServer,
  loadFixtureDirectory,
  startLoopbackServer,
} from '@yourtool/conformance';
import { createMemoryLogger, validateHistory } from '@yourtool/core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  createRuntime,
  HistoryTooLongError,
  NoRouteError,
  type RuntimeOptions,
} from '../src/index.js';

// A session whose history outgrew its model (issue 36, decision 0155): createRuntime's default
// leaves the oldest turns out of the request (nothing stored changes, no model is called);
// with historyRecovery: 'off' the turn is refused saying what to do.

const anthropic = loadFixtureDirectory(
  fileURLToPath(new URL('../../anthropic/test/fixtures', import.meta.url)),
);
const textStream = () => anthropic['text-stream'] ?? [];

let server: LoopbackServer;
beforeAll(async () => {
  server = await startLoopbackServer();
});
afterAll(() => server.close());
beforeEach(() => server.reset());

/** About 1,000 tokens: six turns of them outgrow a 6,000-token window. */
const paragraph = (n: number) => `Paragraph ${n}. ${'lorem ipsum dolor sit amet '.repeat(150)}`;

/** models.yaml with Claude's context window set to `window`. */
const models = (window: number) => `
adapters:
  anthropic: { type: anthropic, api_key_env: TEST_ANTHROPIC_KEY, base_url_env: TEST_LLM_BASE_URL, max_retries: 0 }
models:
  anthropic:claude-sonnet-4-6:
    adapter: anthropic
    wire_name: claude-sonnet-4-6
    aliases: [sonnet]
    capabilities: { max_context_tokens: ${window} }
`;

/** A runtime on the SQLite file `db`, Claude's window `window` tokens. */
function runtimeOn(db: string, window: number, extra: Partial<RuntimeOptions> = {}) {
  const logger = createMemoryLogger();
  const env = { TEST_ANTHROPIC_KEY: 'sk-ant-recovery-test-0000', TEST_LLM_BASE_URL: server.url };
  return createRuntime({
    models: models(window),
    store: `sqlite:${db}`,
    maxOutputTokens: 1024,
    logger,
    env,
    ...extra,
  }).then((runtime) => ({ runtime, logger }));
}

/** A stored session of six turns, written while the model's window was large. */
async function grownSession(db: string): Promise<string> {
  const { runtime } = await runtimeOn(db, 200_000);
  try {
    const session = await runtime.sessions.createSession({ workspace_path: '/w' });
    for (let n = 1; n <= 6; n++) {
      server.enqueue(...textStream());
      await runtime.sessions.sendAndWait(session.id, paragraph(n));
    }
    return session.id;
  } finally {
    await runtime.close();
  }
}

const lastBody = () =>
  server.requests.at(-1)?.body as {
    system?: Array<{ text: string }> | string;
    messages: Array<{ role: string; content: unknown }>;
  };
const systemText = (body: ReturnType<typeof lastBody>) =>
  typeof body.system === 'string' ? body.system : (body.system ?? []).map((b) => b.text).join('');

describe('a history that outgrew the model (decision 0155)', () => {
  it('recovers on the next turn by default: the oldest turns are left out of the request, with a WARN; nothing stored changes', async () => {
    const db = join(mkdtempSync(join(tmpdir(), 'runtime-recovery-')), 'sessions.db');
    const sessionId = await grownSession(db);
    // the same session, now on a model whose window it outgrew
    const { runtime, logger } = await runtimeOn(db, 6000);
    server.reset();
    try {
      const before = (await runtime.store.loadMessages(sessionId)).messages;
      expect(before).toHaveLength(12);
      server.enqueue(...textStream());
      const result = await runtime.sessions.sendAndWait(sessionId, paragraph(7));
      expect(result.end).toBe('end_turn');
      expect(result.error).toBeNull();
      // no summary call: the one request is the turn's own
      expect(server.requests).toHaveLength(1);
      const body = lastBody();
      const sent = JSON.stringify(body.messages);
      expect(sent).not.toContain('Paragraph 1.');
      expect(sent).toContain('Paragraph 7.');
      expect(body.messages[0]?.role).toBe('user');
      expect(systemText(body)).toMatch(/earlier messages of this conversation were removed/);

      const warned = logger.warnings().filter((w) => w.obj.event === 'history_turns_left_out');
      expect(warned).toHaveLength(1);
      const left = warned[0]?.obj ?? {};
      expect(left).toMatchObject({
        session_id: sessionId,
        model: 'anthropic:claude-sonnet-4-6',
        reason: 'context_window',
        context_window: 6000,
      });
      expect(left.turns).toBeGreaterThanOrEqual(1);
      expect(left.messages).toBe((left.turns as number) * 2);
      expect(left.tokens_after).toBeLessThan(left.tokens_before as number);
      expect(warned[0]?.msg).toMatch(
        /left the oldest \d+ turns \(\d+ messages\) out of the request/,
      );
      const leftOut = Number(left.messages);
      expect(sent).not.toContain(`Paragraph ${leftOut / 2}.`);
      expect(sent).toContain(`Paragraph ${leftOut / 2 + 1}.`);

      // nothing stored was changed or deleted; the new turn was added; no summary row
      const after = (await runtime.store.loadMessages(sessionId)).messages;
      expect(after.slice(0, 12)).toEqual(before);
      expect(after).toHaveLength(14);
      expect(after.filter((m) => m.role === 'system')).toEqual([]);
      expect(validateHistory(after).ok).toBe(true);

      // the turn after that leaves out the same turns (the request starts alike), without a WARN
      const firstSent = JSON.stringify(body.messages[0]);
      server.enqueue(...textStream());
      const again = await runtime.sessions.sendAndWait(sessionId, paragraph(8));
      expect(again.end).toBe('end_turn');
      expect(JSON.stringify(lastBody().messages)).toContain('Paragraph 8.');
      expect(JSON.stringify(lastBody().messages[0])).toBe(firstSent);
      expect(systemText(lastBody())).toBe(systemText(body));
      expect(
        logger.warnings().filter((w) => w.obj.event === 'history_turns_left_out'),
      ).toHaveLength(1);
    } finally {
      await runtime.close();
    }
  });

  it("with historyRecovery: 'off' the turn is refused with what to do, and nothing is stored", async () => {
    const db = join(mkdtempSync(join(tmpdir(), 'runtime-recovery-off-')), 'sessions.db');
    const sessionId = await grownSession(db);
    const { runtime, logger } = await runtimeOn(db, 6000, { historyRecovery: 'off' });
    server.reset();
    try {
      const refused = await runtime.sessions.sendAndWait(sessionId, paragraph(7)).then(
        () => null,
        (error: unknown) => error,
      );
      expect(refused).toBeInstanceOf(HistoryTooLongError);
      expect(refused).toBeInstanceOf(NoRouteError);
      const error = refused as HistoryTooLongError;
      expect(error.code).toBe('history_too_long');
      expect(error.model).toBe('anthropic:claude-sonnet-4-6');
      expect(error.limit.context_window).toBe(6000);
      expect(error.recovery).toBe('off');
      expect(error.message).toMatch(/context window of 6000/);
      // what to do, and the SessionManager options that do it
      expect(error.message).toContain("historyRecovery: 'leave_out_oldest_turns'");
      expect(error.message).toContain('compaction: summarizeOlderTurns({ model })');
      expect(error.message).toContain('compaction: dropOldestTurns()');
      expect(error.message).toMatch(/larger context window/);
      expect(error.trace.some((t) => t.context_limited)).toBe(true);
      expect(server.requests).toHaveLength(0);
      expect((await runtime.store.loadMessages(sessionId)).messages).toHaveLength(12);
      expect(logger.warnings().filter((w) => w.obj.event === 'history_turns_left_out')).toEqual([]);
    } finally {
      await runtime.close();
    }
  });

  it('historyRecovery is checked like the other options', async () => {
    await expect(
      createRuntime({ models: models(6000), historyRecovery: 'summarize' as never }),
    ).rejects.toMatchObject({
      option: 'historyRecovery',
      message:
        "historyRecovery must be 'leave_out_oldest_turns' or 'off', got the string \"summarize\"",
    });
    await expect(
      createRuntime({ models: models(6000), toolResults: { maxShareOfContext: 2 } }),
    ).rejects.toMatchObject({ option: 'toolResults.maxShareOfContext' });
  });
});

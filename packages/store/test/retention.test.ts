import { type ChildProcess, spawn } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InvalidStoreInputError, SqlApprovalStore, type SqlSessionStore } from '../src/index.js';
import { assistantWithTools, userText } from './helpers/messages.js';
import { POSTGRES_URL, type Target, targets } from './helpers/targets.js';

/**
 * Retention (issue 49, decision 0184): `pruneSessions` on both dialects removes the sessions
 * the policy expires with every row of theirs, in bounded batches, leaves sessions a turn holds,
 * counts without removing on a dry run, and loses no row of a turn another process runs.
 */
const HOOKS = fileURLToPath(new URL('./fixtures/ts-hooks.mjs', import.meta.url));
const TURNS = fileURLToPath(new URL('./fixtures/prune-turns.ts', import.meta.url));
const DAY = 86_400_000;

describe.each(targets())('retention on $name', ({ make }) => {
  const target: Target = make();
  let store: SqlSessionStore;
  beforeAll(async () => {
    store = await target.open();
  });
  afterAll(async () => {
    await store?.close();
    await target.dispose();
  });

  /** Sets a session's last activity `days` ago (what weeks of idleness leave in the row). */
  async function age(ids: readonly string[], days: number): Promise<void> {
    if (ids.length === 0) return;
    const updated = (Date.now() - days * DAY) * 1000;
    await store.db
      .updateTable('sessions')
      .set({ updated_at: updated })
      .where('id', 'in', ids)
      .execute();
  }

  /** A session with a user message, a tool-calling reply, an approval and a session budget. */
  async function session(tags?: string[]): Promise<string> {
    const { id } = await store.createSession({ workspace_path: '/w', ...(tags ? { tags } : {}) });
    await store.appendMessage(userText(id, 'q'));
    await store.appendMessage(assistantWithTools(id, [{ name: 'ls' }, { name: 'cat' }]));
    await new SqlApprovalStore(store).request({
      session_id: id,
      tool_use_id: `tu_${id}`,
      tool_name: 'ls',
    });
    await store.db
      .insertInto('budgets' as never)
      .values({ scope: `session:${id}`, limit_micros: 1_000_000 } as never)
      .execute();
    return id;
  }

  async function counts(): Promise<Record<string, number>> {
    const result: Record<string, number> = {};
    for (const table of ['sessions', 'messages', 'tool_calls', 'tool_approvals', 'budgets']) {
      const row = await store.db
        .selectFrom(table as 'sessions')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirst();
      result[table] = Number(row?.n ?? 0);
    }
    return result;
  }

  it('a dry run counts what would go and changes nothing; the prune removes exactly that', async () => {
    const old = [await session(), await session()];
    const recent = await session();
    await age(old, 40);
    const before = await counts();
    const dry = await store.pruneSessions({ olderThanMs: 30 * DAY, dryRun: true });
    expect(dry).toMatchObject({
      dry_run: true,
      sessions: 2,
      rows: {
        sessions: 2,
        messages: 4,
        tool_calls: 4,
        tool_approvals: 2,
        budget_rows: 2,
        total: 14,
      },
      batches: 0,
    });
    expect(await counts()).toEqual(before);

    const done = await store.pruneSessions({ olderThanMs: 30 * DAY });
    expect(done.rows).toEqual(dry.rows);
    expect(done.batches).toBe(1);
    expect(done.freed_bytes).toBeGreaterThanOrEqual(0);
    const after = await counts();
    expect((before.messages ?? 0) - (after.messages ?? 0)).toBe(4);
    for (const id of old) expect(await store.getSession(id)).toBeNull();
    expect((await store.loadMessages(recent)).messages).toHaveLength(2);
    expect(await store.listToolCalls(recent)).toHaveLength(2);
  });

  it('per-tag ages: a session keeps to the longest of its listed tags', async () => {
    const audit = await session(['audit']);
    const scratch = await session(['scratch']);
    const both = await session(['audit', 'scratch']);
    const plain = await session();
    await age([audit, scratch, both, plain], 10);
    const report = await store.pruneSessions({
      olderThanMs: 30 * DAY,
      tags: { audit: 365 * DAY, scratch: 1 * DAY },
    });
    expect(report.sessions).toBe(1);
    expect(await store.getSession(scratch)).toBeNull();
    for (const id of [audit, both, plain]) expect(await store.getSession(id)).not.toBeNull();
  });

  it('a session holding a live turn lease is skipped', async () => {
    const { id } = await store.createSession({ workspace_path: '/w' });
    await store.appendMessage(userText(id, 'q'), {
      lease: { take: { id: 'turn', ttlMs: 60_000 } },
    });
    await age([id], 40);
    const report = await store.pruneSessions({ olderThanMs: 30 * DAY });
    expect(report.skipped_active).toBe(1);
    expect(await store.getSession(id)).not.toBeNull();
  });

  it('refuses bad options, naming each', async () => {
    const error = await store
      .pruneSessions({ olderThanMs: -1, tags: { a: 1.5 }, batchSize: 0 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidStoreInputError);
    const message = (error as Error).message;
    for (const path of ['olderThanMs', 'tags.a', 'batchSize']) expect(message).toContain(path);
  });

  it('a large prune runs in batches beside another process running turns, which loses no row', async () => {
    const live: string[] = [];
    for (let i = 0; i < 5; i++)
      live.push((await store.createSession({ workspace_path: '/live' })).id);
    const many = 2_000;
    const created = await store.db
      .insertInto('sessions')
      .values(
        Array.from({ length: many }, (_, i) => ({
          id: `old_${i}_${Date.now().toString(36)}`,
          workspace_path: '/old',
          active_model: null,
          routing_policy_json: null,
          schema_version: 1,
          created_at: 0,
          updated_at: 0,
          user_id: null,
          tenant_id: null,
          tags_json: null,
        })),
      )
      .returning('id')
      .execute();
    const ids = created.map((r) => r.id);
    for (const id of ids.slice(0, 500)) {
      await store.appendMessage(userText(id, 'old'));
    }
    await age(ids, 400); // the appends made them active: weeks of idleness again
    const child = turns(target, live);
    await child.until('ready');
    await age(live, 40); // expired by age, but each holds a turn's lease
    const report = await store.pruneSessions({ olderThanMs: 30 * DAY, batchSize: 50 });
    child.send('stop');
    const done = await child.until('done');
    expect(report.sessions).toBe(many);
    expect(report.batches).toBeGreaterThanOrEqual(many / 50);
    // an earlier test's session, still held; the live ones are either held or written to since
    expect(report.skipped_active).toBeGreaterThanOrEqual(1);
    for (const id of live) expect(await store.getSession(id)).not.toBeNull();
    const written = done.written as string[];
    for (const id of written) expect(await store.getMessage(id)).not.toBeNull();
    const rate = Math.round(report.rows.total / (Math.max(1, report.duration_ms) / 1000));
    reported.push(
      `${target.name}: ${report.rows.total} rows in ${report.duration_ms} ms (${rate} rows/s), ${report.batches} batches; a concurrent turn's longest write ${Math.round(done.longest_ms as number)} ms over ${done.writes} writes`,
    );
  });
});

const reported: string[] = [];
afterAll(() => {
  expect(reported.length).toBeGreaterThan(0);
  process.stderr.write(`${reported.join('\n')}\n`);
});

/** A child running turns on `sessions` until told to stop. */
function turns(target: Target, sessions: string[]) {
  const { file, schema } = target as Target & { file?: string; schema?: string };
  const url = target.name === 'sqlite' ? `sqlite:${file}` : POSTGRES_URL;
  const child: ChildProcess = spawn(
    process.execPath,
    [
      '--experimental-transform-types',
      '--no-warnings',
      '--import',
      HOOKS,
      TURNS,
      JSON.stringify({ url, schema, sessions }),
    ],
    { stdio: ['pipe', 'pipe', 'pipe'] },
  );
  const lines: Array<Record<string, unknown>> = [];
  let buffered = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8');
  child.stdout?.on('data', (chunk: string) => {
    buffered += chunk;
    const parts = buffered.split('\n');
    buffered = parts.pop() ?? '';
    for (const part of parts)
      if (part.trim()) lines.push(JSON.parse(part) as Record<string, unknown>);
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  return {
    send: (line: string) => child.stdin?.write(`${line}\n`),
    async until(event: string, ms = 60_000) {
      const deadline = Date.now() + ms;
      for (;;) {
        const found = lines.find((l) => l.event === event);
        if (found) return found;
        if (child.exitCode !== null) throw new Error(`the turns child exited: ${stderr}`);
        if (Date.now() > deadline) throw new Error(`no ${event} within ${ms} ms: ${stderr}`);
        await sleep(10);
      }
    },
  };
}

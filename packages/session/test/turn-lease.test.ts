import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import type { Message } from '@yourtool/core';
import { openStore, type SqlSessionStore } from '@yourtool/store';
import { testPostgresUrl } from '@yourtool/testkit/postgres';
import { afterEach, describe, expect, it } from 'vitest';
import { TurnInProgressError } from '../src/index.js';
import { scriptedManager } from './fixtures/lease-world.js';

/**
 * One turn at a time per session across processes (decision 0156), on a SQLite file and a
 * PostgreSQL server, with real child processes: senders racing on one session, and a lease
 * holder killed mid-stream.
 */

const HOOKS = fileURLToPath(new URL('./fixtures/ts-hooks.mjs', import.meta.url));
const SENDER = fileURLToPath(new URL('./fixtures/lease-sender.ts', import.meta.url));
const POSTGRES_URL = testPostgresUrl();

/** A database the children and the test share: its URL, and how to remove it. */
interface Shared {
  url: string;
  schema?: string;
  open(): Promise<SqlSessionStore>;
  dispose(): Promise<void>;
}

let counter = 0;
const opened: SqlSessionStore[] = [];

function sqliteShared(): Shared {
  const dir = mkdtempSync(join(tmpdir(), 'session-lease-'));
  const url = `sqlite:${join(dir, 'sessions.db')}`;
  return {
    url,
    open: async () => remember(await openStore(url)),
    dispose: async () => rmSync(dir, { recursive: true, force: true }),
  };
}

function postgresShared(): Shared {
  const schema = `yt_lease_${process.pid}_${Date.now().toString(36)}_${++counter}`;
  return {
    url: POSTGRES_URL,
    schema,
    open: async () => remember(await openStore(POSTGRES_URL, { schema })),
    dispose: async () => {
      const admin = await openStore(POSTGRES_URL, { migrate: false });
      try {
        await admin.db.schema.dropSchema(schema).ifExists().cascade().execute();
      } finally {
        await admin.close();
      }
    },
  };
}

function remember(store: SqlSessionStore): SqlSessionStore {
  opened.push(store);
  return store;
}

const disposals: Array<() => Promise<void>> = [];
const children: ChildProcess[] = [];
afterEach(async () => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
  await Promise.all(opened.splice(0).map((s) => s.close()));
  await Promise.all(disposals.splice(0).map((d) => d()));
});

/** One line a sender child reported. */
interface Reported {
  type: 'ready' | 'request' | 'done' | 'refused' | 'failed' | 'stalled';
  name?: string;
  ids?: string[];
  error?: string;
  message?: string;
}

/** Starts a sender child; it starts sending on {@link Child.go}. */
function startSender(shared: Shared, config: Record<string, unknown>) {
  const child = spawn(
    process.execPath,
    [
      // the session's sources as they are (a parameter property needs more than stripping types)
      '--experimental-transform-types',
      '--no-warnings',
      '--import',
      HOOKS,
      SENDER,
      JSON.stringify({ url: shared.url, schema: shared.schema, gapMs: 5, ...config }),
    ],
    { stdio: ['pipe', 'pipe', 'pipe'] },
  );
  children.push(child);
  const lines: Reported[] = [];
  let buffered = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8');
  child.stdout?.on('data', (chunk: string) => {
    buffered += chunk;
    const parts = buffered.split('\n');
    buffered = parts.pop() ?? '';
    for (const part of parts) if (part.trim()) lines.push(JSON.parse(part) as Reported);
  });
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (chunk: string) => {
    stderr += chunk;
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const until = async (what: Reported['type'], ms = 30_000) => {
    const deadline = Date.now() + ms;
    while (!lines.some((l) => l.type === what)) {
      if (child.exitCode !== null) {
        throw new Error(`the sender exited (${child.exitCode}) before "${what}": ${stderr}`);
      }
      if (Date.now() > deadline) throw new Error(`no "${what}" within ${ms} ms: ${stderr}`);
      await sleep(10);
    }
  };
  const go = () => child.stdin?.write('go\n');
  const finished = async (ms = 60_000) => {
    const code = await Promise.race([exited, sleep(ms).then(() => 'timeout' as const)]);
    if (code !== 0) throw new Error(`the sender ended with ${String(code)}: ${stderr}`);
  };
  return { child, lines, until, go, finished };
}

/**
 * Holds a stored history to whole turns: each is the user's message, the reply asking for the
 * echo tool with that text, the tool's result and the final reply, all complete, all one
 * sender's.
 */
function expectWholeTurns(history: readonly Message[]): string[] {
  expect(history.length % 4).toBe(0);
  const senders: string[] = [];
  for (let at = 0; at < history.length; at += 4) {
    const [user, call, result, reply] = history.slice(at, at + 4) as Message[];
    const text = user?.content[0]?.type === 'text' ? user.content[0].text : '';
    expect(user?.role).toBe('user');
    expect(text).toMatch(/^turn of /);
    const use = call?.content.find((b) => b.type === 'tool_use');
    expect(call?.role).toBe('assistant');
    expect(use?.type === 'tool_use' && use.input).toEqual({ text });
    expect(result?.role).toBe('tool');
    expect(result?.metadata.parent_tool_use_id).toBe(use?.type === 'tool_use' ? use.id : null);
    expect(reply?.role).toBe('assistant');
    expect(JSON.stringify(reply?.content)).toContain(`echo ${text}`);
    for (const m of [user, call, result, reply]) expect(m?.metadata.status).toBe('complete');
    senders.push(text.slice('turn of '.length));
  }
  return senders;
}

/** Every request was the stored history at the time: a prefix of it, ending with its newest message. */
function expectRequestsAreStoreViews(requests: Reported[], history: readonly Message[]): void {
  const ids = history.map((m) => m.id);
  for (const request of requests) {
    const sent = request.ids ?? [];
    expect(sent.length).toBeGreaterThan(0);
    expect(sent).toEqual(ids.slice(0, sent.length));
  }
}

describe.each([
  { name: 'sqlite', make: sqliteShared },
  { name: 'postgres', make: postgresShared },
])('one turn at a time per session across processes ($name)', ({ make }) => {
  it('8 senders in 2 processes at once: whole turns, requests equal to the store, losers refused; then 8 that wait all run', {
    timeout: 120_000,
  }, async () => {
    const shared = make();
    disposals.push(shared.dispose);
    const store = await shared.open();
    const session = await store.createSession({ workspace_path: '/w' });
    const lease = { ttlMs: 10_000, heartbeatMs: 2_000 };
    const round = async (names: string[][], waitMs?: number) => {
      const senders = names.map((group) =>
        startSender(shared, { sessionId: session.id, names: group, waitMs, ...lease }),
      );
      await Promise.all(senders.map((s) => s.until('ready')));
      for (const s of senders) s.go();
      await Promise.all(senders.map((s) => s.finished()));
      return senders.flatMap((s) => s.lines);
    };

    const first = await round([
      ['a1', 'a2', 'a3', 'a4'],
      ['b1', 'b2', 'b3', 'b4'],
    ]);
    const done = first.filter((l) => l.type === 'done').map((l) => l.name);
    const refused = first.filter((l) => l.type === 'refused');
    expect(first.filter((l) => l.type === 'failed')).toEqual([]);
    expect(done.length).toBeGreaterThanOrEqual(1);
    expect(done.length + refused.length).toBe(8);
    for (const r of refused) expect(r.error).toBe('TurnInProgressError');
    let history = (await store.loadMessages(session.id)).messages;
    expect(expectWholeTurns(history).sort()).toEqual([...done].sort());
    expectRequestsAreStoreViews(
      first.filter((l) => l.type === 'request'),
      history,
    );

    const second = await round(
      [
        ['a5', 'a6', 'a7', 'a8'],
        ['b5', 'b6', 'b7', 'b8'],
      ],
      60_000,
    );
    expect(second.filter((l) => l.type !== 'request' && l.type !== 'ready')).toHaveLength(8);
    expect(second.filter((l) => l.type === 'done')).toHaveLength(8);
    history = (await store.loadMessages(session.id)).messages;
    const senders = expectWholeTurns(history);
    expect(senders).toHaveLength(done.length + 8);
    expect(senders.slice(done.length).sort()).toEqual(
      ['a5', 'a6', 'a7', 'a8', 'b5', 'b6', 'b7', 'b8'].sort(),
    );
    expectRequestsAreStoreViews(
      [...first, ...second].filter((l) => l.type === 'request'),
      history,
    );
    expect((await store.getSession(session.id))?.turn_lease).toBeUndefined();
  });

  it("a lease holder killed mid-stream: the session is refused while its heartbeat runs, taken after its TTL, and the killed turn's row finished", {
    // two child processes start (about 1 s each idle, 7 s and more on a loaded machine) besides
    // the test's own 5 s of lease waits: 30 s is too little for a machine running several suites
    timeout: 120_000,
  }, async () => {
    const shared = make();
    disposals.push(shared.dispose);
    const store = await shared.open();
    const session = await store.createSession({ workspace_path: '/w' });
    const lease = { ttlMs: 1_500, heartbeatMs: 300 };
    const holder = startSender(shared, {
      sessionId: session.id,
      names: ['holder'],
      stall: true,
      ...lease,
    });
    await holder.until('ready');
    holder.go();
    await holder.until('stalled');
    const [user, partial] = (await store.loadMessages(session.id)).messages;
    expect(partial?.metadata.status).toBe('partial');

    const requests: Reported[] = [];
    const manager = scriptedManager(
      store,
      { eventGapMs: 1, onRequest: (ids) => requests.push({ type: 'request', ids }) },
      lease,
    );
    // twice the TTL later the holder's heartbeat still keeps the session
    await sleep(2 * lease.ttlMs);
    await expect(manager.sendAndWait(session.id, 'turn of late')).rejects.toThrow(
      TurnInProgressError,
    );
    expect(requests).toEqual([]);

    holder.child.kill('SIGKILL');
    const killedAt = Date.now();
    await manager.sendAndWait(session.id, 'turn of late', { waitForTurn: { timeoutMs: 15_000 } });
    const waited = Date.now() - killedAt;
    // taken once the dead holder's TTL ran out, not at the wait's deadline; how much sooner is
    // the machine's (6.5 s seen on one running every suite at once)
    expect(waited).toBeLessThan(15_000);

    let history = (await store.loadMessages(session.id)).messages;
    expect(history.slice(0, 2).map((m) => m.id)).toEqual([user?.id, partial?.id]);
    const finished = history[1] as Message;
    expect(finished.metadata.status).toBe('error');
    expect(finished.metadata.error).toMatchObject({ rule: 'turn_lease_expired' });
    expect(expectWholeTurns(history.slice(2))).toEqual(['late']);
    expect((await store.getSession(session.id))?.turn_lease).toBeUndefined();

    // another process takes a turn; the history this manager keeps is reloaded for the next
    const other = startSender(shared, { sessionId: session.id, names: ['other'], ...lease });
    await other.until('ready');
    other.go();
    await other.finished();
    await manager.sendAndWait(session.id, 'turn of again');
    history = (await store.loadMessages(session.id)).messages;
    expect(expectWholeTurns(history.slice(2))).toEqual(['late', 'other', 'again']);
    expectRequestsAreStoreViews(requests, history);
    expect(requests.at(-2)?.ids).toEqual(history.slice(0, 11).map((m) => m.id));
  });
});

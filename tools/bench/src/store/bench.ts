import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type ContentBlock,
  epochMicrosToTimestamp,
  type Message,
  newMessageId,
  newSessionId,
  newToolUseId,
  nowEpochMicros,
  timestampToEpochMicros,
} from '@yourtool/core';
import { openStore, type SqlSessionStore } from '@yourtool/store';
import Database from 'better-sqlite3';
import pg from 'pg';
import {
  check,
  interleave,
  peakRss,
  type RunOptions,
  type ScenarioResult,
} from '../lib/harness.js';
import { buildSession } from '../lib/session.js';

/** The databases the store runs on. */
export type StoreDb = 'sqlite' | 'postgres';
/** The store operations measured. */
export const STORE_OPS = ['append-each', 'append-batch', 'load'] as const;
/** One of {@link STORE_OPS}. */
export type StoreOp = (typeof STORE_OPS)[number];

/** Messages per session. */
export const STORE_MESSAGES = 10_000;
/** Messages per `appendMessages` call (and per transaction of the batched baseline). */
export const STORE_BATCH = 500;

/**
 * PostgreSQL URL. `synchronous_commit=off` on both sides' connections: the commit then does not
 * wait for the WAL flush (2–3 ms on this machine's disk, the same for the store and raw pg),
 * like SQLite's default `synchronous=NORMAL` in WAL mode, so the figure shows the layer's cost
 * and the one-transaction-each case fits the time budget.
 */
export function postgresUrl(): string {
  const base = process.env.YOURTOOL_BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
  const url = new URL(base);
  url.searchParams.set('options', '-c synchronous_commit=off');
  return url.toString();
}

/** A copy of the template session with new message, session and tool ids (rows must be new). */
function cloneSession(template: readonly Message[], sessionId: string): Message[] {
  const toolIds = new Map<string, string>();
  const toolId = (id: string) => {
    let next = toolIds.get(id);
    if (!next) {
      next = newToolUseId();
      toolIds.set(id, next);
    }
    return next;
  };
  return template.map((m) => ({
    ...m,
    id: newMessageId(),
    session_id: sessionId,
    metadata: m.metadata.parent_tool_use_id
      ? { ...m.metadata, parent_tool_use_id: toolId(m.metadata.parent_tool_use_id) }
      : m.metadata,
    content: m.content.map((b): ContentBlock => {
      if (b.type === 'tool_use') return { ...b, id: toolId(b.id) };
      if (b.type === 'tool_result') return { ...b, tool_use_id: toolId(b.tool_use_id) };
      return b;
    }),
  }));
}

function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** The rows a message is stored as, exactly the columns the store writes. */
function rowsOf(message: Message) {
  const createdAt = timestampToEpochMicros(message.created_at);
  const provider = message.metadata.provider ?? null;
  const message_row = [
    message.id,
    message.session_id,
    message.role,
    JSON.stringify(message.content),
    JSON.stringify(message.metadata),
    createdAt,
    message.schema_version,
  ] as const;
  const calls: Array<readonly unknown[]> = [];
  const answers: Array<readonly unknown[]> = [];
  for (const block of message.content) {
    if (block.type === 'tool_use' && message.role === 'assistant') {
      // id, session_id, message_id, result_message_id, name, status, provider_id, provider,
      // created_at, completed_at
      calls.push([
        block.id,
        message.session_id,
        message.id,
        null,
        block.name,
        'pending',
        null,
        provider,
        createdAt,
        null,
      ]);
    } else if (block.type === 'tool_result' && message.role === 'tool') {
      answers.push([
        message.id,
        block.is_error ? 'failed' : 'succeeded',
        createdAt,
        block.tool_use_id,
        message.session_id,
      ]);
    }
  }
  return { message_row, calls, answers };
}

/** A message row read back, turned into a message the way any reader has to (parse the JSON). */
function messageOfRow(row: {
  id: string;
  session_id: string;
  role: string;
  content_json: string;
  metadata_json: string;
  created_at: number | string;
  schema_version: number;
}): Message {
  return {
    id: row.id,
    session_id: row.session_id,
    role: row.role as Message['role'],
    content: JSON.parse(row.content_json),
    metadata: JSON.parse(row.metadata_json),
    created_at: epochMicrosToTimestamp(Number(row.created_at)),
    schema_version: row.schema_version,
  };
}

const SELECT_SESSION =
  'select id, session_id, role, content_json, metadata_json, created_at, schema_version from messages where session_id = $1 order by created_at, id';
const INSERT_MESSAGE =
  'insert into messages (id, session_id, role, content_json, metadata_json, created_at, schema_version) values ';
const INSERT_CALL =
  'insert into tool_calls (id, session_id, message_id, result_message_id, name, status, provider_id, provider, created_at, completed_at) values ';
const ANSWER =
  'update tool_calls set result_message_id = $1, status = $2, completed_at = $3 where id = $4 and session_id = $5 and result_message_id is null';
const TOUCH = 'update sessions set updated_at = $1 where id = $2';
const INSERT_SESSION =
  'insert into sessions (id, workspace_path, active_model, routing_policy_json, schema_version, created_at, updated_at) values ($1, $2, null, null, 1, $3, $3)';

/** Raw better-sqlite3 or pg: the same rows with plain statements. */
interface RawDb {
  createSession(id: string): Promise<void> | void;
  /** Writes `messages` in one transaction. */
  write(messages: readonly Message[]): Promise<void> | void;
  load(sessionId: string): Promise<Message[]> | Message[];
  countMessages(sessionId: string): Promise<number> | number;
  countPending(sessionId: string): Promise<number> | number;
  close(): Promise<void> | void;
}

function rawSqlite(file: string): RawDb {
  const db = new Database(file);
  // the pragmas the store sets (docs/decisions/0017)
  db.pragma('busy_timeout = 5000');
  db.pragma('journal_mode = WAL');
  db.pragma('foreign_keys = ON');
  db.pragma('synchronous = NORMAL');
  const q = (sql: string) => sql.replace(/\$\d+/g, '?');
  const insertMessage = db.prepare(`${INSERT_MESSAGE}(?, ?, ?, ?, ?, ?, ?)`);
  const insertCall = db.prepare(`${INSERT_CALL}(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
  const answer = db.prepare(q(ANSWER));
  const touch = db.prepare(q(TOUCH));
  const insertSession = db.prepare(
    'insert into sessions (id, workspace_path, active_model, routing_policy_json, schema_version, created_at, updated_at) values (?, ?, null, null, 1, ?, ?)',
  );
  const select = db.prepare(q(SELECT_SESSION));
  const write = db.transaction((messages: readonly Message[]) => {
    for (const message of messages) {
      const rows = rowsOf(message);
      insertMessage.run(...rows.message_row);
      for (const call of rows.calls) insertCall.run(...call);
      for (const a of rows.answers) answer.run(...a);
    }
    touch.run(nowEpochMicros(), messages[0]?.session_id);
  });
  return {
    createSession: (id) => {
      const now = nowEpochMicros();
      insertSession.run(id, '/bench', now, now);
    },
    write: (messages) => write.immediate(messages),
    load: (sessionId) =>
      (select.all(sessionId) as Parameters<typeof messageOfRow>[0][]).map(messageOfRow),
    countMessages: (sessionId) =>
      (
        db.prepare('select count(*) as n from messages where session_id = ?').get(sessionId) as {
          n: number;
        }
      ).n,
    countPending: (sessionId) =>
      (
        db
          .prepare(
            "select count(*) as n from tool_calls where session_id = ? and status = 'pending'",
          )
          .get(sessionId) as { n: number }
      ).n,
    close: () => {
      db.close();
    },
  };
}

async function rawPostgres(url: string, schema: string): Promise<RawDb> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query(`set search_path to "${schema}"`);
  const values = (rows: ReadonlyArray<readonly unknown[]>, width: number) => {
    const params: unknown[] = [];
    const tuples = rows.map((row) => {
      const at = params.length;
      params.push(...row);
      return `(${Array.from({ length: width }, (_, i) => `$${at + i + 1}`).join(', ')})`;
    });
    return { sql: tuples.join(', '), params };
  };
  return {
    createSession: async (id) => {
      await client.query(INSERT_SESSION, [id, '/bench', nowEpochMicros()]);
    },
    write: async (messages) => {
      const all = messages.map(rowsOf);
      await client.query('begin');
      try {
        for (const batch of chunks(all, STORE_BATCH)) {
          const m = values(
            batch.map((r) => r.message_row),
            7,
          );
          await client.query(INSERT_MESSAGE + m.sql, m.params);
        }
        const calls = all.flatMap((r) => r.calls);
        for (const batch of chunks(calls, STORE_BATCH)) {
          const c = values(batch, 10);
          await client.query(INSERT_CALL + c.sql, c.params);
        }
        for (const a of all.flatMap((r) => r.answers)) await client.query(ANSWER, [...a]);
        await client.query(TOUCH, [nowEpochMicros(), messages[0]?.session_id]);
        await client.query('commit');
      } catch (error) {
        await client.query('rollback');
        throw error;
      }
    },
    load: async (sessionId) =>
      (await client.query(SELECT_SESSION, [sessionId])).rows.map(messageOfRow),
    countMessages: async (sessionId) =>
      Number(
        (
          await client.query('select count(*) as n from messages where session_id = $1', [
            sessionId,
          ])
        ).rows[0].n,
      ),
    countPending: async (sessionId) =>
      Number(
        (
          await client.query(
            "select count(*) as n from tool_calls where session_id = $1 and status = 'pending'",
            [sessionId],
          )
        ).rows[0].n,
      ),
    close: () => client.end(),
  };
}

/** Counts through the store's own kysely handle (for the sanity checks only). */
async function storeCounts(store: SqlSessionStore, sessionId: string) {
  const messages = await store.db
    .selectFrom('messages')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('session_id', '=', sessionId)
    .executeTakeFirstOrThrow();
  const pending = await store.db
    .selectFrom('tool_calls')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('session_id', '=', sessionId)
    .where('status', '=', 'pending')
    .executeTakeFirstOrThrow();
  return { messages: Number(messages.n), pending: Number(pending.n) };
}

/** The store benchmark of one operation on one database. */
export async function storeScenario(
  db: StoreDb,
  op: StoreOp,
  options: RunOptions,
): Promise<ScenarioResult> {
  const template = buildSession({ sessionId: 'sess_template', messages: STORE_MESSAGES });
  const tag = `bench_${process.pid}`;
  const dir = db === 'sqlite' ? mkdtempSync(join(tmpdir(), 'yourtool-bench-')) : '';
  const url = db === 'postgres' ? postgresUrl() : '';
  const oursSchema = `${tag}_store`;
  const rawSchema = `${tag}_raw`;
  const store =
    db === 'sqlite'
      ? await openStore(`sqlite:${join(dir, 'store.db')}`)
      : await openStore(url, { schema: oursSchema });
  // the raw side gets the store's own tables and indexes, created by its migrations
  await (db === 'sqlite'
    ? openStore(`sqlite:${join(dir, 'raw.db')}`)
    : openStore(url, { schema: rawSchema })
  ).then((s) => s.close());
  const raw = db === 'sqlite' ? rawSqlite(join(dir, 'raw.db')) : await rawPostgres(url, rawSchema);

  try {
    const pending: Record<'ours' | 'baseline', { sessionId: string; messages: Message[] }> = {
      ours: { sessionId: '', messages: [] },
      baseline: { sessionId: '', messages: [] },
    };
    const prepareAppend = async (variant: 'ours' | 'baseline') => {
      const sessionId = newSessionId();
      pending[variant] = { sessionId, messages: cloneSession(template, sessionId) };
      if (variant === 'ours')
        await store.createSession({ id: sessionId, workspace_path: '/bench' });
      else await raw.createSession(sessionId);
    };
    // a short untimed run of each side first, so both start warm
    for (const variant of ['ours', 'baseline'] as const) {
      if (options.only !== 'both' && options.only !== variant) continue;
      await prepareAppend(variant);
      const few = pending[variant].messages.slice(0, 200);
      if (variant === 'ours') for (const m of few) await store.appendMessage(m);
      else for (const m of few) await raw.write([m]);
    }

    let run: Record<'ours' | 'baseline', () => Promise<void>>;
    let prepare: ((variant: 'ours' | 'baseline') => Promise<void>) | undefined;
    const loaded: Partial<Record<'ours' | 'baseline', Message[]>> = {};
    let written: Record<'ours' | 'baseline', Message[]> | undefined;
    if (op === 'load') {
      const sessions = { ours: newSessionId(), baseline: newSessionId() };
      written = {
        ours: cloneSession(template, sessions.ours),
        baseline: cloneSession(template, sessions.baseline),
      };
      await store.createSession({ id: sessions.ours, workspace_path: '/bench' });
      for (const batch of chunks(written.ours, STORE_BATCH)) await store.appendMessages(batch);
      await raw.createSession(sessions.baseline);
      for (const batch of chunks(written.baseline, STORE_BATCH)) await raw.write(batch);
      run = {
        ours: async () => {
          const result = await store.loadMessages(sessions.ours);
          check(result.errors.length === 0, 'the store reported unreadable rows');
          loaded.ours = result.messages;
        },
        baseline: async () => {
          loaded.baseline = await raw.load(sessions.baseline);
        },
      };
    } else {
      prepare = prepareAppend;
      run =
        op === 'append-each'
          ? {
              ours: async () => {
                for (const m of pending.ours.messages) await store.appendMessage(m);
              },
              baseline: async () => {
                for (const m of pending.baseline.messages) await raw.write([m]);
              },
            }
          : {
              ours: async () => {
                for (const batch of chunks(pending.ours.messages, STORE_BATCH))
                  await store.appendMessages(batch);
              },
              baseline: async () => {
                for (const batch of chunks(pending.baseline.messages, STORE_BATCH))
                  await raw.write(batch);
              },
            };
    }
    const timings = await interleave({ ...options, warmup: 0 }, run, prepare);

    const checks: string[] = [];
    if (op === 'load' && written) {
      for (const variant of ['ours', 'baseline'] as const) {
        if (options.only !== 'both' && options.only !== variant) continue;
        const got = loaded[variant];
        check(got?.length === STORE_MESSAGES, `${variant} loaded ${got?.length} messages`);
        check(
          JSON.stringify(got) === JSON.stringify(written[variant]),
          `${variant}: the loaded messages differ from the written ones`,
        );
      }
      checks.push(
        `both sides loaded ${STORE_MESSAGES.toLocaleString('en-US')} messages equal to the ones written`,
      );
    } else {
      for (const variant of ['ours', 'baseline'] as const) {
        if (options.only !== 'both' && options.only !== variant) continue;
        const { sessionId } = pending[variant];
        const counts =
          variant === 'ours'
            ? await storeCounts(store, sessionId)
            : {
                messages: await raw.countMessages(sessionId),
                pending: await raw.countPending(sessionId),
              };
        check(counts.messages === STORE_MESSAGES, `${variant} stored ${counts.messages} messages`);
        check(counts.pending === 0, `${variant} left ${counts.pending} tool calls unanswered`);
      }
      checks.push(
        `both sides stored ${STORE_MESSAGES.toLocaleString('en-US')} message rows and their tool_calls rows, every call answered`,
      );
    }

    const ours = timings.ours.map((t) => t.wallMs);
    const baseline = timings.baseline.map((t) => t.wallMs);
    const what =
      op === 'append-each'
        ? `appendMessage × ${STORE_MESSAGES.toLocaleString('en-US')} (one transaction each)`
        : op === 'append-batch'
          ? `appendMessages × ${STORE_MESSAGES / STORE_BATCH} (batches of ${STORE_BATCH})`
          : `loadMessages of a ${STORE_MESSAGES.toLocaleString('en-US')}-message session`;
    const rawWhat =
      op === 'load'
        ? `raw ${db === 'sqlite' ? 'better-sqlite3' : 'pg'} select of the same rows + JSON.parse of the two JSON columns`
        : `raw ${db === 'sqlite' ? 'better-sqlite3 prepared statements' : 'pg statements (multi-row inserts)'} writing the same rows (message, tool_calls, answers, session updated_at)${op === 'append-each' ? ', one transaction per message' : `, ${STORE_BATCH} messages a transaction`}`;
    return {
      id: `store/${db}/${op}`,
      group: 'store',
      title: `${db}: ${what}`,
      baseline: rawWhat,
      measurements: [{ metric: 'wall ms', ours, baseline, higherIsBetter: false }],
      checks,
      notes:
        db === 'postgres' ? ['synchronous_commit=off on both sides (see docs/performance.md)'] : [],
      maxRssBytes: peakRss(),
    };
  } finally {
    await store.close();
    await raw.close();
    if (db === 'sqlite') rmSync(dir, { recursive: true, force: true });
    else {
      const admin = new pg.Client({ connectionString: url });
      await admin.connect();
      await admin.query(`drop schema if exists "${oursSchema}" cascade`);
      await admin.query(`drop schema if exists "${rawSchema}" cascade`);
      await admin.end();
    }
  }
}

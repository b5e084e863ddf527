import { createMessage, type Message, newToolUseId, ToolIdMap } from '@yourtool/core';
import type {
  KyselyPlugin,
  PluginTransformQueryArgs,
  PluginTransformResultArgs,
  QueryResult,
  RootOperationNode,
  UnknownRow,
} from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DuplicateSessionError,
  InvalidStoreInputError,
  parseSessionLines,
  SessionNotExportableError,
  SessionNotFoundError,
  type SqlSessionStore,
  StoreDriverError,
  sessionToLines,
} from '../src/index.js';
import { FailingQueries } from './helpers/failing-queries.js';
import { assistantWithTools, MODEL, toolAnswer, usage, userText } from './helpers/messages.js';
import { type Target, targets } from './helpers/targets.js';

/** Makes `delete from <table>` fail, to prove a delete is one transaction. */
class FailingDeletes implements KyselyPlugin {
  table: string | undefined;
  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    if (this.table && args.node.kind === 'DeleteQueryNode') {
      if (JSON.stringify(args.node).includes(`"name":"${this.table}"`)) {
        throw new Error(`injected failure deleting from ${this.table}`);
      }
    }
    return args.node;
  }
  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return args.result;
  }
}

/**
 * A session with everything a row can hold: a routing policy and a sticky model; a tool call
 * answered, one failed, one cancelled with its reply (no answer); provider ids; an unknown metadata
 * field; unicode; an errored reply.
 */
async function richSession(store: SqlSessionStore): Promise<string> {
  const session = await store.createSession({
    workspace_path: '/work/ünïcode ✓',
    active_model: MODEL,
    routing_policy: { mode: 'manual', nested: { list: [1, 2.5, 'x', null, true] } },
  });
  const id = session.id;
  const map = new ToolIdMap();
  const read = map.toCanonical('anthropic', 'toolu_01READ');
  const write = map.toCanonical('anthropic', 'toolu_01WRITE');
  const first = assistantWithTools(id, [
    { id: read, name: 'read_file', input: { path: 'a.md', z: 1, a: { b: [1, { c: 'd' }] } } },
    { id: write, name: 'write_file', input: { path: 'b.md', text: 'emoji 🎉 and "quotes"' } },
  ]);
  const withExtra = {
    ...first,
    metadata: { ...first.metadata, x_custom_field: { kept: true } },
  } as Message;
  await store.appendMessage(userText(id, 'Read a.md, then write b.md'));
  await store.appendMessage(withExtra, { toolIdMap: map });
  await store.appendMessage(toolAnswer(id, read, '# A'));
  await store.appendMessage(toolAnswer(id, write, 'permission denied', true));
  const pending = newToolUseId();
  await store.appendMessage(
    createMessage({
      session_id: id,
      role: 'assistant',
      content: [{ type: 'tool_use', id: pending, name: 'read_file', input: {} }],
      metadata: { status: 'cancelled', model: MODEL, provider: 'anthropic', usage: usage() },
    }),
  );
  await store.appendMessage(
    createMessage({
      session_id: id,
      role: 'assistant',
      content: [{ type: 'text', text: 'partial' }],
      metadata: {
        status: 'error',
        model: MODEL,
        provider: 'anthropic',
        error: { rule: 'server_error', message: 'overloaded' },
      },
    }),
  );
  return id;
}

/** Rows of a session in every table, by session id and by its message ids. */
async function rowsOf(store: SqlSessionStore, sessionId: string, messageIds: string[]) {
  const count = async (query: Promise<Array<{ n: number | string | bigint }>>) =>
    Number((await query)[0]?.n ?? 0);
  const db = store.db;
  const ids = messageIds.length > 0 ? messageIds : [''];
  return {
    sessions: await count(
      db
        .selectFrom('sessions')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('id', '=', sessionId)
        .execute(),
    ),
    messages: await count(
      db
        .selectFrom('messages')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where((eb) => eb.or([eb('session_id', '=', sessionId), eb('id', 'in', ids)]))
        .execute(),
    ),
    tool_calls: await count(
      db
        .selectFrom('tool_calls')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where((eb) =>
          eb.or([
            eb('session_id', '=', sessionId),
            eb('message_id', 'in', ids),
            eb('result_message_id', 'in', ids),
          ]),
        )
        .execute(),
    ),
  };
}

describe.each(targets())('sessions in and out on $name', ({ make }) => {
  const source: Target = make();
  const target: Target = make();
  const deletes = new FailingDeletes();
  const inserts = new FailingQueries();
  let store: SqlSessionStore;
  let empty: SqlSessionStore;

  beforeAll(async () => {
    store = await source.open({ plugins: [deletes] });
    empty = await target.open({ plugins: [inserts] });
  });
  afterAll(async () => {
    await store?.close();
    await empty?.close();
    await source.dispose();
    await target.dispose();
  });

  it('export → import into an empty store → export is byte-identical', async () => {
    const id = await richSession(store);
    const exported = await store.exportSession(id);
    expect(exported.messages).toHaveLength(6);
    expect(exported.tool_calls.map((c) => c.status)).toEqual(['succeeded', 'failed', 'cancelled']);
    expect(exported.session).not.toHaveProperty('revision');
    const lines = sessionToLines(exported);
    expect(lines.split('\n')).toHaveLength(1 + 6 + 3 + 1);

    const [parsed] = parseSessionLines(lines);
    const imported = await empty.importSession(parsed as NonNullable<typeof parsed>);
    expect(imported).toMatchObject({ id, created_at: exported.session.created_at });
    expect(sessionToLines(await empty.exportSession(id))).toBe(lines);
    // what the store reads back is the same too
    expect((await empty.loadMessages(id)).messages).toEqual(
      (await store.loadMessages(id)).messages,
    );
    expect(await empty.listToolCalls(id)).toEqual(await store.listToolCalls(id));
    expect(
      (await empty.loadToolIdMap(id)).getProviderId('anthropic', exported.tool_calls[0]?.id ?? ''),
    ).toBe('toolu_01READ');
    expect(await empty.sessionStats(id)).toEqual(await store.sessionStats(id));
    // the imported session takes new turns like any other
    await empty.appendMessage(userText(id, 'and now?'));
    expect((await empty.getSession(id))?.revision).toBe(2);
  });

  it('carries the user, tenant and tags through session lines and back', async () => {
    const owned = await store.createSession({
      workspace_path: '/w',
      user: 'ann',
      tenant: 'acme',
      tags: ['agent:triage', 'beta'],
    });
    await store.appendMessage(userText(owned.id, 'hello'));
    const lines = sessionToLines(await store.exportSession(owned.id));
    const [record] = lines.split('\n');
    expect(JSON.parse(record ?? '{}').session).toMatchObject({
      user: 'ann',
      tenant: 'acme',
      tags: ['agent:triage', 'beta'],
    });
    const [parsed] = parseSessionLines(lines);
    await empty.importSession(parsed as NonNullable<typeof parsed>);
    expect(await empty.getSession(owned.id)).toMatchObject({
      user: 'ann',
      tenant: 'acme',
      tags: ['agent:triage', 'beta'],
    });
    expect(sessionToLines(await empty.exportSession(owned.id))).toBe(lines);
    const bad = { ...(parsed as NonNullable<typeof parsed>) };
    bad.session = { ...bad.session, id: 'ses_owner_bad', tags: ['ok', ''] } as typeof bad.session;
    const failure = await empty.importSession(bad).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(InvalidStoreInputError);
    expect((failure as Error).message).toContain('session.tags[1]');
  });

  it('refuses an import whose session is stored already, writing nothing', async () => {
    const id = await richSession(store);
    const exported = await store.exportSession(id);
    await expect(store.importSession(exported)).rejects.toBeInstanceOf(DuplicateSessionError);
    const other = { ...exported, session: { ...exported.session, id: 'sess_other' } };
    // same message ids, another session id: the messages are refused
    await expect(store.importSession(other)).rejects.toThrow(/session_id|already stored/);
    expect(await store.getSession('sess_other')).toBeNull();
  });

  it('checks every field before writing and names each problem', async () => {
    const id = await richSession(store);
    const exported = await store.exportSession(id);
    const broken = {
      session: { ...exported.session, id: 'sess_broken', created_at: 'yesterday' },
      messages: exported.messages.map((m) => ({ ...m, session_id: 'sess_broken' })),
      tool_calls: [
        { ...exported.tool_calls[0], session_id: 'sess_broken', status: 'exploded' },
        { ...exported.tool_calls[1], session_id: 'sess_broken', message_id: 'msg_nope' },
      ],
    } as typeof exported;
    const error = await empty.importSession(broken).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidStoreInputError);
    const paths = (error as InvalidStoreInputError).issues.map((i) => i.path);
    expect(paths).toEqual(
      expect.arrayContaining([
        'session.created_at',
        'tool_calls[0].status',
        'tool_calls[1].message_id',
        expect.stringMatching(/^messages \(/), // the cancelled reply's tool use has no tool call now
      ]),
    );
    expect(await empty.getSession('sess_broken')).toBeNull();
  });

  it('imports in one transaction: a failing tool_calls insert leaves nothing', async () => {
    const id = await richSession(store);
    const exported = await store.exportSession(id);
    inserts.failOn('insert', 'tool_calls');
    try {
      await expect(empty.importSession(exported)).rejects.toBeInstanceOf(StoreDriverError);
    } finally {
      inserts.reset();
    }
    expect(
      await rowsOf(
        empty,
        id,
        exported.messages.map((m) => m.id),
      ),
    ).toEqual({
      sessions: 0,
      messages: 0,
      tool_calls: 0,
    });
  });

  it('deletes every row of the session in every table, and nothing of another', async () => {
    const id = await richSession(store);
    const keep = await richSession(store);
    const messageIds = (await store.loadMessages(id)).messages.map((m) => m.id);
    const before = await rowsOf(store, keep, []);
    expect(await store.deleteSession(id)).toEqual({ session_id: id, messages: 6, tool_calls: 3 });
    expect(await rowsOf(store, id, messageIds)).toEqual({
      sessions: 0,
      messages: 0,
      tool_calls: 0,
    });
    expect(await rowsOf(store, keep, [])).toEqual(before);
    await expect(store.deleteSession(id)).rejects.toBeInstanceOf(SessionNotFoundError);
  });

  it('deletes in one transaction: a failure half-way deletes nothing', async () => {
    const id = await richSession(store);
    const lines = sessionToLines(await store.exportSession(id));
    deletes.table = 'sessions'; // after tool_calls and messages were deleted
    try {
      await expect(store.deleteSession(id)).rejects.toBeInstanceOf(StoreDriverError);
    } finally {
      deletes.table = undefined;
    }
    expect(sessionToLines(await store.exportSession(id))).toBe(lines);
  });

  it('refuses to export a message it would read only in part', async () => {
    const id = (await store.createSession({ workspace_path: '/w' })).id;
    const message = userText(id, 'hello');
    await store.appendMessage(message);
    const row = await store.db
      .selectFrom('messages')
      .select('content_json')
      .where('id', '=', message.id)
      .executeTakeFirstOrThrow();
    const content = [...JSON.parse(row.content_json), { type: 'hologram', data: 'x' }];
    await store.db
      .updateTable('messages')
      .set({ content_json: JSON.stringify(content) })
      .where('id', '=', message.id)
      .execute();
    const error = await store.exportSession(id).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SessionNotExportableError);
    expect((error as SessionNotExportableError).messageId).toBe(message.id);
    await expect(store.exportSession('sess_missing')).rejects.toBeInstanceOf(SessionNotFoundError);
  });
});

describe('sessions across dialects', () => {
  it('SQLite → PostgreSQL → SQLite gives the same bytes', async () => {
    const [sqlite, postgres, again] = [targets()[0], targets()[1], targets()[0]].map((t) =>
      t?.make(),
    ) as [Target, Target, Target];
    const stores = [await sqlite.open(), await postgres.open(), await again.open()];
    try {
      const [a, b, c] = stores as [SqlSessionStore, SqlSessionStore, SqlSessionStore];
      const id = await richSession(a);
      const lines = sessionToLines(await a.exportSession(id));
      for (const [from, to] of [
        [a, b],
        [b, c],
      ] as const) {
        const [data] = parseSessionLines(sessionToLines(await from.exportSession(id)));
        await to.importSession(data as NonNullable<typeof data>);
        expect(sessionToLines(await to.exportSession(id))).toBe(lines);
      }
    } finally {
      await Promise.all(stores.map((s) => s.close()));
      await Promise.all([sqlite, postgres, again].map((t) => t.dispose()));
    }
  });
});

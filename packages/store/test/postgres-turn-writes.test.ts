import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SessionNotFoundError } from '../src/index.js';
import { postgresTarget } from './helpers/targets.js';
import { messagesFor, passThrough, rowsOf, tourOf } from './helpers/turn-tour.js';

/**
 * A turn's writes on PostgreSQL without plugins (issue 50): the plain append, the tool message
 * with its answers, the finishing update and a session's first reads are one statement each, and leave exactly the rows,
 * revisions and leases the kysely path (a store with a plugin) leaves.
 */

const sent: string[] = [];
/** The names of the statements sent as prepared statements, while counting. */
const named: string[] = [];
let counting = false;
let restore = () => {};

beforeAll(() => {
  const pg = createRequire(import.meta.url)('pg') as { Client: { prototype: object } };
  const proto = pg.Client.prototype as { query: (...args: unknown[]) => unknown };
  const original = proto.query;
  proto.query = function (this: unknown, ...args: unknown[]) {
    const first = args[0] as string | { text?: string; name?: string };
    if (counting) sent.push(typeof first === 'string' ? first : String(first?.text));
    if (counting && typeof first === 'object' && first.name) named.push(first.name);
    return original.apply(this, args);
  };
  restore = () => {
    proto.query = original;
  };
});
afterAll(() => restore());

describe('PostgreSQL: a turn in single statements', () => {
  it('the rows and revisions of the kysely path, in fewer round trips', async () => {
    const fastTarget = postgresTarget();
    const kyselyTarget = postgresTarget();
    const fast = await fastTarget.open();
    const viaKysely = await kyselyTarget.open({ plugins: [passThrough] });
    try {
      const sessionId = 'sess_pg_turn';
      await fast.createSession({ id: sessionId, workspace_path: '/w' });
      await viaKysely.createSession({ id: sessionId, workspace_path: '/w' });
      const messages = messagesFor(sessionId);
      const counted = async (run: () => Promise<number[]>) => {
        sent.length = 0;
        counting = true;
        try {
          return { revisions: await run(), statements: [...sent] };
        } finally {
          counting = false;
        }
      };
      named.length = 0;
      const a = await counted(() => tourOf(fast, sessionId, messages));
      // the store's fixed statements go as server-side prepared statements; kysely's do not
      expect(named).toHaveLength(6);
      expect(named.every((n) => n.startsWith('yourtool_store_'))).toBe(true);
      named.length = 0;
      const b = await counted(() => tourOf(viaKysely, sessionId, messages));
      expect(named).toEqual([]);
      expect(a.revisions).toEqual(b.revisions);
      expect(a.revisions).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
      // six writes in one statement each: the appends (plain, answers) and the finishing update
      const single = a.statements.filter((t) => t.startsWith('with '));
      expect(single.map((t) => /^with "(\w+)"/.exec(t)?.[1])).toEqual([
        'touched',
        'touched',
        'touched',
        'touched',
        'touched',
        'target',
      ]);
      expect(b.statements.filter((t) => t.startsWith('with '))).toEqual([]);
      expect(a.statements.length).toBeLessThanOrEqual(b.statements.length - 20);
      expect(await rowsOf(fast, sessionId)).toEqual(await rowsOf(viaKysely, sessionId));
    } finally {
      await fast.close();
      await viaKysely.close();
      await fastTarget.dispose();
      await kyselyTarget.dispose();
    }
  });

  it("a session's history and tool id map in one statement each, as the kysely path reads them", async () => {
    const fastTarget = postgresTarget();
    const kyselyTarget = postgresTarget();
    const fast = await fastTarget.open();
    const viaKysely = await kyselyTarget.open({ plugins: [passThrough] });
    try {
      const sessionId = 'sess_pg_reads';
      for (const store of [fast, viaKysely]) {
        await store.createSession({ id: sessionId, workspace_path: '/w' });
        await store.createSession({ id: 'sess_pg_empty', workspace_path: '/w' });
      }
      const messages = messagesFor(sessionId);
      await tourOf(fast, sessionId, messages);
      await tourOf(viaKysely, sessionId, messages);
      sent.length = 0;
      counting = true;
      let history: Awaited<ReturnType<typeof fast.loadMessages>>;
      let map: Awaited<ReturnType<typeof fast.loadToolIdMap>>;
      try {
        history = await fast.loadMessages(sessionId);
        map = await fast.loadToolIdMap(sessionId);
      } finally {
        counting = false;
      }
      expect(sent).toHaveLength(2);
      expect(named.slice(-2)).toEqual([
        expect.stringMatching(/^yourtool_store_/),
        expect.stringMatching(/^yourtool_store_/),
      ]);
      expect(history).toEqual(await viaKysely.loadMessages(sessionId));
      // eight writes, two of them updates of a streamed reply
      expect(history.messages).toHaveLength(6);
      expect(map).toEqual(await viaKysely.loadToolIdMap(sessionId));
      expect(map.size).toBe(1);
      // the session row every turn starts with: one prepared statement, the kysely path's record
      sent.length = 0;
      named.length = 0;
      counting = true;
      let row: Awaited<ReturnType<typeof fast.getSession>>;
      try {
        row = await fast.getSession(sessionId);
      } finally {
        counting = false;
      }
      expect(sent).toHaveLength(1);
      expect(named).toEqual([expect.stringMatching(/^yourtool_store_/)]);
      const clockless = (r: typeof row) => r && { ...r, created_at: '', updated_at: '' };
      expect(clockless(row)).toEqual(clockless(await viaKysely.getSession(sessionId)));
      expect(row?.revision).toBe(9);
      expect(await fast.getSession('sess_none')).toBeNull();
      expect(await fast.loadMessages('sess_pg_empty')).toEqual({ messages: [], errors: [] });
      expect((await fast.loadToolIdMap('sess_pg_empty')).size).toBe(0);
      await expect(fast.loadMessages('sess_none')).rejects.toBeInstanceOf(SessionNotFoundError);
      await expect(fast.loadToolIdMap('sess_none')).rejects.toBeInstanceOf(SessionNotFoundError);
    } finally {
      await fast.close();
      await viaKysely.close();
      await fastTarget.dispose();
      await kyselyTarget.dispose();
    }
  });
});

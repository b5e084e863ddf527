import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresTarget } from './helpers/targets.js';
import { messagesFor, passThrough, rowsOf, tourOf } from './helpers/turn-tour.js';

/**
 * A turn's writes on PostgreSQL without plugins (issue 50): the plain append, the tool message
 * with its answers and the finishing update are one statement each, and leave exactly the rows,
 * revisions and leases the kysely path (a store with a plugin) leaves.
 */

const sent: string[] = [];
let counting = false;
let restore = () => {};

beforeAll(() => {
  const pg = createRequire(import.meta.url)('pg') as { Client: { prototype: object } };
  const proto = pg.Client.prototype as { query: (...args: unknown[]) => unknown };
  const original = proto.query;
  proto.query = function (this: unknown, ...args: unknown[]) {
    const first = args[0] as string | { text?: string };
    if (counting) sent.push(typeof first === 'string' ? first : String(first?.text));
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
      const a = await counted(() => tourOf(fast, sessionId, messages));
      const b = await counted(() => tourOf(viaKysely, sessionId, messages));
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
});

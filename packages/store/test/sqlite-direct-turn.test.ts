import { createRequire } from 'node:module';
import {
  createMessage,
  type Message,
  sealMessage,
  ToolIdMap,
  TurnLeaseLostError,
} from '@yourtool/core';
import type { KyselyPlugin } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DuplicateToolCallError,
  InvalidStoreInputError,
  MessageNotFoundError,
  SessionNotFoundError,
  type SqlSessionStore,
} from '../src/index.js';
import { assistantWithTools, MODEL, toolAnswer, toolUseIds, userText } from './helpers/messages.js';
import { sqliteTarget } from './helpers/targets.js';
import { messagesFor, passThrough, rowsOf, tourOf } from './helpers/turn-tour.js';

/**
 * A whole turn on SQLite, the tool turn included, runs on prepared statements (issue 50): no
 * statement of it goes through kysely, and it leaves exactly the rows, revisions and errors the
 * kysely path (a store with a plugin) leaves.
 */

/** Statements run while counting, and whether kysely ran them. */
const ran: Array<{ sql: string; kysely: boolean }> = [];
let counting = false;
const restores: Array<() => void> = [];

beforeAll(() => {
  const Database = createRequire(import.meta.url)('better-sqlite3') as new (
    file: string,
  ) => { prepare(sql: string): object; close(): void };
  const probe = new Database(':memory:');
  const proto = Object.getPrototypeOf(probe.prepare('select 1')) as Record<
    string,
    (...args: unknown[]) => unknown
  >;
  probe.close();
  for (const method of ['run', 'all', 'get', 'iterate']) {
    const original = proto[method] as (...args: unknown[]) => unknown;
    proto[method] = function (this: { source: string }, ...args: unknown[]) {
      if (counting) ran.push({ sql: this.source, kysely: /[/\\]kysely[/\\]/.test(stackText()) });
      return original.apply(this, args);
    };
    restores.push(() => {
      proto[method] = original;
    });
  }
});
afterAll(() => {
  for (const restore of restores.splice(0)) restore();
});

function stackText(): string {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 50;
  const text = new Error().stack ?? '';
  Error.stackTraceLimit = limit;
  return text;
}

describe('SQLite: a turn on prepared statements', () => {
  it('runs no statement through kysely, and leaves the rows and revisions of the kysely path', async () => {
    const directTarget = sqliteTarget();
    const kyselyTarget = sqliteTarget();
    const direct = await directTarget.open();
    const viaKysely = await kyselyTarget.open({ plugins: [passThrough] });
    try {
      const sessionId = 'sess_direct_turn';
      await direct.createSession({ id: sessionId, workspace_path: '/w' });
      await viaKysely.createSession({ id: sessionId, workspace_path: '/w' });
      const messages = messagesFor(sessionId);
      ran.length = 0;
      counting = true;
      let directRevisions: number[];
      try {
        directRevisions = await tourOf(direct, sessionId, messages);
        await direct.loadMessages(sessionId);
        await direct.loadToolIdMap(sessionId);
      } finally {
        counting = false;
      }
      expect(ran.filter((r) => r.kysely).map((r) => r.sql)).toEqual([]);
      expect(ran.length).toBeGreaterThan(20);
      ran.length = 0;
      counting = true;
      let kyselyRevisions: number[];
      try {
        kyselyRevisions = await tourOf(viaKysely, sessionId, messages);
      } finally {
        counting = false;
      }
      // the probe tells kysely's statements apart: the plugin's store runs every one through it
      expect(ran.length).toBeGreaterThan(20);
      expect(ran.every((r) => r.kysely)).toBe(true);
      expect(directRevisions).toEqual(kyselyRevisions);
      expect(directRevisions).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
      const [a, b] = await Promise.all([rowsOf(direct, sessionId), rowsOf(viaKysely, sessionId)]);
      expect(a).toEqual(b);
      expect(a.session).toEqual({ revision: 9, turn_lease_id: null, turn_lease_expires_at: null });
      expect(a.tool_calls.map((c) => [c.name, c.status, c.provider_id !== null])).toEqual([
        ['ls', 'succeeded', false],
        ['grep', 'pending', false],
        ['cat', 'cancelled', true],
      ]);
      expect(await direct.loadToolIdMap(sessionId)).toEqual(
        await viaKysely.loadToolIdMap(sessionId),
      );
    } finally {
      await direct.close();
      await viaKysely.close();
      await directTarget.dispose();
      await kyselyTarget.dispose();
    }
  });

  it('fails as the kysely path does, and a failed write leaves nothing behind', async () => {
    const target = sqliteTarget();
    const store = await target.open();
    try {
      const { id } = await store.createSession({ workspace_path: '/w' });
      const first = assistantWithTools(id, [{ id: 'toolu_dup', name: 'ls' }]);
      await store.appendMessage(first);
      const before = await rowsOf(store, id);
      // the message row is written before the duplicate call is found: both roll back
      const again = assistantWithTools(id, [{ id: 'toolu_dup', name: 'ls' }]);
      await expect(store.appendMessage(again)).rejects.toBeInstanceOf(DuplicateToolCallError);
      await expect(store.updateMessage(again)).rejects.toBeInstanceOf(MessageNotFoundError);
      const asUser = { ...userText(id, 'x'), id: first.id };
      const error = await store.updateMessage(asUser).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(InvalidStoreInputError);
      expect((error as InvalidStoreInputError).issues).toEqual([
        { path: 'role', message: 'is "assistant" in the store' },
      ]);
      const lost = { id: 'turn_x', ttlMs: 1000 };
      await expect(store.renewTurnLease(id, lost)).rejects.toBeInstanceOf(TurnLeaseLostError);
      await expect(store.renewTurnLease('sess_none', lost)).rejects.toBeInstanceOf(
        SessionNotFoundError,
      );
      await expect(store.updateMessage(first, { lease: { hold: lost } })).rejects.toBeInstanceOf(
        TurnLeaseLostError,
      );
      await expect(store.loadMessages('sess_none')).rejects.toBeInstanceOf(SessionNotFoundError);
      await expect(store.loadToolIdMap('sess_none')).rejects.toBeInstanceOf(SessionNotFoundError);
      expect(await rowsOf(store, id)).toEqual(before);
    } finally {
      await store.close();
      await target.dispose();
    }
  });
});

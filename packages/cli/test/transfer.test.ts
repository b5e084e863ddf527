import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { openStore } from '@yourtool/store';
import type { ScriptedProvider } from '@yourtool/testing';
import { testPostgresUrl } from '@yourtool/testkit/postgres';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run, seedStore, startScriptedProvider, workspace } from './helpers.js';

let provider: ScriptedProvider;
let dir: { dir: string; dispose(): void };
const schemas: string[] = [];

beforeAll(async () => {
  provider = await startScriptedProvider();
  dir = workspace();
});
afterAll(async () => {
  await provider.close();
  dir.dispose();
  const admin = await openStore(testPostgresUrl(), { migrate: false });
  try {
    for (const schema of schemas) {
      await sql`drop schema if exists ${sql.id(schema)} cascade`.execute(admin.db);
    }
  } finally {
    await admin.close();
  }
});

let counter = 0;
/** A new, empty store URL on each dialect (a SQLite file; a PostgreSQL schema of its own). */
const stores = {
  sqlite: () => `sqlite:${join(dir.dir, `store-${++counter}.db`)}`,
  postgres: () => {
    const schema = `yt_cli_${process.pid}_${Date.now().toString(36)}_${++counter}`;
    schemas.push(schema);
    const url = new URL(testPostgresUrl());
    url.searchParams.set('schema', schema);
    return url.toString();
  },
};

/** Rows left of a session, in each table, by its id and its message ids. */
async function rowsLeft(url: string, sessionId: string, messageIds: string[]) {
  const store = await openStore(url);
  try {
    const count = async (
      table: 'sessions' | 'messages' | 'tool_calls',
      column: string,
      ids: string[],
    ) => {
      const found = await store.db
        .selectFrom(table)
        .select('id')
        .where(sql.ref(column), 'in', ids.length > 0 ? ids : [''])
        .execute();
      return found.length;
    };
    return {
      sessions: await count('sessions', 'id', [sessionId]),
      messages:
        (await count('messages', 'session_id', [sessionId])) +
        (await count('messages', 'id', messageIds)),
      tool_calls:
        (await count('tool_calls', 'session_id', [sessionId])) +
        (await count('tool_calls', 'message_id', messageIds)) +
        (await count('tool_calls', 'result_message_id', messageIds)),
    };
  } finally {
    await store.close();
  }
}

describe.each(['sqlite', 'postgres'] as const)(
  'sessions export, import and delete on %s',
  (dialect) => {
    it('export → import into an empty store → export is byte-identical', async () => {
      const source = stores[dialect]();
      const [first, second] = (await seedStore(provider, source)) as [string, string];
      const exported = await run(['sessions', 'export', '--all', '--store', source], dir.dir);
      expect(exported.code).toBe(0);
      expect(exported.stderr).toBe('');
      expect(exported.stdout.split('\n').filter((l) => l.startsWith('{"format"'))).toHaveLength(2);

      const target = stores[dialect]();
      const imported = await run(['sessions', 'import', '--create', '--store', target], dir.dir, {
        input: exported.stdout,
      });
      expect(imported.code).toBe(0);
      expect(imported.stdout).toBe(
        `imported ${first} (4 messages, 1 tool calls)\nimported ${second} (2 messages, 0 tool calls)\n`,
      );
      const again = await run(['sessions', 'export', '--all', '--store', target], dir.dir);
      expect(again.stdout).toBe(exported.stdout);

      // by id, through a file, and into the other dialect
      const file = join(dir.dir, `one-${dialect}.jsonl`);
      await run(['sessions', 'export', first, '-o', file, '--store', target], dir.dir);
      const other = stores[dialect === 'sqlite' ? 'postgres' : 'sqlite']();
      expect(
        (await run(['sessions', 'import', file, '--create', '--store', other], dir.dir)).code,
      ).toBe(0);
      const crossed = await run(['sessions', 'export', first, '--store', other], dir.dir);
      expect(crossed.stdout).toBe(readFileSync(file, 'utf8'));

      // a second import of the same sessions is refused, and says why
      const twice = await run(['sessions', 'import', file, '--store', other], dir.dir);
      expect(twice.code).toBe(1);
      expect(twice.stderr).toBe(
        `yourtool: 1 session of ${file} is in the store already (${first}): pass --skip-existing to keep what is stored or --replace to overwrite it; nothing was imported\n`,
      );
    });

    it('delete removes every row of the session in every table, in one go', async () => {
      const url = stores[dialect]();
      const [first, second] = (await seedStore(provider, url)) as [string, string];
      const store = await openStore(url);
      const messageIds = (await store.loadMessages(first)).messages.map((m) => m.id);
      await store.close();

      const unconfirmed = await run(['sessions', 'delete', first, '--store', url], dir.dir);
      expect(unconfirmed.code).toBe(2);
      expect(unconfirmed.stderr).toMatch(/pass --yes/);

      const deleted = await run(['sessions', 'delete', first, '--yes', '--store', url], dir.dir);
      expect(deleted.code).toBe(0);
      expect(deleted.stdout).toBe(`deleted ${first} (4 messages, 1 tool calls)\n`);
      expect(await rowsLeft(url, first, messageIds)).toEqual({
        sessions: 0,
        messages: 0,
        tool_calls: 0,
      });
      expect(await rowsLeft(url, second, [])).toEqual({ sessions: 1, messages: 2, tool_calls: 0 });

      const gone = await run(['sessions', 'delete', first, '--yes', '--store', url], dir.dir);
      expect(gone.code).toBe(1);
      expect(gone.stderr).toMatch(/^yourtool: no session "sess_\w+" in /);
    });
  },
);

describe('sessions import', () => {
  it('names the line of a malformed input, imports nothing from it', async () => {
    const url = stores.sqlite();
    const bad =
      '{"format":"yourtool.session","record":"session","session":{},"version":1}\nnot json\n';
    const result = await run(['sessions', 'import', '--store', url], dir.dir, { input: bad });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^yourtool: invalid session lines: line 2: not valid JSON/);
  });
});

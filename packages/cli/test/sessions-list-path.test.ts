import { join } from 'node:path';
import { openStore } from '@yourtool/store';
import type { ScriptedProvider } from '@yourtool/testing';
import { testPostgresUrl } from '@yourtool/testkit/postgres';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run, seedStore, startScriptedProvider, workspace } from './helpers.js';

// `sessions list` on a SQLite file reads it through `@yourtool/store/listing`, every other store
// through the whole store (docs/decisions/0197): the same sessions copied into PostgreSQL print
// the same table both ways (an import raises revisions, so not the same JSON), and the JSON is
// the store's own `listSessions` on the file, page after page.

let provider: ScriptedProvider;
let dir: { dir: string; dispose(): void };
let sqlite: string;
let postgres: string;
const schema = `yt_cli_list_${process.pid}_${Date.now().toString(36)}`;

beforeAll(async () => {
  provider = await startScriptedProvider();
  dir = workspace();
  sqlite = `sqlite:${join(dir.dir, 'sessions.db')}`;
  await seedStore(provider, sqlite);
  const store = await openStore(sqlite);
  try {
    for (let i = 0; i < 7; i++) {
      await store.createSession({
        workspace_path: `/work/${i % 2 === 0 ? 'foo' : 'baz'}`,
        ...(i === 3 ? { user: 'ada', tags: ['nightly'] } : {}),
      });
    }
  } finally {
    await store.close();
  }
  const url = new URL(testPostgresUrl());
  url.searchParams.set('schema', schema);
  postgres = url.toString();
  const exported = await run(['sessions', 'export', '--all', '--store', sqlite], dir.dir);
  expect(exported.code).toBe(0);
  const imported = await run(['sessions', 'import', '--create', '--store', postgres], dir.dir, {
    input: exported.stdout,
  });
  expect(imported.code).toBe(0);
});
afterAll(async () => {
  await provider.close();
  dir.dispose();
  const admin = await openStore(testPostgresUrl(), { migrate: false });
  try {
    await sql`drop schema if exists ${sql.id(schema)} cascade`.execute(admin.db);
  } finally {
    await admin.close();
  }
});

describe('sessions list on a SQLite file, through the listing', () => {
  it('prints what the whole store prints for the same sessions, byte for byte', async () => {
    for (const args of [
      [],
      ['--limit', '3'],
      ['--limit', '2', '--all'],
      ['--workspace', '/work/foo'],
    ]) {
      const listed = await run(['sessions', 'list', '--store', sqlite, ...args], dir.dir);
      const stored = await run(['sessions', 'list', '--store', postgres, ...args], dir.dir);
      expect(listed.code).toBe(0);
      expect(listed.stdout.split('\n').length).toBeGreaterThan(2);
      expect(listed).toEqual(stored);
    }
  });

  it('prints as JSON exactly the sessions and stats of the store, page after page', async () => {
    const listed = await run(
      ['sessions', 'list', '--json', '--all', '--limit', '4', '--store', sqlite],
      dir.dir,
    );
    expect(listed.code).toBe(0);
    const store = await openStore(sqlite, { create: false, migrate: false });
    const sessions: unknown[] = [];
    try {
      let cursor: string | undefined;
      do {
        const page = await store.listSessions({
          limit: 4,
          withStats: true,
          ...(cursor === undefined ? {} : { cursor }),
        });
        sessions.push(...page.sessions);
        cursor = page.next_cursor ?? undefined;
      } while (cursor !== undefined);
    } finally {
      await store.close();
    }
    expect(sessions).toHaveLength(9);
    expect(listed.stdout).toBe(`${JSON.stringify(sessions, null, 2)}\n`);
  });
});

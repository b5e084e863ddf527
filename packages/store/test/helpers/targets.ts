import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { testPostgresUrl } from '@yourtool/testkit/postgres';
import { sql } from 'kysely';
import { type OpenStoreOptions, openStore, type SqlSessionStore } from '../../src/index.js';

/**
 * The PostgreSQL server the suite runs against (trust auth on loopback, database `test`):
 * `YOURTOOL_TEST_POSTGRES_URL`, else the server on the default URL, else one started for the
 * run (vitest.config.ts's globalSetup, `@yourtool/testkit/postgres-setup`; the README's
 * "Running the tests"). There is no skip: if none comes up, the run fails, loudly.
 */
export const POSTGRES_URL = testPostgresUrl();

/** One database the shared suite runs on. */
export interface Target {
  name: 'sqlite' | 'postgres';
  /** Opens a store on this target's database (a new connection each time). */
  open(options?: OpenStoreOptions): Promise<SqlSessionStore>;
  /** Removes the database (SQLite file, PostgreSQL schema). */
  dispose(): Promise<void>;
}

let counter = 0;

/** A SQLite file in a fresh temporary directory. */
export function sqliteTarget(): Target & { file: string; dir: string } {
  const dir = mkdtempSync(join(tmpdir(), 'yourtool-store-'));
  const file = join(dir, 'store.db');
  return {
    name: 'sqlite',
    dir,
    file,
    open: (options) => openStore(`sqlite:${file}`, options),
    dispose: async () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** A schema of its own on the PostgreSQL server, so concurrent runs and files never collide. */
export function postgresTarget(): Target & { schema: string } {
  counter++;
  const schema = `yt_test_${process.pid}_${Date.now().toString(36)}_${counter}`;
  return {
    name: 'postgres',
    schema,
    open: (options) => openStore(POSTGRES_URL, { schema, ...options }),
    dispose: async () => {
      const admin = await openStore(POSTGRES_URL, { migrate: false });
      try {
        await sql`drop schema if exists ${sql.id(schema)} cascade`.execute(admin.db);
      } finally {
        await admin.close();
      }
    },
  };
}

/** Both targets, for `describe.each(targets())('... $name', ({ make }) => ...)`. */
export function targets(): Array<{ name: Target['name']; make: () => Target }> {
  return [
    { name: 'sqlite', make: sqliteTarget },
    { name: 'postgres', make: postgresTarget },
  ];
}

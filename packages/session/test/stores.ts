import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore, type SqlSessionStore } from '@yourtool/store';
import { testPostgresUrl } from '@yourtool/testkit/postgres';
import { afterEach } from 'vitest';

/**
 * The PostgreSQL server the store suites run against (trust auth on loopback, database `test`),
 * found or started once per run as in `@yourtool/store`'s tests (vitest.config.ts's
 * globalSetup): no skip, a server that does not answer fails the test.
 */
const POSTGRES_URL = testPostgresUrl();

/** One database a test runs on: each `open()` is a new connection to the same data. */
export interface StoreTarget {
  name: 'sqlite' | 'postgres';
  open(): Promise<SqlSessionStore>;
  /** Closes what `open()` opened and removes the database. */
  dispose(): Promise<void>;
}

let counter = 0;

function sqliteTarget(): StoreTarget {
  const dir = mkdtempSync(join(tmpdir(), 'session-store-'));
  const opened: SqlSessionStore[] = [];
  return {
    name: 'sqlite',
    open: async () => {
      const store = await openStore(`sqlite:${join(dir, 'sessions.db')}`);
      opened.push(store);
      return store;
    },
    dispose: async () => {
      await Promise.all(opened.map((s) => s.close()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function postgresTarget(): StoreTarget {
  counter++;
  const schema = `yt_session_${process.pid}_${Date.now().toString(36)}_${counter}`;
  const opened: SqlSessionStore[] = [];
  return {
    name: 'postgres',
    open: async () => {
      const store = await openStore(POSTGRES_URL, { schema });
      opened.push(store);
      return store;
    },
    dispose: async () => {
      await Promise.all(opened.map((s) => s.close()));
      const admin = await openStore(POSTGRES_URL, { migrate: false });
      try {
        await admin.db.schema.dropSchema(schema).ifExists().cascade().execute();
      } finally {
        await admin.close();
      }
    },
  };
}

/** Both databases, for `describe.each(storeTargets())('... $name', ({ make }) => ...)`. */
export function storeTargets(): Array<{ name: StoreTarget['name']; make: () => StoreTarget }> {
  return [
    { name: 'sqlite', make: sqliteTarget },
    { name: 'postgres', make: postgresTarget },
  ];
}

/** A list for the targets a test makes, each disposed of after the test. */
export function disposedAfterEach(): StoreTarget[] {
  const targets: StoreTarget[] = [];
  afterEach(async () => {
    await Promise.all(targets.splice(0).map((t) => t.dispose()));
  });
  return targets;
}

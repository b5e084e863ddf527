import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { sql } from 'kysely';
import { type Migration, Migrator } from 'kysely/migration';
import { afterAll, describe, expect, it } from 'vitest';
import {
  NotAStoreError,
  type OpenStoreOptions,
  openStore,
  type SqlSessionStore,
  StoreNotFoundError,
  StoreSchemaVersionError,
  storeMigrations,
} from '../src/index.js';
import { POSTGRES_URL } from './helpers/targets.js';

/** Opens a store without migrations (nothing checked), to shape a database by hand. */
async function bare(url: string): Promise<SqlSessionStore> {
  return openStore(url, { migrate: false });
}

/** Applies only the store's first migration: a store written before `0002_session_revision`. */
async function migrateToFirst(store: SqlSessionStore, schema?: string): Promise<void> {
  const first = storeMigrations(store.dialect)['0001_canonical_tables'] as Migration;
  const migrator = new Migrator({
    db: store.db,
    provider: { getMigrations: async () => ({ '0001_canonical_tables': first }) },
    ...(schema === undefined ? {} : { migrationTableSchema: schema }),
  });
  const { error } = await migrator.migrateToLatest();
  expect(error).toBeUndefined();
}

/** One dialect's databases in every state `create: false` tells apart. */
interface Fixture {
  /** A store URL where nothing is. */
  missing(): string;
  /** A database holding another application's table `people`. */
  foreign(): Promise<string>;
  /** A yourtool store at the first migration only. */
  older(): Promise<string>;
  /** A yourtool store that has applied a migration this version does not know. */
  newer(): Promise<string>;
  /** A yourtool store at the current schema, holding one session. */
  current(): Promise<string>;
  /** Everything the database at `url` holds that opening could change. */
  fingerprint(url: string): Promise<string>;
  /** Whether anything was created at `missing()`'s URL. */
  created(url: string): Promise<boolean>;
  dispose(): Promise<void>;
}

function sqliteFixture(): Fixture {
  const dir = mkdtempSync(join(tmpdir(), 'yourtool-store-existing-'));
  let n = 0;
  const next = () => join(dir, `db-${++n}`, 'store.db');
  const store = async (shape: (s: SqlSessionStore) => Promise<void>) => {
    const file = next();
    const opened = await bare(`sqlite:${file}`);
    try {
      await shape(opened);
    } finally {
      await opened.close();
    }
    return `sqlite:${file}`;
  };
  return {
    missing: () => `sqlite:${next()}`,
    foreign: async () => {
      // another application's file, as it would make it: a rollback journal, its own table
      const file = next();
      mkdirSync(dirname(file), { recursive: true });
      const db = new Database(file);
      db.exec(
        "create table people (id integer primary key, name text); insert into people (name) values ('Ada')",
      );
      db.close();
      return `sqlite:${file}`;
    },
    older: () => store((s) => migrateToFirst(s)),
    newer: () =>
      store(async (s) => {
        await s.migrate();
        await sql`insert into kysely_migration (name, timestamp) values ('9999_from_the_future', '2099-01-01T00:00:00.000Z')`.execute(
          s.db,
        );
      }),
    current: () =>
      store(async (s) => {
        await s.migrate();
        await s.createSession({ workspace_path: '/w' });
      }),
    async fingerprint(url) {
      const file = url.slice('sqlite:'.length);
      const bytes = createHash('sha256').update(readFileSync(file)).digest('hex');
      return `${bytes} ${readdirSync(dirname(file)).sort().join(',')}`;
    },
    created: async (url) => existsSync(dirname(url.slice('sqlite:'.length))),
    dispose: async () => rmSync(dir, { recursive: true, force: true }),
  };
}

function postgresFixture(): Fixture {
  const schemas: string[] = [];
  let n = 0;
  const next = () => {
    const schema = `yt_existing_${process.pid}_${Date.now().toString(36)}_${++n}`;
    schemas.push(schema);
    const url = new URL(POSTGRES_URL);
    url.searchParams.set('schema', schema);
    return { schema, url: url.toString() };
  };
  const admin = async <T>(work: (s: SqlSessionStore) => Promise<T>): Promise<T> => {
    const store = await bare(POSTGRES_URL);
    try {
      return await work(store);
    } finally {
      await store.close();
    }
  };
  const store = async (shape: (s: SqlSessionStore, schema: string) => Promise<void>) => {
    const { schema, url } = next();
    await admin((s) => sql`create schema ${sql.id(schema)}`.execute(s.db));
    const opened = await bare(url);
    try {
      await shape(opened, schema);
    } finally {
      await opened.close();
    }
    return url;
  };
  const schemaOf = (url: string) => new URL(url).searchParams.get('schema') as string;
  return {
    missing: () => next().url,
    foreign: () =>
      store(async (s, schema) => {
        await sql`create table ${sql.id(schema, 'people')} (id serial primary key, name text)`.execute(
          s.db,
        );
      }),
    older: () => store((s, schema) => migrateToFirst(s, schema)),
    newer: () =>
      store(async (s, schema) => {
        await s.migrate();
        await sql`insert into ${sql.id(schema, 'kysely_migration')} (name, timestamp) values ('9999_from_the_future', '2099-01-01T00:00:00.000Z')`.execute(
          s.db,
        );
      }),
    current: () =>
      store(async (s) => {
        await s.migrate();
        await s.createSession({ workspace_path: '/w' });
      }),
    fingerprint: (url) =>
      admin(async (s) => {
        const schema = schemaOf(url);
        const columns = await sql<{
          t: string;
          c: string;
        }>`select table_name as t, column_name as c from information_schema.columns where table_schema = ${schema} order by 1, 2`.execute(
          s.db,
        );
        return JSON.stringify(columns.rows);
      }),
    created: (url) =>
      admin(async (s) => {
        const found = await sql<{
          n: number;
        }>`select count(*)::int as n from pg_namespace where nspname = ${schemaOf(url)}`.execute(
          s.db,
        );
        return (found.rows[0]?.n ?? 0) > 0;
      }),
    dispose: () =>
      admin(async (s) => {
        for (const schema of schemas) {
          await sql`drop schema if exists ${sql.id(schema)} cascade`.execute(s.db);
        }
      }),
  };
}

/** What opening `url` with `options` threw (or a failure when it opened). */
async function refusal(url: string, options: OpenStoreOptions): Promise<unknown> {
  return openStore(url, options).then(
    async (store) => {
      await store.close();
      return new Error(`opened ${url}`);
    },
    (error: unknown) => error,
  );
}

const READ_ONLY: OpenStoreOptions = { create: false, migrate: false };

describe.each([
  ['sqlite', sqliteFixture],
  ['postgres', postgresFixture],
] as const)('openStore(url, { create: false }) on %s', (_name, make) => {
  const fixture = make();
  afterAll(() => fixture.dispose());

  it('refuses a missing store with StoreNotFoundError, and creates nothing', async () => {
    const url = fixture.missing();
    const error = await refusal(url, READ_ONLY);
    expect(error).toBeInstanceOf(StoreNotFoundError);
    expect((error as Error).message).toMatch(
      /^no store at .*(the file|the schema "\w+") does not exist$/,
    );
    expect(await refusal(url, { create: false })).toBeInstanceOf(StoreNotFoundError);
    expect(await fixture.created(url)).toBe(false);
  });

  it('refuses a database without the store, and changes nothing in it', async () => {
    const url = await fixture.foreign();
    const before = await fixture.fingerprint(url);
    for (const options of [READ_ONLY, { create: false }]) {
      const error = await refusal(url, options);
      expect(error).toBeInstanceOf(NotAStoreError);
      expect((error as NotAStoreError).tables).toEqual(['people']);
      expect((error as Error).message).toMatch(/ is not a yourtool store \(its tables: people\)$/);
    }
    expect(await fixture.fingerprint(url)).toBe(before);
  });

  it('refuses an older store without migrate, and upgrades it with', async () => {
    const url = await fixture.older();
    const before = await fixture.fingerprint(url);
    const error = await refusal(url, READ_ONLY);
    expect(error).toBeInstanceOf(StoreSchemaVersionError);
    expect(error).toMatchObject({
      direction: 'older',
      pending: [
        '0002_session_revision',
        '0003_session_turn_lease',
        '0004_tool_approvals',
        '0005_budgets',
        '0006_session_owners',
        '0007_shared_availability',
      ],
    });
    expect(await fixture.fingerprint(url)).toBe(before);

    const upgraded = await openStore(url, { create: false });
    try {
      const session = await upgraded.createSession({ workspace_path: '/after' });
      expect(session.revision).toBe(0);
    } finally {
      await upgraded.close();
    }
    await (await openStore(url, READ_ONLY)).close();
  });

  it('refuses a store written by a newer version, migrating or not', async () => {
    const url = await fixture.newer();
    const before = await fixture.fingerprint(url);
    for (const options of [READ_ONLY, { create: false }]) {
      const error = await refusal(url, options);
      expect(error).toBeInstanceOf(StoreSchemaVersionError);
      expect(error).toMatchObject({ direction: 'newer', unknown: ['9999_from_the_future'] });
      expect((error as Error).message).toMatch(/written by a newer @yourtool\/store/);
    }
    expect(await fixture.fingerprint(url)).toBe(before);
  });

  it('opens a store at the current schema, without writing to it', async () => {
    const url = await fixture.current();
    const before = await fixture.fingerprint(url);
    const store = await openStore(url, READ_ONLY);
    try {
      expect((await store.listSessions()).sessions).toHaveLength(1);
    } finally {
      await store.close();
    }
    expect(await fixture.fingerprint(url)).toBe(before);
  });
});

describe('openStore(url, { create: false }) on SQLite files', () => {
  const dir = mkdtempSync(join(tmpdir(), 'yourtool-store-files-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('refuses a file that is not SQLite, or an empty one, unchanged', async () => {
    const text = join(dir, 'notes.txt');
    writeFileSync(text, 'not a database, just text that is long enough to have a header\n');
    const error = await refusal(`sqlite:${text}`, READ_ONLY);
    expect(error).toBeInstanceOf(NotAStoreError);
    expect((error as Error).message).toBe(
      `${text} is not a yourtool store (it is not a SQLite database)`,
    );
    expect(readFileSync(text, 'utf8')).toMatch(/^not a database/);

    const empty = join(dir, 'empty.db');
    writeFileSync(empty, '');
    expect((await refusal(`sqlite:${empty}`, { create: false })) as Error).toMatchObject({
      message: `${empty} is not a yourtool store (it has no tables)`,
    });
    expect(readFileSync(empty)).toHaveLength(0);
    expect(readdirSync(dir).sort()).toEqual(['empty.db', 'notes.txt']);
  });

  it('refuses sqlite::memory:, which is always new', async () => {
    const error = await refusal('sqlite::memory:', READ_ONLY);
    expect(error).toBeInstanceOf(StoreNotFoundError);
    expect((error as Error).message).toBe(
      'no store at :memory:: an in-memory database is always new',
    );
  });
});

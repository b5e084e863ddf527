import { createMemoryLogger, createMessage } from '@yourtool/core';
import { sql } from 'kysely';
import { type Migration, Migrator } from 'kysely/migration';
import { afterAll, describe, expect, it } from 'vitest';
import {
  InvalidStoreInputError,
  openStore,
  parseStoreUrl,
  redactStoreUrl,
  StoreConnectionError,
  StoreError,
  storeMigrations,
  UnsupportedStoreUrlError,
} from '../src/index.js';
import { POSTGRES_URL, postgresTarget, sqliteTarget } from './helpers/targets.js';

/** A new file name each run: a test run again (vitest --repeats) starts from no file. */
let runs = 0;

describe('store URLs', () => {
  it('parses SQLite and PostgreSQL URLs', () => {
    expect(parseStoreUrl('sqlite:./data/app.db')).toEqual({
      dialect: 'sqlite',
      filename: './data/app.db',
    });
    expect(parseStoreUrl('sqlite:///var/lib/app.db')).toEqual({
      dialect: 'sqlite',
      filename: '/var/lib/app.db',
    });
    expect(parseStoreUrl('sqlite::memory:')).toEqual({ dialect: 'sqlite', filename: ':memory:' });
    expect(
      parseStoreUrl('postgres://u:p%40ss@db:5432/app?schema=tenant_1&sslmode=require'),
    ).toEqual({
      dialect: 'postgres',
      connectionString: 'postgres://u:p%40ss@db:5432/app?sslmode=require',
      schema: 'tenant_1',
      password: 'p@ss',
    });
    expect(parseStoreUrl('postgresql://db/app')).toMatchObject({ dialect: 'postgres' });
  });

  it('refuses unknown schemes with a typed error that never shows the password', () => {
    const url = 'mysql://admin:hunter2secret@db.internal/app';
    expect(() => parseStoreUrl(url)).toThrow(UnsupportedStoreUrlError);
    try {
      parseStoreUrl(url);
    } catch (error) {
      expect((error as Error).message).toContain('unknown scheme "mysql:"');
      expect((error as Error).message).not.toContain('hunter2secret');
      expect((error as UnsupportedStoreUrlError).url).toBe(
        'mysql://admin:[REDACTED]@db.internal/app',
      );
    }
    expect(() => parseStoreUrl('sqlite:')).toThrow(/no file path/);
    expect(() => parseStoreUrl('app.db')).toThrow(/expected a URL such as/);
  });

  it('redacts passwords, encoded or not', () => {
    expect(redactStoreUrl('postgres://u:s3cr%2Ft@h/db')).toBe('postgres://u:[REDACTED]@h/db');
    expect(redactStoreUrl('postgres://h/db')).toBe('postgres://h/db');
    expect(redactStoreUrl('postgres://u:pa ss@h/db')).toBe('postgres://u:[REDACTED]@h/db');
  });
});

describe('opening stores', () => {
  const sqlite = sqliteTarget();
  const pg = postgresTarget();
  afterAll(async () => {
    await sqlite.dispose();
    await pg.dispose();
  });

  it('reports a PostgreSQL connection failure without the password', async () => {
    const secret = 'Sup3rS3cretPassw0rd';
    const url = POSTGRES_URL.replace(
      'postgres://postgres@',
      `postgres://postgres:${secret}@`,
    ).replace(/\/[^/?]+(\?|$)/, '/yourtool_no_such_database$1');
    const logger = createMemoryLogger();
    const error = await openStore(url, { logger }).then(
      () => new Error('opened a database that does not exist'),
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(StoreConnectionError);
    expect((error as Error).message).toMatch(/yourtool_no_such_database/);
    expect((error as Error).message).not.toContain(secret);
    expect((error as StoreConnectionError).url).toContain('[REDACTED]');
    expect(JSON.stringify(logger.records)).not.toContain(secret);
  });

  it('refuses a schema name that is not a plain identifier', async () => {
    await expect(openStore(POSTGRES_URL, { schema: 'x"; drop table y; --' })).rejects.toThrow(
      InvalidStoreInputError,
    );
  });

  it('keeps each PostgreSQL schema apart', async () => {
    const a = await pg.open();
    const other = postgresTarget();
    const b = await other.open();
    try {
      const session = await a.createSession({ workspace_path: '/a' });
      expect(await b.getSession(session.id)).toBeNull();
      const where = await sql<{ schema: string }>`select current_schema() as schema`.execute(a.db);
      expect(where.rows[0]?.schema).toBe(pg.schema);
    } finally {
      await a.close();
      await b.close();
      await other.dispose();
    }
  });

  it('can skip migrations, and fails clearly on a database without tables', async () => {
    const bare = await openStore(`sqlite:${sqlite.dir}/bare-${++runs}.db`, { migrate: false });
    try {
      await expect(bare.createSession({ workspace_path: '/w' })).rejects.toThrow(/no such table/);
      expect((await bare.migrate()).applied).toEqual([
        '0001_canonical_tables',
        '0002_session_revision',
        '0003_session_turn_lease',
        '0004_tool_approvals',
        '0005_budgets',
        '0006_session_owners',
        '0007_shared_availability',
      ]);
      await expect(bare.createSession({ workspace_path: '/w' })).resolves.toMatchObject({
        workspace_path: '/w',
      });
    } finally {
      await bare.close();
    }
  });

  it('upgrades a database written before the revision column (0001 only) in place', async () => {
    const path = `${sqlite.dir}/upgrade-${++runs}.db`;
    const old = await openStore(`sqlite:${path}`, { migrate: false });
    try {
      const migrator = new Migrator({
        db: old.db,
        provider: {
          getMigrations: async () => ({
            '0001_canonical_tables': storeMigrations('sqlite')[
              '0001_canonical_tables'
            ] as Migration,
          }),
        },
      });
      const { error } = await migrator.migrateToLatest();
      expect(error).toBeUndefined();
      await old.db
        .insertInto('sessions')
        .values({
          id: 'sess_before_upgrade',
          workspace_path: '/w',
          active_model: null,
          routing_policy_json: null,
          schema_version: 1,
          created_at: 1,
          updated_at: 1,
        } as never)
        .execute();
    } finally {
      await old.close();
    }
    const upgraded = await openStore(`sqlite:${path}`);
    try {
      expect((await upgraded.getSession('sess_before_upgrade'))?.revision).toBe(0);
      await upgraded.appendMessage(
        createMessage({
          session_id: 'sess_before_upgrade',
          role: 'user',
          content: [{ type: 'text', text: 'after the upgrade' }],
        }),
      );
      expect((await upgraded.getSession('sess_before_upgrade'))?.revision).toBe(1);
    } finally {
      await upgraded.close();
    }
  });

  it('refuses calls after close', async () => {
    const store = await sqlite.open();
    await store.close();
    await store.close();
    await expect(store.getSession('x')).rejects.toThrow(StoreError);
    await expect(store.getSession('x')).rejects.toThrow(/closed/);
  });

  it('creates missing directories for a SQLite file', async () => {
    const store = await openStore(`sqlite:${sqlite.dir}/nested-${++runs}/deeper/app.db`);
    await store.close();
  });
});

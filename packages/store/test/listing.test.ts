import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { createMemoryLogger, sumDecimalStrings } from '@yourtool/core';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ListSessionsOptions,
  openStore,
  type SqlSessionStore,
  StoreNotFoundError,
  storeMigrations,
} from '../src/index.js';
import { sumDecimals } from '../src/listing/decimal-sum.js';
import { LISTING_MIGRATIONS, openSessionListing, sqliteStoreFile } from '../src/listing/index.js';
import { parseStoreUrl } from '../src/url.js';
import { assistantWithTools, usage, userText } from './helpers/messages.js';
import { sqliteTarget } from './helpers/targets.js';

// `@yourtool/store/listing` lists what `SqlSessionStore.listSessions` lists, page by page, and
// fails as `openStore(url, { create: false, migrate: false })` fails (docs/decisions/0197).

const target = sqliteTarget();
const url = `sqlite:${target.file}`;
let store: SqlSessionStore;

/** Every page of both listings with `options`, and what each logged. */
async function bothListings(options: ListSessionsOptions) {
  const storeLogger = createMemoryLogger();
  const listingLogger = createMemoryLogger();
  const reader = await openStore(url, { create: false, migrate: false, logger: storeLogger });
  const listing = await openSessionListing(url, { logger: listingLogger });
  const pages: { store: unknown[]; listing: unknown[] } = { store: [], listing: [] };
  try {
    for (const [side, list] of [
      ['store', (o: ListSessionsOptions) => reader.listSessions(o)],
      ['listing', (o: ListSessionsOptions) => listing.listSessions(o)],
    ] as const) {
      let cursor: string | undefined;
      do {
        const page = await list({ ...options, ...(cursor === undefined ? {} : { cursor }) });
        pages[side].push(page);
        cursor = page.next_cursor ?? undefined;
      } while (cursor !== undefined);
    }
  } finally {
    await reader.close();
    listing.close();
  }
  return { pages, logs: { store: storeLogger.records, listing: listingLogger.records } };
}

beforeAll(async () => {
  store = await target.open();
  for (let i = 0; i < 9; i++) {
    const session = await store.createSession({
      workspace_path: `/work/${i % 3}`,
      ...(i % 4 === 0 ? { user: `u${i}`, tenant: 't', tags: ['a', 'b'] } : {}),
      ...(i % 2 === 0 ? { active_model: 'anthropic:claude-sonnet-4-6' } : {}),
      ...(i === 3 ? { routing_policy: { mode: 'cheapest' } } : {}),
    });
    const id = session.id;
    if (i === 8) continue; // a session without messages
    const messages = [userText(id, `hello ${i}`)];
    messages.push(assistantWithTools(id, [], { usage: usage({ cost_usd: `0.00${i}1` }) }));
    if (i % 3 === 0) {
      messages.push(
        assistantWithTools(id, [], { usage: usage({ cost_usd: null, pricing_version: null }) }),
      );
    }
    await store.appendMessages(messages);
  }
  // sessions updated in the same microsecond: the id breaks the tie, across page boundaries too
  await sql`update sessions set updated_at = (select max(updated_at) from sessions) where workspace_path = '/work/2'`.execute(
    store.db,
  );
});
afterAll(async () => {
  await store?.close();
  await target.dispose();
});

describe('the SQLite listing', () => {
  it('gives the pages the store gives: order, cursors, stats, owners and policies', async () => {
    for (const options of [
      { withStats: true },
      { withStats: true, limit: 2 },
      { limit: 4 },
      { withStats: true, limit: 1, workspace_path: '/work/1' },
      { withStats: true, workspace_path: '/nowhere' },
    ]) {
      const { pages, logs } = await bothListings(options);
      expect(pages.listing).toEqual(pages.store);
      // byte for byte as the CLI prints it: same keys in the same order
      expect(JSON.stringify(pages.listing)).toBe(JSON.stringify(pages.store));
      expect(logs.listing).toEqual([]);
    }
  });

  it('skips the rows the store skips, with the same warnings, and counts what it counts', async () => {
    const [first, second] = (await store.listSessions({ limit: 2 })).sessions;
    await sql`update sessions set routing_policy_json = '[1' where id = ${first?.id ?? ''}`.execute(
      store.db,
    );
    await sql`update sessions set created_at = '12' where id = ${second?.id ?? ''}`.execute(
      store.db,
    );
    await sql`update messages set metadata_json = '{bad' where id = (select id from messages where role = 'assistant' order by id limit 1)`.execute(
      store.db,
    );
    const { pages, logs } = await bothListings({ withStats: true, limit: 3 });
    expect(JSON.stringify(pages.listing)).toBe(JSON.stringify(pages.store));
    expect(logs.listing).toEqual(logs.store);
    expect(logs.listing.map((record) => record.obj.table)).toEqual(['sessions', 'messages']);
  });

  it('refuses bad options with the store errors', async () => {
    const listing = await openSessionListing(url);
    const reader = await openStore(url, { create: false, migrate: false });
    try {
      for (const options of [
        { limit: 0 },
        { limit: 1001 },
        { cursor: 'not-a-cursor' },
        { workspace_path: 'a\u0000b' },
        { workspace_path: '\ud800' },
      ]) {
        const ours = await listing.listSessions(options).catch((error: unknown) => error);
        const theirs = await reader.listSessions(options).catch((error: unknown) => error);
        expect(ours).toBeInstanceOf(Error);
        expect(ours).toEqual(theirs);
        expect((ours as Error).constructor).toBe((theirs as Error).constructor);
      }
    } finally {
      listing.close();
      await reader.close();
    }
  });

  it('fails as openStore fails on what is not a store at the current schema', async () => {
    const dir = target.dir;
    writeFileSync(join(dir, 'text.db'), 'not sqlite at all');
    writeFileSync(join(dir, 'empty.db'), '');
    const newer = await openStore(`sqlite:${join(dir, 'newer.db')}`);
    await sql`insert into kysely_migration (name, timestamp) values ('9999_future', 'x')`.execute(
      newer.db,
    );
    await newer.close();
    const older = await openStore(`sqlite:${join(dir, 'older.db')}`);
    await sql`delete from kysely_migration where name = '0007_shared_availability'`.execute(
      older.db,
    );
    await older.close();
    for (const name of ['missing.db', 'text.db', 'empty.db', 'newer.db', 'older.db']) {
      const where = `sqlite:${join(dir, name)}`;
      const ours = await openSessionListing(where).then(
        () => new Error(`listed ${name}`),
        (error: unknown) => error,
      );
      const theirs = await openStore(where, { create: false, migrate: false }).then(
        () => new Error(`opened ${name}`),
        (error: unknown) => error,
      );
      expect((ours as Error).constructor.name).not.toBe('Error');
      expect(ours).toEqual(theirs);
      expect((ours as Error).constructor).toBe((theirs as Error).constructor);
    }
    const memory = await openSessionListing('sqlite::memory:').catch((error: unknown) => error);
    expect(memory).toBeInstanceOf(StoreNotFoundError);
  });

  it('reads SQLite files only, and a closed listing says so', async () => {
    await expect(openSessionListing('postgres://localhost/db')).rejects.toMatchObject({
      code: 'unsupported_store_url',
    });
    await expect(openSessionListing('mysql://x')).rejects.toThrow(/unknown scheme "mysql:"/);
    const listing = await openSessionListing(url);
    listing.close();
    await expect(listing.listSessions()).rejects.toMatchObject({ code: 'store_closed' });
  });
});

describe('what the listing keeps in step with the store', () => {
  it('knows the migrations of the current SQLite schema', () => {
    expect([...LISTING_MIGRATIONS]).toEqual(Object.keys(storeMigrations('sqlite')));
  });

  it('finds the file of a sqlite: URL as parseStoreUrl does', () => {
    for (const each of [
      'sqlite:./a.db',
      'sqlite:/abs/b.db',
      'sqlite:///abs/c.db',
      'sqlite::memory:',
    ]) {
      const parsed = parseStoreUrl(each);
      expect(sqliteStoreFile(each)).toBe(parsed.dialect === 'sqlite' ? parsed.filename : null);
    }
    expect(sqliteStoreFile('sqlite:')).toBeUndefined();
    expect(sqliteStoreFile('postgres://host/db')).toBeUndefined();
  });

  it('sums decimal strings exactly as core does', () => {
    const cases = [
      [],
      ['0'],
      ['0.1', '0.2'],
      ['0.0045', '0.0039'],
      ['1', '2.50', '0.000000001'],
      ['999999999999999999.999', '0.001'],
      ['0.10', '0.90'],
    ];
    for (const values of cases) expect(sumDecimals(values)).toBe(sumDecimalStrings(values));
    expect(() => sumDecimals(['-1'])).toThrow(RangeError);
  });

  it('throws the same error classes as the store, in the ESM and the CommonJS builds', async () => {
    const missing = `sqlite:${join(target.dir, 'nothing-here.db')}`;
    const esm = {
      listing: await import('../dist/listing.js'),
      index: await import('../dist/index.js'),
    };
    const require = createRequire(import.meta.url);
    const cjs = { listing: require('../dist/listing.cjs'), index: require('../dist/index.cjs') };
    for (const build of [esm, cjs]) {
      const error = await build.listing.openSessionListing(missing).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(build.index.StoreNotFoundError);
    }
  });
});

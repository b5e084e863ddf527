import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { openStore, storeMigrations } from '@yourtool/store';
import type { ScriptedProvider } from '@yourtool/testing';
import { type Migration, Migrator } from 'kysely/migration';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  fingerprint,
  foreignSqliteFile,
  freshPath,
  run,
  seedStore,
  startScriptedProvider,
  workspace,
} from './helpers.js';

let provider: ScriptedProvider;
let dir: { dir: string; dispose(): void };
beforeAll(async () => {
  provider = await startScriptedProvider();
  dir = workspace(provider);
});
afterAll(async () => {
  await provider.close();
  dir.dispose();
});

const fresh = (name: string, make = true) => freshPath(dir.dir, name, make);

/** Every command that only reads a store (`sessions delete` writes, but never creates one). */
const READERS: ReadonlyArray<readonly string[]> = [
  ['sessions', 'list'],
  ['sessions', 'show', 'sess_01K0000000000000000000000'],
  ['sessions', 'cost', 'sess_01K0000000000000000000000'],
  ['sessions', 'export', '--all'],
  ['replay', 'sess_01K0000000000000000000000', '--model', 'sonnet'],
  ['sessions', 'delete', 'sess_01K0000000000000000000000', '--yes'],
];

/** A yourtool store written before migration 0002 (a session at revision 0 since). */
async function olderStore(path: string): Promise<void> {
  const store = await openStore(`sqlite:${path}`, { migrate: false });
  try {
    const first = storeMigrations('sqlite')['0001_canonical_tables'] as Migration;
    const migrator = new Migrator({
      db: store.db,
      provider: { getMigrations: async () => ({ '0001_canonical_tables': first }) },
    });
    expect((await migrator.migrateToLatest()).error).toBeUndefined();
  } finally {
    await store.close();
  }
}

describe('commands that only read never create or change a store', () => {
  it("refuses another application's SQLite file, leaving its bytes as they were", async () => {
    const file = fresh('other.db');
    await foreignSqliteFile(file);
    const before = fingerprint(file);
    for (const args of READERS) {
      const result = await run([...args, '--store', `sqlite:${file}`], dir.dir);
      expect({ args, code: result.code, stdout: result.stdout, stderr: result.stderr }).toEqual({
        args,
        code: 1,
        stdout: '',
        stderr: `yourtool: ${file} is not a yourtool store (its tables: people)\n`,
      });
      expect(fingerprint(file)).toBe(before);
    }
  });

  it('refuses a missing store file, and creates none', async () => {
    const file = fresh('missing.db', false);
    for (const args of READERS) {
      const result = await run([...args, '--store', `sqlite:${file}`], dir.dir);
      expect(result.code).toBe(1);
      expect(result.stderr).toBe(
        `yourtool: no store at ${file}: pass --store sqlite:<file> or postgres://..., or set YOURTOOL_STORE\n`,
      );
      expect(existsSync(join(file, '..'))).toBe(false);
    }
  });

  it('refuses a store at an older schema, unchanged; sessions migrate upgrades it', async () => {
    // every migration after the first, as the store has them (a new one joins the list)
    const pending = Object.keys(storeMigrations('sqlite')).sort().slice(1).join(', ');
    expect(pending).toMatch(/^0002_session_revision/);
    const file = fresh('old.db');
    await olderStore(file);
    const before = fingerprint(file);
    for (const args of READERS) {
      const result = await run([...args, '--store', `sqlite:${file}`], dir.dir);
      expect(result.code).toBe(1);
      expect(result.stderr).toBe(
        `yourtool: ${file} is a yourtool store at an older schema (migrations not applied: ${pending}); commands that read do not upgrade it: run yourtool sessions migrate --store sqlite:${file}\n`,
      );
      expect(fingerprint(file)).toBe(before);
    }
    const migrated = await run(['sessions', 'migrate', '--store', `sqlite:${file}`], dir.dir);
    expect(migrated).toMatchObject({
      code: 0,
      stdout: `upgraded ${file}: applied ${pending}\n`,
    });
    const again = await run(['sessions', 'migrate', '--store', `sqlite:${file}`], dir.dir);
    expect(again.stdout).toBe(`${file} is at the current schema: nothing to do\n`);
    const listed = await run(['sessions', 'list', '--store', `sqlite:${file}`], dir.dir);
    expect(listed).toMatchObject({ code: 0, stdout: 'no sessions\n', stderr: '' });
  });

  it('reads a store at the current schema as before', async () => {
    const file = fresh('store.db');
    const [id] = (await seedStore(provider, `sqlite:${file}`)) as [string];
    const shown = await run(['sessions', 'show', id, '--store', `sqlite:${file}`], dir.dir);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain(`session    ${id}\n`);
  });

  it('models opens no store at all', async () => {
    const file = fresh('other.db');
    await foreignSqliteFile(file);
    const before = fingerprint(file);
    const listed = await run(['models'], dir.dir, { env: { YOURTOOL_STORE: `sqlite:${file}` } });
    expect(listed.code).toBe(0);
    expect(fingerprint(file)).toBe(before);
    expect(readdirSync(dir.dir).filter((name) => name.endsWith('.db'))).toEqual([]);
  });
});

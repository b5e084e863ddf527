import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { openStore } from '@yourtool/store';
import { type ScriptedProvider, text } from '@yourtool/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
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
let lines: string;
beforeAll(async () => {
  provider = await startScriptedProvider();
  dir = workspace(provider);
  const source = `sqlite:${join(dir.dir, 'source.db')}`;
  await seedStore(provider, source);
  lines = (await run(['sessions', 'export', '--all', '--store', source], dir.dir)).stdout;
});
afterEach(() => provider.clear());
afterAll(async () => {
  await provider.close();
  dir.dispose();
});

const fresh = (name: string, make = true) => freshPath(dir.dir, name, make);

/** The tables of a SQLite file. */
async function tablesOf(file: string): Promise<string[]> {
  const store = await openStore(`sqlite:${file}`, { migrate: false });
  try {
    const tables = await store.db.introspection.getTables({ withInternalKyselyTables: true });
    return tables.map((t) => t.name).sort();
  } finally {
    await store.close();
  }
}

/** The tables of a new store, made with every migration. */
async function storeTables(): Promise<string[]> {
  const file = fresh('reference.db');
  const store = await openStore(`sqlite:${file}`);
  await store.close();
  return tablesOf(file);
}

describe('chat and sessions import create a store only with --create', () => {
  it('import refuses a missing store without --create, and makes it with', async () => {
    const file = fresh('new.db', false);
    const refused = await run(['sessions', 'import', '--store', `sqlite:${file}`], dir.dir, {
      input: lines,
    });
    expect(refused).toMatchObject({
      code: 1,
      stdout: '',
      stderr: `yourtool: no store at ${file}: pass --create to make one\n`,
    });
    expect(existsSync(join(file, '..'))).toBe(false);

    const created = await run(
      ['sessions', 'import', '--create', '--store', `sqlite:${file}`],
      dir.dir,
      { input: lines },
    );
    expect(created.code).toBe(0);
    expect(created.stdout.match(/^imported /gm)).toHaveLength(2);
  });

  it("import refuses another application's file without --create; --create adds the tables", async () => {
    const file = fresh('other.db');
    await foreignSqliteFile(file);
    const before = fingerprint(file);
    const refused = await run(['sessions', 'import', '--store', `sqlite:${file}`], dir.dir, {
      input: lines,
    });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(
      `yourtool: ${file} is not a yourtool store (its tables: people): pass --create to add the yourtool tables to it\n`,
    );
    expect(fingerprint(file)).toBe(before);

    const created = await run(
      ['sessions', 'import', '--create', '--store', `sqlite:${file}`],
      dir.dir,
      { input: lines },
    );
    expect(created.code).toBe(0);
    // every table a new store has (whatever migrations the store gains), and the app's own
    expect(await tablesOf(file)).toEqual([...(await storeTables()), 'people'].sort());
    expect(await tablesOf(file)).toEqual(expect.arrayContaining(['messages', 'sessions']));
  });

  it('chat refuses a missing store without --create, makes it with, and resumes without', async () => {
    const file = fresh('chat.db', false);
    const refused = await run(['chat', '--store', `sqlite:${file}`], dir.dir, { input: 'Hi\n' });
    expect(refused).toMatchObject({
      code: 1,
      stdout: '',
      stderr: `yourtool: no store at ${file}: pass --create to make one\n`,
    });
    expect(existsSync(join(file, '..'))).toBe(false);
    expect(provider.requests).toHaveLength(0);

    provider.reply(text('Hello.'));
    const created = await run(['chat', '--create', '--store', `sqlite:${file}`], dir.dir, {
      input: 'Hi\n',
    });
    expect(created.code).toBe(0);
    expect(created.stdout).toContain('Hello.\n');
    const id = /--session (sess_\w+)/.exec(created.stderr)?.[1] ?? '';

    provider.reply(text('Again.'));
    const resumed = await run(['chat', '--session', id, '--store', `sqlite:${file}`], dir.dir, {
      input: 'Still there?\n',
    });
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toContain('Again.\n');
  });

  it("chat refuses another application's file without --create, leaving it as it was", async () => {
    const file = fresh('other.db');
    await foreignSqliteFile(file);
    const before = fingerprint(file);
    const refused = await run(['chat', '--store', `sqlite:${file}`], dir.dir, { input: 'Hi\n' });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(
      `yourtool: ${file} is not a yourtool store (its tables: people): pass --create to add the yourtool tables to it\n`,
    );
    expect(fingerprint(file)).toBe(before);
  });
});

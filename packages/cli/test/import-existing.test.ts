import { join } from 'node:path';
import { createMessage } from '@yourtool/core';
import { openStore } from '@yourtool/store';
import type { ScriptedProvider } from '@yourtool/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run, seedStore, startScriptedProvider, workspace } from './helpers.js';

let provider: ScriptedProvider;
let dir: { dir: string; dispose(): void };
let first: string;
let second: string;
let file: string;
let firstLines: string;
beforeAll(async () => {
  provider = await startScriptedProvider();
  dir = workspace();
  const source = `sqlite:${join(dir.dir, 'source.db')}`;
  [first, second] = (await seedStore(provider, source)) as [string, string];
  file = join(dir.dir, 'backup.jsonl');
  await run(['sessions', 'export', '--all', '-o', file, '--store', source], dir.dir);
  firstLines = (await run(['sessions', 'export', first, '--store', source], dir.dir)).stdout;
});
afterAll(async () => {
  await provider.close();
  dir.dispose();
});

let counter = 0;
/** A store holding `first` (with one more message than the backup has) but not `second`. */
async function storeWithFirstChanged(): Promise<string> {
  const url = `sqlite:${join(dir.dir, `target-${++counter}.db`)}`;
  await run(['sessions', 'import', '--create', '--store', url], dir.dir, {
    input: firstLines,
  });
  const store = await openStore(url);
  try {
    await store.appendMessage(
      createMessage({
        session_id: first,
        role: 'user',
        content: [{ type: 'text', text: 'written after the backup' }],
      }),
    );
  } finally {
    await store.close();
  }
  return url;
}

describe('sessions import of sessions the store has already', () => {
  it('refuses them all up front, naming them, and imports nothing', async () => {
    const url = await storeWithFirstChanged();
    const result = await run(['sessions', 'import', file, '--store', url], dir.dir);
    expect(result).toMatchObject({
      code: 1,
      stdout: '',
      stderr: `yourtool: 1 session of ${file} is in the store already (${first}): pass --skip-existing to keep what is stored or --replace to overwrite it; nothing was imported\n`,
    });
    const listed = await run(['sessions', 'list', '--json', '--store', url], dir.dir);
    expect((JSON.parse(listed.stdout) as unknown[]).length).toBe(1);
  });

  it('--skip-existing keeps the stored session and imports the others', async () => {
    const url = await storeWithFirstChanged();
    const result = await run(
      ['sessions', 'import', file, '--skip-existing', '--store', url],
      dir.dir,
    );
    expect(result).toMatchObject({
      code: 0,
      stdout: `skipped ${first} (in the store already, kept as it is)\nimported ${second} (2 messages, 0 tool calls)\n`,
    });
    const shown = await run(['sessions', 'show', first, '--store', url], dir.dir);
    expect(shown.stdout).toContain('written after the backup');
  });

  it('--replace overwrites the stored session with the imported one', async () => {
    const url = await storeWithFirstChanged();
    const result = await run(['sessions', 'import', file, '--replace', '--store', url], dir.dir);
    expect(result).toMatchObject({
      code: 0,
      stdout: `replaced ${first} (4 messages, 1 tool calls; the stored one had 5 messages, 1 tool calls)\nimported ${second} (2 messages, 0 tool calls)\n`,
    });
    const exported = await run(['sessions', 'export', first, '--store', url], dir.dir);
    expect(exported.stdout).toBe(firstLines);
  });

  it('takes --skip-existing or --replace, not both', async () => {
    const url = await storeWithFirstChanged();
    const result = await run(
      ['sessions', 'import', file, '--skip-existing', '--replace', '--store', url],
      dir.dir,
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      "error: option '--replace' cannot be used with option '--skip-existing'\n",
    );
  });
});

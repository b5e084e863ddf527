import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openStore } from '@yourtool/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, workspace } from './helpers.js';

// The entry point loads only what the command needs (docs/decisions/0188): the process runs
// with a hook that records every module it resolves, and the test reads that list.

const RECORDER = fileURLToPath(new URL('./fixtures/record-modules.mjs', import.meta.url));

/** Modules `--help` must not load: the store and its driver, schemas, the runtime, the SDKs. */
const HEAVY = [
  '@yourtool/core',
  '@yourtool/store',
  '@yourtool/runtime',
  '@yourtool/session',
  '@yourtool/router',
  '@yourtool/pricing',
  '@yourtool/anthropic',
  '@yourtool/openai',
  '@yourtool/google',
  '@yourtool/mcp',
  'kysely',
  'better-sqlite3',
  'zod',
  'ajv',
  '@anthropic-ai/sdk',
  'openai',
  '@google/genai',
] as const;

/** What `sessions list` must not load: everything a model call needs, none a store read does. */
const NOT_FOR_STORE_READS = [
  '@yourtool/runtime',
  '@yourtool/session',
  '@yourtool/router',
  '@yourtool/pricing',
  '@yourtool/anthropic',
  '@yourtool/openai',
  '@yourtool/google',
  '@yourtool/bedrock',
  '@yourtool/ollama',
  '@yourtool/mcp',
  '@anthropic-ai/sdk',
  'openai',
  '@google/genai',
  'pg',
] as const;

let dir: { dir: string; dispose(): void };
let store: string;

beforeAll(async () => {
  dir = workspace();
  store = `sqlite:${join(dir.dir, 'sessions.db')}`;
  await (await openStore(store)).close();
});
afterAll(() => dir.dispose());

/** Runs the built `yourtool <args>` under the recorder; its exit code and the packages loaded. */
async function packagesLoaded(args: readonly string[]) {
  const list = join(dir.dir, `modules-${args.join('-').replace(/[^a-z-]/g, '')}.txt`);
  const child = spawn(process.execPath, ['--import', RECORDER, BIN, ...args], {
    cwd: dir.dir,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, YOURTOOL_TEST_MODULES: list },
    stdio: 'ignore',
  });
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  const urls = readFileSync(list, 'utf8').split('\n');
  const packages = new Set<string>();
  for (const url of urls) {
    // a package installed by pnpm (node_modules/.pnpm/<id>/node_modules/<name>/...) or a
    // workspace package (packages/<dir>/dist/...), named as it is imported
    const installed = /\/node_modules\/((?:@[^/]+\/)?[^/.][^/]*)\/(?!.*\/node_modules\/)/.exec(url);
    if (installed?.[1]) packages.add(installed[1]);
    const workspacePackage = /\/packages\/([^/]+)\/dist\//.exec(url);
    if (workspacePackage?.[1]) packages.add(`@yourtool/${workspacePackage[1]}`);
  }
  return { code, packages, urls };
}

describe('what a command loads', () => {
  it('--help and --version load commander and nothing of the store, schemas, runtime or SDKs', async () => {
    for (const args of [['--help'], ['--version'], ['sessions', 'list', '--help']]) {
      const { code, packages } = await packagesLoaded(args);
      expect(code).toBe(0);
      expect(packages).toContain('commander');
      expect(HEAVY.filter((name) => packages.has(name))).toEqual([]);
    }
  });

  it('a usage error loads nothing heavy either', async () => {
    const { code, packages } = await packagesLoaded(['sesions', 'list']);
    expect(code).toBe(2);
    expect(HEAVY.filter((name) => packages.has(name))).toEqual([]);
  });

  it('sessions list on a SQLite file loads the listing and its driver: no kysely, zod or core', async () => {
    const { code, packages, urls } = await packagesLoaded(['sessions', 'list', '--store', store]);
    expect(code).toBe(0);
    // the recorder sees what a command really loads: the store's listing and SQLite's driver
    for (const name of ['@yourtool/cli', '@yourtool/store', 'better-sqlite3']) {
      expect(packages).toContain(name);
    }
    expect(NOT_FOR_STORE_READS.filter((name) => packages.has(name))).toEqual([]);
    // decision 0197: kysely (257 modules), zod (95) and core stay out of a SQLite listing
    const heavy = ['kysely', 'zod', 'ajv', '@yourtool/core', 'pino', 'yaml'];
    expect(heavy.filter((name) => packages.has(name))).toEqual([]);
    expect(urls.filter((url) => url.includes('/packages/store/dist/'))).toEqual([
      expect.stringMatching(/\/packages\/store\/dist\/listing\.js$/),
    ]);
    // ~40 with Node's own modules; the whole store's path loaded ~410
    expect(urls.filter((url) => url !== '').length).toBeLessThan(80);
  });
});

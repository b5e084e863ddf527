/**
 * tools/docs-lists.mjs (decision 0159): the lists of adapter types and conformance scenarios in
 * the docs are generated from the code, and `pnpm lint` (`--check`) fails when one is stale. Run
 * on a copy of the sources it reads, so the catalog and the adapter types can be changed.
 */

import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SCENARIOS } from '../src/catalog.js';

const REPO = fileURLToPath(new URL('../../..', import.meta.url));
const SCRIPT = join(REPO, 'tools/docs-lists.mjs');
const SOURCES = [
  'packages/runtime/src/adapter-packages.ts',
  'packages/conformance/src/catalog.ts',
  'packages/conformance/src/catalog-broken-streams.ts',
  'packages/conformance/src/expected.ts',
];

const run = (root: string, ...args: string[]) =>
  spawnSync(process.execPath, [SCRIPT, '--root', root, ...args], { encoding: 'utf8' });

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'yourtool-docs-lists-test-'));
  for (const file of SOURCES) {
    mkdirSync(dirname(join(root, file)), { recursive: true });
    cpSync(join(REPO, file), join(root, file));
  }
  mkdirSync(join(root, 'docs'));
  writeFileSync(
    join(root, 'README.md'),
    'Types: <!-- generated:adapter-types --><!-- /generated -->.\n',
  );
  writeFileSync(
    join(root, 'docs/contract.md'),
    'Scenarios:\n\n<!-- generated:scenarios -->\n<!-- /generated -->\n\nCount: <!-- generated:scenario-count -->1<!-- /generated -->\n',
  );
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const edit = (file: string, from: string, to: string) => {
  const text = readFileSync(join(root, file), 'utf8');
  expect(text).toContain(from);
  writeFileSync(join(root, file), text.replace(from, to));
};

// each case starts the script up to five times; at a load average of 22 one case took over 30 s
describe('tools/docs-lists.mjs', { timeout: 120_000 }, () => {
  it('fills the regions from the code: every scenario of SCENARIOS in order, every adapter type', () => {
    const stale = run(root, '--check');
    expect(stale.status).toBe(1);
    expect(stale.stderr).toContain('README.md: adapter-types');
    expect(stale.stderr).toContain('docs/contract.md: scenarios');

    expect(run(root).status).toBe(0);
    expect(run(root, '--check')).toMatchObject({ status: 0, stderr: '' });
    const contract = readFileSync(join(root, 'docs/contract.md'), 'utf8');
    const listed = [...contract.matchAll(/`([a-z0-9_-]+)`/g)].map((m) => m[1]);
    expect(listed).toEqual(SCENARIOS.map((s) => s.name));
    expect(contract).toContain(
      `Count: <!-- generated:scenario-count -->${SCENARIOS.length}<!-- /generated -->`,
    );
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    expect(readme).toMatch(
      /^Types: <!-- generated:adapter-types -->`anthropic`, .*`vllm`<!-- \/generated -->\.\n$/,
    );
  });

  it('fails the check once a scenario or an adapter type is added to the code, until regenerated', () => {
    expect(run(root).status).toBe(0);
    edit(
      'packages/conformance/src/catalog.ts',
      '  ...BROKEN_STREAM_SCENARIOS,',
      "  { name: 'a-new-scenario' as ScenarioName, checks: 'x', fixture: null },\n  ...BROKEN_STREAM_SCENARIOS,",
    );
    edit(
      'packages/runtime/src/adapter-packages.ts',
      "    vllm: { package: '@yourtool/openai-compatible', export: 'VllmAdapter' },",
      "    vllm: { package: '@yourtool/openai-compatible', export: 'VllmAdapter' },\n    acme: { package: '@yourtool/acme', export: 'AcmeAdapter' },",
    );
    const stale = run(root, '--check');
    expect(stale.status).toBe(1);
    expect(stale.stderr).toContain('docs/contract.md: scenarios');
    expect(stale.stderr).toContain('docs/contract.md: scenario-count');
    expect(stale.stderr).toContain('README.md: adapter-types');

    expect(run(root).status).toBe(0);
    expect(run(root, '--check').status).toBe(0);
    expect(readFileSync(join(root, 'docs/contract.md'), 'utf8')).toContain('`a-new-scenario`');
    expect(readFileSync(join(root, 'README.md'), 'utf8')).toContain('`vllm`, `acme`<!--');
  });

  it('refuses an unknown region name and an unclosed region', () => {
    writeFileSync(
      join(root, 'docs/bad.md'),
      '<!-- generated:adapter-count -->4<!-- /generated -->\n',
    );
    const unknown = run(root, '--check');
    expect(unknown.status).toBe(1);
    expect(unknown.stderr).toContain('docs/bad.md: unknown generated region "adapter-count"');
    writeFileSync(join(root, 'docs/bad.md'), '<!-- generated:adapter-types -->\n');
    expect(run(root, '--check').stderr).toContain(
      'docs/bad.md: 1 generated regions opened, 0 closed',
    );
  });
});

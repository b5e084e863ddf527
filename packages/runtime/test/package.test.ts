import { readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import * as runtime from '../src/index.js';
import { KNOWN_ADAPTER_PACKAGES } from '../src/index.js';

const at = (path: string) => fileURLToPath(new URL(path, import.meta.url));
const manifest = JSON.parse(readFileSync(at('../package.json'), 'utf8')) as {
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
};
const declared = new Set([
  ...Object.keys(manifest.dependencies ?? {}),
  ...Object.keys(manifest.peerDependencies ?? {}),
]);

/** The package an import specifier names (`@scope/name/sub` → `@scope/name`), or null for Node's. */
function packageOf(specifier: string): string | null {
  if (specifier.startsWith('.') || specifier.startsWith('node:')) return null;
  if (builtinModules.includes(specifier)) return null;
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] as string);
}

it('lists as a dependency or peer every package its sources import', () => {
  const imported = new Map<string, string>();
  for (const file of readdirSync(at('../src')).filter((f) => f.endsWith('.ts'))) {
    const text = readFileSync(at(`../src/${file}`), 'utf8');
    const specifiers = [
      ...text.matchAll(/\bfrom\s+'([^']+)'/g),
      ...text.matchAll(/\bimport\(\s*'([^']+)'\s*\)/g),
    ].map((match) => match[1] as string);
    for (const specifier of specifiers) {
      const name = packageOf(specifier);
      if (name) imported.set(name, file);
    }
  }
  expect([...imported.keys()]).toContain('@yourtool/session');
  const missing = [...imported].filter(([name]) => !declared.has(name));
  expect(missing).toEqual([]);
});

it('declares every adapter package it loads by type, and @yourtool/store, as optional peers', () => {
  const loaded = new Set([
    ...Object.values(KNOWN_ADAPTER_PACKAGES).map((known) => known.package),
    '@yourtool/store',
  ]);
  for (const name of loaded) {
    expect(manifest.peerDependencies?.[name], name).toBeDefined();
    expect(manifest.peerDependenciesMeta?.[name]?.optional, name).toBe(true);
  }
});

it('re-exports what its README example imports and its options take', () => {
  const readme = readFileSync(at('../README.md'), 'utf8');
  const example = /## Example\n[\s\S]*?```ts\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
  const imports = [...example.matchAll(/import\s*\{([^}]*)\}\s*from\s*'([^']+)'/g)];
  expect(imports.map((match) => match[2])).toEqual(['@yourtool/runtime']);
  const values = (imports[0]?.[1] ?? '')
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '' && !name.startsWith('type '));
  for (const name of values) expect(runtime, name).toHaveProperty(name);
  for (const name of [
    'createRuntime',
    'defineTool',
    'ToolRegistry',
    'parseUserInput',
    'summarizeOlderTurns',
    'dropOldestTurns',
    'ToolInputError',
    'TurnInProgressError',
    'UnknownSessionError',
    'RouterConfigError',
    'NoRouteError',
  ]) {
    expect(typeof (runtime as Record<string, unknown>)[name], name).toBe('function');
  }
});

it("its README's install line names every package the example needs", () => {
  const readme = readFileSync(at('../README.md'), 'utf8');
  const line = /```sh\nnpm install ([^\n]+)\n```/.exec(readme)?.[1] ?? '';
  const installed = new Set(line.split(/\s+/));
  const example = /## Example\n[\s\S]*?```ts\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
  const needed = new Set<string>();
  // what it imports
  for (const match of example.matchAll(/from\s*'([^']+)'/g)) {
    const name = packageOf(match[1] as string);
    if (name) needed.add(name);
  }
  // the runtime's required peers (@yourtool/core)
  for (const name of Object.keys(manifest.peerDependencies ?? {})) {
    if (!manifest.peerDependenciesMeta?.[name]?.optional) needed.add(name);
  }
  // the adapter package of each adapter type its models.yaml names
  for (const match of example.matchAll(/\btype: ([\w-]+)/g)) {
    const known = KNOWN_ADAPTER_PACKAGES[match[1] as string];
    expect(known, match[1]).toBeDefined();
    needed.add((known as { package: string }).package);
  }
  // the store package for a store URL
  if (/\bstore: '(sqlite|postgres)/.test(example)) needed.add('@yourtool/store');
  expect([...needed].sort()).toEqual([
    '@yourtool/anthropic',
    '@yourtool/core',
    '@yourtool/openai',
    '@yourtool/runtime',
    '@yourtool/store',
  ]);
  expect([...needed].filter((name) => !installed.has(name))).toEqual([]);
});

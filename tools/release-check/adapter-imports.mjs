// Step 4c of the release check: every adapter package createRuntime loads by type, installed
// from the local registry into an empty directory, exports the class the runtime expects, from
// its ESM and its CommonJS build. A new adapter package (a new KNOWN_ADAPTER_PACKAGES entry) is
// checked by itself; a package whose published build lacks the export fails here before a
// models.yaml naming its type fails for a user.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readAdapterTypes } from '../docs-lists.mjs';

/** A script that loads each `{ package, export }` and prints one line per class it found. */
function loaderScript(adapters, kind) {
  const lines = adapters.map(({ package: name, export: exported }) => {
    const load = kind === 'esm' ? `(await import('${name}'))` : `require('${name}')`;
    return `report('${name}', '${exported}', ${load}['${exported}']);`;
  });
  return [
    'const found = [];',
    'function report(name, exported, value) {',
    "  if (typeof value !== 'function') {",
    "    throw new Error(name + ' does not export the class ' + exported + ' (got ' + typeof value + ')');",
    '  }',
    "  found.push(name + ':' + exported);",
    '}',
    ...lines,
    "process.stdout.write('adapter-exports=' + found.length + '\\n');",
    '',
  ].join('\n');
}

/**
 * Installs `@yourtool/core` and every adapter package in `<work>/adapters-app` and imports each
 * adapter class in ESM and CommonJS. `run` and `fail` are the release check's own; `excluded`
 * its RELEASE_CHECK_EXCLUDE set (a package left unpublished cannot be installed). Returns what
 * was checked, for the step's note.
 */
export async function checkAdapterImports({ root, work, npmEnv, run, fail, excluded }) {
  const adapters = readAdapterTypes(root).filter((adapter) => !excluded.has(adapter.package));
  const packages = [...new Set(adapters.map((adapter) => adapter.package))];
  const app = join(work, 'adapters-app');
  mkdirSync(app, { recursive: true });
  writeFileSync(
    join(app, 'package.json'),
    `${JSON.stringify({ name: 'release-check-adapters', private: true, version: '1.0.0' }, null, 2)}\n`,
  );
  await run('npm', ['install', '@yourtool/core', ...packages], {
    cwd: app,
    env: npmEnv,
    timeoutMs: 300_000,
  });
  for (const [kind, file] of [
    ['esm', 'load.mjs'],
    ['cjs', 'load.cjs'],
  ]) {
    writeFileSync(join(app, file), loaderScript(adapters, kind));
    const output = await run(process.execPath, [file], { cwd: app, timeoutMs: 60_000 });
    const count = Number(/adapter-exports=(\d+)/.exec(output)?.[1] ?? -1);
    if (count !== adapters.length) {
      fail(`${file}: found ${count} of ${adapters.length} adapter classes\n${output.slice(-2000)}`);
    }
  }
  return { packages, types: adapters.map((adapter) => adapter.type) };
}

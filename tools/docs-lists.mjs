// Lists in the docs that the code can change, generated from the code (decision 0159): the
// adapter types createRuntime knows (KNOWN_ADAPTER_PACKAGES in packages/runtime/src/adapter-packages.ts)
// and the conformance scenarios (SCENARIOS in packages/conformance/src/catalog.ts and
// catalog-broken-streams.ts), read from the sources, so nothing needs building first.
//
// A markdown file holds a list between `<!-- generated:NAME -->` and `<!-- /generated -->`:
// inline when both markers are on one line, else as lines of their own.
//
//   node tools/docs-lists.mjs            rewrites every stale region
//   node tools/docs-lists.mjs --check    names every stale region and exits 1 (pnpm lint)
//   --root DIR                           another checkout (the tests use a copy)
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const SKIP_DIRS = new Set(['node_modules', 'dist', '.git', '.turbo', '.changeset', 'coverage']);
const REGION = /<!-- generated:([a-z-]+) -->([\s\S]*?)<!-- \/generated -->/g;

/** The text between `start` and the first `end` after it, or a thrown error naming the file. */
function slice(text, start, end, file) {
  const from = text.indexOf(start);
  const to = from < 0 ? -1 : text.indexOf(end, from + start.length);
  if (to < 0)
    throw new Error(`${file}: cannot find ${JSON.stringify(start)} … ${JSON.stringify(end)}`);
  return text.slice(from + start.length, to);
}

/** The adapter types of KNOWN_ADAPTER_PACKAGES, in order: `{ type, package, export }`. */
export function readAdapterTypes(root) {
  const file = 'packages/runtime/src/adapter-packages.ts';
  const body = slice(
    readFileSync(join(root, file), 'utf8'),
    'export const KNOWN_ADAPTER_PACKAGES',
    '\n  };',
    file,
  );
  const entry =
    /(?:'([\w-]+)'|([\w-]+)):\s*\{\s*package:\s*'([^']+)',\s*export:\s*'([^']+)',?\s*\}/g;
  const types = [...body.matchAll(entry)].map((m) => ({
    type: m[1] ?? m[2],
    package: m[3],
    export: m[4],
  }));
  const keys = body.match(/^\s{4}(?:'[\w-]+'|[\w-]+):/gm) ?? [];
  if (types.length === 0 || keys.length !== types.length) {
    throw new Error(`${file}: KNOWN_ADAPTER_PACKAGES has an entry this script cannot read`);
  }
  return types;
}

const CATALOG_FILES = ['catalog.ts', 'catalog-broken-streams.ts', 'expected.ts'];

/**
 * The names of SCENARIOS, in the order the suite runs them: the catalog's three source files
 * (they import nothing but types) transpiled with the repository's TypeScript into a temporary
 * directory and imported, so that scenarios the catalog builds in code count too.
 */
export async function readScenarios(root) {
  const require = createRequire(import.meta.url);
  const ts = require('typescript');
  const dir = mkdtempSync(join(tmpdir(), 'yourtool-docs-lists-'));
  try {
    for (const file of CATALOG_FILES) {
      const source = readFileSync(join(root, 'packages/conformance/src', file), 'utf8');
      const { outputText } = ts.transpileModule(source, {
        compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
      });
      writeFileSync(
        join(dir, file.replace(/\.ts$/, '.mjs')),
        outputText.replaceAll(/from '(\.\/[\w-]+)\.js'/g, "from '$1.mjs'"),
      );
    }
    const { SCENARIOS } = await import(pathToFileURL(join(dir, 'catalog.mjs')).href);
    const names = SCENARIOS.map((scenario) => scenario.name);
    if (names.length === 0 || new Set(names).size !== names.length) {
      throw new Error(
        'packages/conformance/src/catalog.ts: SCENARIOS is empty or names a scenario twice',
      );
    }
    return names;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const code = (text) => `\`${text}\``;

/** Wraps `items` joined by ", " into lines of at most 100 characters. */
function wrap(items) {
  const lines = [];
  let line = '';
  for (const [i, item] of items.entries()) {
    const piece = i < items.length - 1 ? `${item},` : `${item}.`;
    if (line && line.length + 1 + piece.length > 100) {
      lines.push(line);
      line = piece;
    } else {
      line = line ? `${line} ${piece}` : piece;
    }
  }
  if (line) lines.push(line);
  return lines.join('\n');
}

/** What each region name holds, read from the checkout at `root`. */
export async function renderers(root) {
  const adapters = readAdapterTypes(root);
  const scenarios = await readScenarios(root);
  const packages = [...new Set(adapters.map((a) => a.package))];
  return {
    'adapter-types': adapters.map((a) => code(a.type)).join(', '),
    'adapter-packages': packages.map(code).join(', '),
    'adapter-table': [
      '| `type` | package | adapter class |',
      '|---|---|---|',
      ...adapters.map((a) => `| ${code(a.type)} | ${code(a.package)} | ${code(a.export)} |`),
    ].join('\n'),
    scenarios: wrap(scenarios.map(code)),
    'scenario-count': String(scenarios.length),
  };
}

/** Every markdown file of the checkout outside build output and dependencies. */
function markdownFiles(dir, out = []) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) {
      if (!SKIP_DIRS.has(entry.name)) markdownFiles(join(dir, entry.name), out);
    } else if (entry.name.endsWith('.md')) {
      out.push(join(dir, entry.name));
    }
  }
  return out;
}

/**
 * Regenerates every region under `root`. Returns the stale regions (`file: name`) and the
 * problems (an unknown region name); with `write`, stale files are rewritten.
 */
export async function updateDocs(root, { write = false } = {}) {
  const render = await renderers(root);
  const stale = [];
  const problems = [];
  for (const file of markdownFiles(root)) {
    const text = readFileSync(file, 'utf8');
    if (!text.includes('<!-- generated:')) continue;
    const name = relative(root, file);
    const next = text.replace(REGION, (whole, region, inner) => {
      if (!Object.hasOwn(render, region)) {
        problems.push(`${name}: unknown generated region "${region}"`);
        return whole;
      }
      const body = inner.includes('\n') ? `\n${render[region]}\n` : render[region];
      if (body !== inner) stale.push(`${name}: ${region}`);
      return `<!-- generated:${region} -->${body}<!-- /generated -->`;
    });
    const opened = text.match(/<!-- generated:/g)?.length ?? 0;
    const closed = text.match(/<!-- \/generated -->/g)?.length ?? 0;
    if (opened !== closed)
      problems.push(`${name}: ${opened} generated regions opened, ${closed} closed`);
    if (write && next !== text) writeFileSync(file, next);
  }
  return { stale, problems };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const args = process.argv.slice(2);
  const rootAt = args.indexOf('--root');
  const root = rootAt >= 0 ? args[rootAt + 1] : join(dirname(fileURLToPath(import.meta.url)), '..');
  const check = args.includes('--check');
  try {
    const { stale, problems } = await updateDocs(root, { write: !check });
    if (problems.length > 0) {
      process.stderr.write(`docs-lists:\n  ${problems.join('\n  ')}\n`);
      process.exit(1);
    }
    if (check && stale.length > 0) {
      process.stderr.write(
        `docs-lists: generated lists out of date (run \`node tools/docs-lists.mjs\`):\n  ${stale.join('\n  ')}\n`,
      );
      process.exit(1);
    }
    if (!check && stale.length > 0)
      process.stdout.write(`docs-lists: rewrote\n  ${stale.join('\n  ')}\n`);
  } catch (error) {
    process.stderr.write(`docs-lists: ${error.message}\n`);
    process.exit(1);
  }
}

#!/usr/bin/env node
// The shape rule the build keeps (decision 0160): in every package's src/, no file over 400 lines,
// no function over 80 lines or over 4 positional parameters, and no import cycle between files.
//
//   node tools/check-shape.mjs            check; exit 1 listing every breach
//   node tools/check-shape.mjs --report   also print the largest files and functions
//
// It reads the TypeScript syntax tree (the compiler's own parser), so a function's length is
// its text from `function`/name to the closing brace, nested functions included in the outer.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const ts = require('typescript');

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const MAX_FILE_LINES = 400;
const MAX_FUNCTION_LINES = 80;
const MAX_POSITIONAL_PARAMETERS = 4;

/**
 * Files left out of the line limit by path from the repository root, each with its reason:
 * generated data, not code a reader has to follow, e.g.
 * `['packages/pricing/src/default-table.ts', 'generated rates data']`. Their functions and
 * imports are still checked.
 */
const EXEMPT_FILES = new Map([]);

function sourceFiles() {
  const files = [];
  const packagesDir = join(root, 'packages');
  for (const pkg of readdirSync(packagesDir)) {
    const src = join(packagesDir, pkg, 'src');
    if (existsSync(src)) walk(src, files);
  }
  return files.sort();
}

function walk(dir, files) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) walk(path, files);
    else if (/\.(ts|tsx|mts|cts)$/.test(name) && !name.endsWith('.d.ts')) files.push(path);
  }
}

function lineOf(sf, pos) {
  return sf.getLineAndCharacterOfPosition(pos).line + 1;
}

function functionName(node) {
  if (node.name && ts.isIdentifier(node.name)) return node.name.text;
  if (node.name && ts.isPrivateIdentifier(node.name)) return node.name.text;
  if (node.name && ts.isStringLiteral(node.name)) return node.name.text;
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  const parent = node.parent;
  if (parent && ts.isVariableDeclaration(parent) && ts.isIdentifier(parent.name))
    return parent.name.text;
  if (parent && ts.isPropertyAssignment(parent) && parent.name && 'text' in parent.name)
    return parent.name.text;
  if (parent && ts.isPropertyDeclaration(parent) && parent.name && 'text' in parent.name)
    return parent.name.text;
  return '(anonymous)';
}

function isFunctionLike(node) {
  return (
    ts.isFunctionDeclaration(node) ||
    ts.isFunctionExpression(node) ||
    ts.isArrowFunction(node) ||
    ts.isMethodDeclaration(node) ||
    ts.isConstructorDeclaration(node) ||
    ts.isGetAccessorDeclaration(node) ||
    ts.isSetAccessorDeclaration(node)
  );
}

function importsOf(sf, file) {
  const targets = [];
  const add = (specifier) => {
    if (!specifier.startsWith('.')) return;
    const base = resolve(dirname(file), specifier.replace(/\.(m|c)?js$/, ''));
    for (const candidate of [`${base}.ts`, `${base}.tsx`, join(base, 'index.ts')]) {
      if (existsSync(candidate)) {
        targets.push(candidate);
        return;
      }
    }
  };
  for (const statement of sf.statements) {
    if (
      (ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement)) &&
      statement.moduleSpecifier &&
      ts.isStringLiteral(statement.moduleSpecifier)
    ) {
      add(statement.moduleSpecifier.text);
    }
  }
  return targets;
}

/** Tarjan's strongly connected components; every component of two or more files is a cycle. */
function cycles(graph) {
  let index = 0;
  const stack = [];
  const state = new Map();
  const found = [];
  const visit = (v) => {
    state.set(v, { index, low: index, onStack: true });
    index++;
    stack.push(v);
    for (const w of graph.get(v) ?? []) {
      if (!state.has(w)) {
        visit(w);
        state.get(v).low = Math.min(state.get(v).low, state.get(w).low);
      } else if (state.get(w).onStack) {
        state.get(v).low = Math.min(state.get(v).low, state.get(w).index);
      }
    }
    if (state.get(v).low === state.get(v).index) {
      const component = [];
      let w;
      do {
        w = stack.pop();
        state.get(w).onStack = false;
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || (graph.get(v) ?? []).includes(v)) found.push(component.sort());
    }
  };
  for (const v of graph.keys()) if (!state.has(v)) visit(v);
  return found;
}

function check() {
  const breaches = [];
  const sizes = [];
  const functions = [];
  const graph = new Map();
  for (const file of sourceFiles()) {
    const rel = relative(root, file);
    const text = readFileSync(file, 'utf8');
    const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
    const lines = text.endsWith('\n') ? text.split('\n').length - 1 : text.split('\n').length;
    sizes.push([rel, lines]);
    if (lines > MAX_FILE_LINES && !EXEMPT_FILES.has(rel)) {
      breaches.push(`${rel}: ${lines} lines (at most ${MAX_FILE_LINES})`);
    }
    graph.set(file, importsOf(sf, file));
    const visitNode = (node) => {
      if (isFunctionLike(node) && node.body) {
        const start = lineOf(sf, node.getStart(sf));
        const length = lineOf(sf, node.end) - start + 1;
        const name = functionName(node);
        functions.push([`${rel}:${start} ${name}`, length]);
        if (length > MAX_FUNCTION_LINES) {
          breaches.push(
            `${rel}:${start}: function ${name} is ${length} lines (at most ${MAX_FUNCTION_LINES})`,
          );
        }
        const positional = node.parameters.filter(
          (p) => !(ts.isIdentifier(p.name) && p.name.text === 'this'),
        ).length;
        if (positional > MAX_POSITIONAL_PARAMETERS) {
          breaches.push(
            `${rel}:${start}: function ${name} takes ${positional} positional parameters (at most ${MAX_POSITIONAL_PARAMETERS}; pass an options object)`,
          );
        }
      }
      ts.forEachChild(node, visitNode);
    };
    visitNode(sf);
  }
  for (const component of cycles(graph)) {
    breaches.push(`import cycle: ${component.map((f) => relative(root, f)).join(' -> ')}`);
  }
  return { breaches, sizes, functions };
}

const { breaches, sizes, functions } = check();
if (process.argv.includes('--report')) {
  console.log('largest files:');
  for (const [name, n] of sizes.sort((a, b) => b[1] - a[1]).slice(0, 10))
    console.log(`  ${n}  ${name}`);
  console.log('longest functions:');
  for (const [name, n] of functions.sort((a, b) => b[1] - a[1]).slice(0, 10))
    console.log(`  ${n}  ${name}`);
}
if (breaches.length > 0) {
  console.error(`check-shape: ${breaches.length} breach(es) of the shape rule (decision 0160):`);
  for (const b of breaches) console.error(`  ${b}`);
  process.exit(1);
}
console.log(
  `check-shape: ${sizes.length} files, ${functions.length} functions within ${MAX_FILE_LINES}/${MAX_FUNCTION_LINES} lines and ${MAX_POSITIONAL_PARAMETERS} parameters; no import cycles`,
);

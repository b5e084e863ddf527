import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Options of {@link materializeReadmeExample}. */
export interface ReadmeExampleOptions {
  /** Path of the README. */
  readme: string;
  /** The example is the first ```ts block after this heading line (e.g. `## Example`). */
  heading: string;
  /** Module specifiers to rewrite, e.g. `{ '@yourtool/core': '/abs/packages/core/src/index.ts' }`. */
  rewrite: Record<string, string>;
  /** Where to write the runnable module. */
  outFile: string;
}

/**
 * Turns a README example into a module a test can import, so the README can never drift from
 * the code: imports are rewritten to the package source, and every
 * `console.log(expr); // expected` line becomes an assertion that `expr` deep-equals
 * `expected` (a JavaScript literal). The generated module exports `checks`, the number of
 * assertions it ran.
 */
export function materializeReadmeExample(options: ReadmeExampleOptions): string {
  const text = readFileSync(options.readme, 'utf8');
  const at = text.indexOf(`\n${options.heading}\n`);
  if (at < 0) throw new Error(`${options.readme}: no "${options.heading}" heading`);
  const match = /```ts\n([\s\S]*?)```/.exec(text.slice(at));
  if (!match?.[1])
    throw new Error(`${options.readme}: no \`\`\`ts block after "${options.heading}"`);
  let code = match[1];
  for (const [from, to] of Object.entries(options.rewrite)) {
    code = code.split(`'${from}'`).join(JSON.stringify(to));
  }
  code = code.replace(/^(\s*)console\.log\((.*)\); \/\/ (.*)$/gm, '$1__check($2, $3);');
  const prelude = [
    "import { isDeepStrictEqual, inspect } from 'node:util';",
    'export let checks = 0;',
    'function __check(actual: unknown, expected: unknown): void {',
    '  checks++;',
    '  if (!isDeepStrictEqual(actual, expected)) {',
    "    throw new Error('README example: expected ' + inspect(expected) + ', got ' + inspect(actual));",
    '  }',
    '}',
  ].join('\n');
  mkdirSync(dirname(options.outFile), { recursive: true });
  writeFileSync(options.outFile, `${prelude}\n${code}`);
  return options.outFile;
}

/** Options of {@link runReadmeExample}. */
export interface RunReadmeExampleOptions {
  /** The test file's `import.meta.url`; the package is the folder above its `test/`. */
  testUrl: string;
  /** The package's name, rewritten to its `src/index.ts`. */
  packageName: string;
  /** The heading the example follows. Default `## Example`. */
  heading?: string;
  /** More module specifiers to rewrite, to absolute paths. */
  rewrite?: Record<string, string>;
}

/** How many README examples this process ran (each import is a new module). */
let exampleRuns = 0;

/**
 * Runs a package's README example (see {@link materializeReadmeExample}) from its test folder:
 * the package's own name resolves to its source, sibling packages to their builds. Resolves to
 * the number of `console.log(...); // expected` checks the example ran.
 */
export async function runReadmeExample(options: RunReadmeExampleOptions): Promise<number> {
  const at = (relative: string) => fileURLToPath(new URL(relative, options.testUrl));
  const file = materializeReadmeExample({
    readme: at('../README.md'),
    heading: options.heading ?? '## Example',
    rewrite: { [options.packageName]: at('../src/index.ts'), ...options.rewrite },
    outFile: at(
      `./.generated/readme-${(options.heading ?? 'example').replace(/[^a-z0-9]+/gi, '-').toLowerCase()}.ts`,
    ),
  });
  // a fresh module each run: a test run again in one process (vitest --repeats) runs it again
  const module = (await import(/* @vite-ignore */ `${file}?run=${++exampleRuns}`)) as {
    checks: number;
  };
  return module.checks;
}

/** Options of {@link runReadmeCommonJsExample}. */
export interface RunReadmeCommonJsOptions {
  /** The test file's `import.meta.url`; the package is the folder above its `test/`. */
  testUrl: string;
  /** The heading the ```js block follows. Default `### CommonJS`. */
  heading?: string;
  /** Environment for the example (e.g. a loopback server's URL as the base URL). */
  env?: Record<string, string>;
  /** Deadline for the run. Default 30 s. */
  timeoutMs?: number;
}

/**
 * Runs a package's README CommonJS example in a separate `node` process, exactly as a
 * CommonJS user would: `require` resolves the package's own name to its built `dist/*.cjs`
 * (self-reference through `exports`) and its siblings to theirs, so this checks the
 * published CommonJS build. Every `console.log(expr); // expected` line becomes a check as in
 * {@link materializeReadmeExample}. Resolves to the number of checks that ran; rejects when the
 * process fails, the deadline passes, or a check fails.
 */
export async function runReadmeCommonJsExample(options: RunReadmeCommonJsOptions): Promise<number> {
  const { spawn } = await import('node:child_process');
  const { existsSync } = await import('node:fs');
  const at = (relative: string) => fileURLToPath(new URL(relative, options.testUrl));
  const heading = options.heading ?? '### CommonJS';
  const readme = at('../README.md');
  const text = readFileSync(readme, 'utf8');
  const start = text.indexOf(`\n${heading}\n`);
  if (start < 0) throw new Error(`${readme}: no "${heading}" heading`);
  const match = /```js\n([\s\S]*?)```/.exec(text.slice(start));
  if (!match?.[1]) throw new Error(`${readme}: no \`\`\`js block after "${heading}"`);
  if (!existsSync(at('../dist'))) {
    throw new Error(`${at('..')}: no dist/ to require; build the package first (pnpm build)`);
  }
  const code = match[1].replace(/^(\s*)console\.log\((.*)\); \/\/ (.*)$/gm, '$1__check($2, $3);');
  const prelude = [
    "const { isDeepStrictEqual: __equal, inspect: __inspect } = require('node:util');",
    'let __checks = 0;',
    "process.on('exit', () => process.stdout.write('\\nreadme-checks=' + __checks + '\\n'));",
    'function __check(actual, expected) {',
    '  __checks++;',
    '  if (!__equal(actual, expected)) {',
    "    throw new Error('README example: expected ' + __inspect(expected) + ', got ' + __inspect(actual));",
    '  }',
    '}',
  ].join('\n');
  const file = at('./.generated/readme-commonjs.cjs');
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${prelude}\n${code}`);
  return new Promise<number>((resolve, reject) => {
    const child = spawn(process.execPath, [file], {
      cwd: dirname(file),
      env: { ...process.env, ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(
        new Error(`the CommonJS example did not finish within ${options.timeoutMs ?? 30_000} ms`),
      );
    }, options.timeoutMs ?? 30_000);
    child.on('close', (exitCode) => {
      clearTimeout(timer);
      const checks = /readme-checks=(\d+)/.exec(output);
      if (exitCode !== 0 || !checks?.[1]) {
        reject(new Error(`the CommonJS example failed (exit ${exitCode}):\n${output}`));
      } else resolve(Number(checks[1]));
    });
  });
}

/**
 * A 1×1 transparent PNG, base64: for tests that need an image block. (The published
 * `@yourtool/conformance` carries the same bytes as `TEST_PNG_BASE64` for its scenarios.)
 */
export const PNG_1PX_BASE64 =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

/**
 * The metadata an assistant message produced by `model` (`provider:name`) carries in tests: a
 * default routing record and a one-token, zero-cost usage. Shaped to fit core's
 * `Partial<MessageMetadata>` (testkit cannot import core: core's tests import testkit).
 */
export function assistantTestMetadata(model: string) {
  return {
    model,
    provider: model.split(':')[0] ?? model,
    routing: {
      mode: 'default' as const,
      chosen_model: model,
      reason: 'test',
      alternatives_considered: [] as string[],
    },
    usage: {
      input_tokens: 1,
      output_tokens: 1,
      cached_input_tokens: 0,
      cache_creation_input_tokens: 0,
      cost_usd: '0',
      pricing_version: 't',
      latency_ms: 1,
    },
  };
}

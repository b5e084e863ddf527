import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';

// A fresh process (the test runner's own has loaded everything already): does importing the
// Anthropic adapter and constructing it load ajv, and does the first tool-input validation?
const PACKAGE_DIR = fileURLToPath(new URL('..', import.meta.url));

const ESM = `
import { createRequire } from 'node:module';
const loaded = () => Object.keys(createRequire(import.meta.url).cache).some((k) => /[\\\\/]ajv[\\\\/]/.test(k));
const { AnthropicAdapter } = await import('@yourtool/anthropic');
new AnthropicAdapter({ api_key: 'test', base_url: 'http://127.0.0.1:9' });
const afterImport = loaded();
const { validateToolInput, resolveOutputSchema } = await import('@yourtool/core');
const afterCoreImport = loaded();
const invalid = validateToolInput({ input_schema: { type: 'object', required: ['path'] } }, {});
const afterValidate = loaded();
const output = resolveOutputSchema({ type: 'object', properties: { n: { type: 'integer' } } });
console.log(JSON.stringify({ afterImport, afterCoreImport, invalid, afterValidate, output: output.validate({ n: 'x' }).ok }));
`;

const CJS = `
const loaded = () => Object.keys(require.cache).some((k) => /[\\\\/]ajv[\\\\/]/.test(k));
const { AnthropicAdapter } = require('@yourtool/anthropic');
new AnthropicAdapter({ api_key: 'test', base_url: 'http://127.0.0.1:9' });
const afterImport = loaded();
const invalid = require('@yourtool/core').validateToolInput({ input_schema: { type: 'object', required: ['path'] } }, {});
console.log(JSON.stringify({ afterImport, invalid, afterValidate: loaded() }));
`;

async function run(type: 'module' | 'commonjs', source: string): Promise<Record<string, unknown>> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [`--input-type=${type}`, '-e', source],
    { cwd: PACKAGE_DIR },
  );
  return JSON.parse(stdout) as Record<string, unknown>;
}

const MISSING_PATH = {
  ok: false,
  issues: [{ path: 'input.path', message: "must have required property 'path'" }],
};

it('importing @yourtool/anthropic (ESM) loads no ajv; the first validation loads it and validates', async () => {
  expect(await run('module', ESM)).toEqual({
    afterImport: false,
    afterCoreImport: false,
    invalid: MISSING_PATH,
    afterValidate: true,
    output: false,
  });
});

it('requiring @yourtool/anthropic (CommonJS) loads no ajv; the first validation loads it', async () => {
  expect(await run('commonjs', CJS)).toEqual({
    afterImport: false,
    invalid: MISSING_PATH,
    afterValidate: true,
  });
});

import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';

// A fresh process (the test runner's own has loaded zod already): does a well-formed first call
// (createMessage, the request, adapter options nobody set) load zod, and does the first use of a
// schema load it, the same zod an `import` gives? (decision 0198; the built package is run)
const PACKAGE_DIR = fileURLToPath(new URL('..', import.meta.url));

const HOOK = `
const { registerHooks } = process.getBuiltinModule('node:module');
let zodLoaded = false;
registerHooks({
  resolve(specifier, context, next) {
    const resolved = next(specifier, context);
    if (/[\\\\/]zod[\\\\/]/.test(resolved.url)) zodLoaded = true;
    return resolved;
  },
});
`;

const FIRST_CALL = `
const message = core.createMessage({ session_id: 'sess_1', role: 'user', content: [{ type: 'text', text: 'hi' }] });
const request = toolkit.normalizeRequest({
  request_id: 'req_1',
  model: 'anthropic:claude-sonnet-4-6',
  messages: [message],
  tools: [{ name: 'read_file', description: 'Read.', input_schema: { type: 'object' }, side_effects: 'read' }],
  max_output_tokens: 100,
});
const Options = toolkit.lazySchema((z) => z.strictObject({ a: z.string().optional() }), { emptyOutput: () => ({}) });
const options = toolkit.parseAdapterOptions(Options, undefined, 'test');
const afterFirstCall = zodLoaded;
const parsed = core.MessageSchema.parse(message);
const out = { afterFirstCall, tools: request.tools.length, options, afterSchema: zodLoaded, equal: JSON.stringify(parsed) === JSON.stringify(message) };
`;

const ESM = `${HOOK}
const core = await import('@yourtool/core');
const toolkit = await import('@yourtool/core/adapter');
${FIRST_CALL}
const { z } = await import('zod');
out.sameZod = core.MessageSchema instanceof z.ZodObject && z.object({ m: core.MessageSchema }).safeParse({ m: message }).success;
console.log(JSON.stringify(out));
`;

const CJS = `${HOOK}
const core = require('@yourtool/core');
const toolkit = require('@yourtool/core/adapter');
${FIRST_CALL}
out.sameZod = core.MessageSchema instanceof require('zod').z.ZodObject;
console.log(JSON.stringify(out));
`;

async function run(type: 'module' | 'commonjs', source: string): Promise<Record<string, unknown>> {
  const { stdout, stderr } = await promisify(execFile)(
    process.execPath,
    [`--input-type=${type}`, '-e', source],
    { cwd: PACKAGE_DIR },
  );
  expect(stderr).toBe('');
  return JSON.parse(stdout) as Record<string, unknown>;
}

const EXPECTED = {
  afterFirstCall: false,
  tools: 1,
  options: {},
  afterSchema: true,
  equal: true,
  sameZod: true,
};

it('a well-formed first call (ESM) loads no zod; the first schema use loads the zod an import gives', async () => {
  expect(await run('module', ESM)).toEqual(EXPECTED);
});

it('a well-formed first call (CommonJS) loads no zod; the first schema use loads it', async () => {
  expect(await run('commonjs', CJS)).toEqual(EXPECTED);
});

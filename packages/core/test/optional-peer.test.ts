// The built package, ESM and CommonJS, where `@opentelemetry/api` is not installed (as after
// `npm install @yourtool/core` without the optional peer): calls run and record nothing.
import { execFileSync } from 'node:child_process';
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const require = createRequire(import.meta.url);

const pkg = fileURLToPath(new URL('..', import.meta.url));
let dir: string;

const CALL = `
const setup = {
  provider: 'fake',
  inflight: new InflightCalls(),
  maxRetries: 0,
  toAdapterError: (e) => e,
};
const request = {
  request_id: 'req_1',
  model: 'fake:model',
  max_output_tokens: 10,
  messages: [createMessage({ session_id: newSessionId(), role: 'user', content: [{ type: 'text', text: 'hi' }] })],
};
const reply = {
  request_id: 'req_1', model: 'fake:model', provider: 'fake', stop_reason: 'end_turn', latency_ms: 1,
  content: [{ type: 'text', text: 'hello' }],
  usage: { input_tokens: 1, output_tokens: 1, cached_input_tokens: 0, cache_creation_input_tokens: 0 },
};
async function main() {
  let missing = false;
  try { await import('@opentelemetry/api'); } catch { missing = true; }
  if (typeof require === 'function') {
    try { require.resolve('@opentelemetry/api'); missing = false; } catch {}
  }
  if (!missing) throw new Error('precondition: @opentelemetry/api must not resolve here');
  const first = await runCompleteCall(setup, request, {}, async () => reply);
  const second = await runCompleteCall(setup, { ...request, request_id: 'req_2' }, {}, async () => reply);
  const telemetry = await getTelemetry();
  console.log(JSON.stringify({ text: first.content[0].text, again: second.stop_reason, telemetry }));
}
main().catch((error) => { console.error(error); process.exitCode = 1; });
`;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'yourtool-no-otel-'));
  const modules = join(dir, 'node_modules');
  const core = join(modules, '@yourtool', 'core');
  mkdirSync(core, { recursive: true });
  cpSync(join(pkg, 'package.json'), join(core, 'package.json'));
  cpSync(join(pkg, 'dist'), join(core, 'dist'), { recursive: true });
  // core's own dependencies, as its package.json lists them, and nothing else
  const manifest = require(join(pkg, 'package.json')) as { dependencies: Record<string, string> };
  for (const dep of Object.keys(manifest.dependencies)) {
    symlinkSync(realpathSync(join(pkg, 'node_modules', dep)), join(modules, dep), 'dir');
  }
  writeFileSync(
    join(dir, 'check.mjs'),
    `import { createMessage, newSessionId } from '@yourtool/core';\nimport { getTelemetry, InflightCalls, runCompleteCall } from '@yourtool/core/adapter';\n${CALL}`,
  );
  writeFileSync(
    join(dir, 'check.cjs'),
    `const { createMessage, newSessionId } = require('@yourtool/core');\nconst { getTelemetry, InflightCalls, runCompleteCall } = require('@yourtool/core/adapter');\n${CALL}`,
  );
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the built package without @opentelemetry/api', () => {
  for (const file of ['check.mjs', 'check.cjs']) {
    it(`${file}: calls work, telemetry is null`, () => {
      // no NODE_PATH: pnpm's scripts point it at the workspace's hoisted store, which has the API
      const { NODE_PATH: _, ...env } = process.env;
      const out = execFileSync(process.execPath, [file], { cwd: dir, encoding: 'utf8', env });
      expect(JSON.parse(out)).toEqual({ text: 'hello', again: 'end_turn', telemetry: null });
    });
  }
});

describe('the built CommonJS package with @opentelemetry/api installed', () => {
  it('records the call span through require()', () => {
    const from = (name: string) => JSON.stringify(require.resolve(name, { paths: [pkg] }));
    const script = `
const { trace } = require(${from('@opentelemetry/api')});
const sdk = require(${from('@opentelemetry/sdk-trace')});
const { createMessage, newSessionId } = require(${JSON.stringify(join(pkg, 'dist', 'index.cjs'))});
const { InflightCalls, runCompleteCall } = require(${JSON.stringify(join(pkg, 'dist', 'adapter.cjs'))});
const exporter = new sdk.InMemorySpanExporter();
trace.setGlobalTracerProvider(
  new sdk.TracerProvider({ spanProcessors: [new sdk.SimpleSpanProcessor({ exporter })] }),
);
const reply = {
  request_id: 'req_1', model: 'fake:model', provider: 'fake', stop_reason: 'end_turn', latency_ms: 1,
  content: [{ type: 'text', text: 'hello' }],
  usage: { input_tokens: 3, output_tokens: 2, cached_input_tokens: 0, cache_creation_input_tokens: 0 },
};
runCompleteCall(
  { provider: 'fake', inflight: new InflightCalls(), maxRetries: 0, toAdapterError: (e) => e },
  {
    request_id: 'req_1', model: 'fake:model', max_output_tokens: 10,
    messages: [createMessage({ session_id: newSessionId(), role: 'user', content: [{ type: 'text', text: 'hi' }] })],
  },
  {},
  async () => reply,
).then(() => {
  const [span] = exporter.getFinishedSpans();
  console.log(JSON.stringify({ name: span.name, input: span.attributes['gen_ai.usage.input_tokens'] }));
});
`;
    const file = join(dir, 'traced.cjs');
    writeFileSync(file, script);
    const out = execFileSync(process.execPath, [file], { encoding: 'utf8' });
    expect(JSON.parse(out)).toEqual({ name: 'chat model', input: 3 });
  });
});

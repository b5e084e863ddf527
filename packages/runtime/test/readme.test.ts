import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  type LoopbackServer,
  loadFixtureDirectory,
  startLoopbackServer,
} from '@yourtool/conformance';
import { materializeReadmeExample, runReadmeExample } from '@yourtool/testkit';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';

let server: LoopbackServer;
beforeAll(async () => {
  server = await startLoopbackServer();
});
afterAll(() => server.close());
// each run counts its own requests (vitest --repeats runs a test again on the same server)
beforeEach(() => server.reset());

const fixtures = (name: string) =>
  loadFixtureDirectory(fileURLToPath(new URL(`../../${name}/test/fixtures`, import.meta.url)));

/** A tool loop on Claude (two calls), then one call on GPT-5, all from the loopback server. */
function serveClaudeToolLoopThenGpt5(): void {
  server.reset();
  server.enqueue(
    ...(fixtures('anthropic')['tool-call-stream'] ?? []),
    ...(fixtures('anthropic')['text-stream'] ?? []),
    ...(fixtures('openai')['text-stream'] ?? []),
  );
  process.env.ANTHROPIC_API_KEY = 'sk-ant-readme-0000000000';
  process.env.ANTHROPIC_BASE_URL = server.url;
  process.env.OPENAI_API_KEY = 'sk-readme-00000000000000';
  process.env.OPENAI_BASE_URL = server.url;
}

it('the README example runs against recorded responses and prints what it says', async () => {
  serveClaudeToolLoopThenGpt5();
  // the other packages resolve to their builds (turbo builds them before the tests)
  expect(
    await runReadmeExample({ testUrl: import.meta.url, packageName: '@yourtool/runtime' }),
  ).toBe(3);
  expect(server.requests.map((r) => r.path)).toEqual([
    '/v1/messages',
    '/v1/messages',
    '/chat/completions',
  ]);
  expect(server.pending()).toBe(0);
});

it("the root README's twenty lines run as written, their tool reading the workspace", async () => {
  serveClaudeToolLoopThenGpt5();
  // its store is a file in the working directory: a temporary one here
  const dir = mkdtempSync(join(tmpdir(), 'runtime-root-readme-'));
  try {
    const file = materializeReadmeExample({
      readme: fileURLToPath(new URL('../../../README.md', import.meta.url)),
      heading: '## Twenty lines',
      rewrite: {
        '@yourtool/runtime': fileURLToPath(new URL('../src/index.ts', import.meta.url)),
        'sqlite:./sessions.db': `sqlite:${join(dir, 'sessions.db')}`,
      },
      outFile: fileURLToPath(new URL('./.generated/root-readme-twenty-lines.ts', import.meta.url)),
    });
    // a fresh module each run (vitest --repeats runs the test again in this process)
    const module = (await import(/* @vite-ignore */ `${file}?run=${Date.now()}`)) as {
      checks: number;
    };
    expect(module.checks).toBe(1);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  expect(server.requests.map((r) => r.path)).toEqual([
    '/v1/messages',
    '/v1/messages',
    '/chat/completions',
  ]);
  // the model asked for README.md; the tool read it from the workspace (this package's folder)
  const toolLoop = JSON.stringify(server.requests[1]?.body);
  expect(toolLoop).toContain('tool_result');
  expect(toolLoop).toContain('# @yourtool/runtime');
});

import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import {
  type LoopbackServer,
  loadFixtureDirectory,
  startLoopbackServer,
} from '@yourtool/conformance';
import { runReadmeCommonJsExample } from '@yourtool/testkit';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';

let server: LoopbackServer;
beforeAll(async () => {
  server = await startLoopbackServer();
});
afterAll(() => server.close());
// each run counts its own requests (vitest --repeats runs a test again on the same server)
beforeEach(() => server.reset());

it('the README CommonJS form runs from the CommonJS builds', async () => {
  const fixtures = loadFixtureDirectory(
    fileURLToPath(new URL('../../anthropic/test/fixtures', import.meta.url)),
  );
  server.enqueue(...(fixtures['text-stream'] ?? []));
  // the example reads models.yaml from its working directory, the generated example's folder
  const generated = fileURLToPath(new URL('./.generated/', import.meta.url));
  mkdirSync(generated, { recursive: true });
  writeFileSync(
    `${generated}models.yaml`,
    [
      'adapters:',
      '  anthropic: { type: anthropic, api_key_env: ANTHROPIC_API_KEY }',
      'models:',
      '  anthropic:claude-sonnet-4-6: { adapter: anthropic, wire_name: claude-sonnet-4-6 }',
      '',
    ].join('\n'),
  );
  expect(
    await runReadmeCommonJsExample({
      testUrl: import.meta.url,
      heading: '## CommonJS',
      env: { ANTHROPIC_API_KEY: 'sk-ant-readme-0000000000', ANTHROPIC_BASE_URL: server.url },
    }),
  ).toBe(1);
  expect(server.requests.map((r) => r.path)).toEqual(['/v1/messages']);
  expect(server.pending()).toBe(0);
});

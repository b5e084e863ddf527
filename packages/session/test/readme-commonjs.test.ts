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
// each run counts its own requests (vitest --repeats runs the test again on the same server)
beforeEach(() => server.reset());

it('the README CommonJS form runs from the CommonJS builds', async () => {
  const fixtures = loadFixtureDirectory(
    fileURLToPath(new URL('../../anthropic/test/fixtures', import.meta.url)),
  );
  server.enqueue(...(fixtures['text-stream'] ?? []));
  expect(
    await runReadmeCommonJsExample({
      testUrl: import.meta.url,
      env: { ANTHROPIC_API_KEY: 'sk-ant-readme-0000000000', ANTHROPIC_BASE_URL: server.url },
    }),
  ).toBe(1);
  expect(server.requests.map((r) => r.path)).toEqual(['/v1/messages']);
  expect(server.pending()).toBe(0);
});

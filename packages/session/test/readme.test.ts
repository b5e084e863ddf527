import { fileURLToPath } from 'node:url';
import {
  type LoopbackServer,
  loadFixtureDirectory,
  startLoopbackServer,
} from '@yourtool/conformance';
import { runReadmeExample } from '@yourtool/testkit';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';

let server: LoopbackServer;
beforeAll(async () => {
  server = await startLoopbackServer();
});
afterAll(() => server.close());
// each run counts its own requests (vitest --repeats runs a test again on the same server)
beforeEach(() => server.reset());

it('the README example runs against recorded responses and prints what it says', async () => {
  const fixtures = loadFixtureDirectory(
    fileURLToPath(new URL('../../anthropic/test/fixtures', import.meta.url)),
  );
  server.enqueue(...(fixtures['tool-call-stream'] ?? []), ...(fixtures['text-stream'] ?? []));
  process.env.ANTHROPIC_API_KEY = 'sk-ant-readme-0000000000';
  process.env.ANTHROPIC_BASE_URL = server.url;
  // the other packages resolve to their builds (turbo builds them before the tests)
  expect(
    await runReadmeExample({ testUrl: import.meta.url, packageName: '@yourtool/session' }),
  ).toBe(6);
  expect(server.requests).toHaveLength(2);
});

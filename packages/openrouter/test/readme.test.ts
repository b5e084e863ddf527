import { fileURLToPath } from 'node:url';
import {
  type LoopbackServer,
  loadFixtureDirectory,
  startLoopbackServer,
} from '@yourtool/conformance';
import { runReadmeCommonJsExample, runReadmeExample } from '@yourtool/testkit';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';

let server: LoopbackServer;
beforeAll(async () => {
  server = await startLoopbackServer();
});
afterAll(() => server.close());
// each run counts its own requests (vitest --repeats runs a test again on the same server)
beforeEach(() => server.reset());

it('the README example runs against recorded responses and prints what it says', async () => {
  const fixtures = loadFixtureDirectory(fileURLToPath(new URL('./fixtures', import.meta.url)));
  server.enqueue(...(fixtures.text ?? []), ...(fixtures['thinking-stream'] ?? []));
  process.env.OPENROUTER_API_KEY = 'sk-or-v1-readme0000000000';
  process.env.OPENROUTER_BASE_URL = server.url;
  expect(
    await runReadmeExample({ testUrl: import.meta.url, packageName: '@yourtool/openrouter' }),
  ).toBe(4);
  expect(server.requests[0]?.headers['x-title']).toBe('Example app');
  expect(server.requests[1]?.body).toMatchObject({ reasoning: { max_tokens: 1024 } });
  expect(server.requests).toHaveLength(2);
  expect(server.pending()).toBe(0);
});

it('the README CommonJS form runs from the CommonJS build', async () => {
  const fixtures = loadFixtureDirectory(fileURLToPath(new URL('./fixtures', import.meta.url)));
  server.reset();
  server.enqueue(...(fixtures.text ?? []));
  expect(
    await runReadmeCommonJsExample({
      testUrl: import.meta.url,
      env: { OPENROUTER_API_KEY: 'sk-or-v1-readme0000000000', OPENROUTER_BASE_URL: server.url },
    }),
  ).toBe(1);
  expect(server.pending()).toBe(0);
});

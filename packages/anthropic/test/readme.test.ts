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
  server.enqueue(...(fixtures.text ?? []), ...(fixtures['tool-call-stream'] ?? []));
  process.env.ANTHROPIC_API_KEY = 'sk-ant-readme-0000000000';
  process.env.ANTHROPIC_BASE_URL = server.url;
  expect(
    await runReadmeExample({ testUrl: import.meta.url, packageName: '@yourtool/anthropic' }),
  ).toBe(5);
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
      env: { ANTHROPIC_API_KEY: 'sk-ant-readme-0000000000', ANTHROPIC_BASE_URL: server.url },
    }),
  ).toBe(1);
  expect(server.requests).toHaveLength(1);
  expect(server.pending()).toBe(0);
});

it('the README Claude on Vertex AI example runs against recorded responses through the Vertex SDK', async () => {
  const fixtures = loadFixtureDirectory(fileURLToPath(new URL('./fixtures', import.meta.url)));
  server.enqueue(...(fixtures.text ?? []));
  process.env.VERTEX_ACCESS_TOKEN = 'ya29.readme-0000000000';
  process.env.ANTHROPIC_VERTEX_BASE_URL = `${server.url}/v1`;
  try {
    expect(
      await runReadmeExample({
        testUrl: import.meta.url,
        packageName: '@yourtool/anthropic',
        heading: '## Claude on Google Vertex AI',
      }),
    ).toBe(3);
  } finally {
    delete process.env.VERTEX_ACCESS_TOKEN;
    delete process.env.ANTHROPIC_VERTEX_BASE_URL;
  }
  expect(server.requests.map((r) => r.path)).toEqual([
    '/v1/projects/my-project/locations/us-east5/publishers/anthropic/models/claude-sonnet-4-5@20250929:rawPredict',
  ]);
  expect(server.pending()).toBe(0);
});

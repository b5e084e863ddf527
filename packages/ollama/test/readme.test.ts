import { fileURLToPath } from 'node:url';
import {
  type LoopbackServer,
  loadFixtureDirectory,
  startLoopbackServer,
} from '@yourtool/conformance';
import { runReadmeCommonJsExample, runReadmeExample } from '@yourtool/testkit';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { showFixture } from './show.js';

let server: LoopbackServer;
const previousHost = process.env.OLLAMA_HOST;
beforeAll(async () => {
  server = await startLoopbackServer();
});
afterAll(async () => {
  if (previousHost === undefined) delete process.env.OLLAMA_HOST;
  else process.env.OLLAMA_HOST = previousHost;
  await server.close();
});

// each run counts its own requests (vitest --repeats runs a test again on the same server)
beforeEach(() => server.reset());

it('the README example runs against recorded responses and prints what it says', async () => {
  const fixtures = loadFixtureDirectory(fileURLToPath(new URL('./fixtures', import.meta.url)));
  server.enqueue(
    { type: 'json', body: showFixture('qwen3_8b') },
    ...(fixtures.text ?? []),
    ...(fixtures['tool-call-stream'] ?? []),
  );
  process.env.OLLAMA_HOST = server.url;
  expect(
    await runReadmeExample({ testUrl: import.meta.url, packageName: '@yourtool/ollama' }),
  ).toBe(7);
  expect(server.requests.map((r) => r.path)).toEqual(['/api/show', '/api/chat', '/api/chat']);
  expect(server.pending()).toBe(0);
});

it('the README CommonJS form runs from the CommonJS build', async () => {
  const fixtures = loadFixtureDirectory(fileURLToPath(new URL('./fixtures', import.meta.url)));
  server.reset();
  server.enqueue({ type: 'json', body: showFixture('qwen3_8b') }, ...(fixtures.text ?? []));
  expect(
    await runReadmeCommonJsExample({
      testUrl: import.meta.url,
      env: { OLLAMA_HOST: server.url },
    }),
  ).toBe(1);
  expect(server.pending()).toBe(0);
});

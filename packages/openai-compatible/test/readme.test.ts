import { fileURLToPath } from 'node:url';
import {
  type LoopbackServer,
  loadFixtureDirectory,
  startLoopbackServer,
} from '@yourtool/conformance';
import { runReadmeCommonJsExample, runReadmeExample } from '@yourtool/testkit';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';

const vllm = loadFixtureDirectory(fileURLToPath(new URL('./fixtures-vllm', import.meta.url)));
const mistral = loadFixtureDirectory(fileURLToPath(new URL('./fixtures-mistral', import.meta.url)));

let server: LoopbackServer;
beforeAll(async () => {
  server = await startLoopbackServer();
});
afterAll(() => server.close());
// each run counts its own requests (vitest --repeats runs a test again on the same server)
beforeEach(() => server.reset());

it('the README example runs against recorded responses and prints what it says', async () => {
  server.enqueue(...(vllm.text ?? []), ...(vllm['thinking-stream'] ?? []));
  process.env.GROQ_API_KEY = 'gsk_readme_0000000000';
  process.env.GROQ_BASE_URL = server.url;
  process.env.LOCAL_LLM_URL = server.url;
  expect(
    await runReadmeExample({
      testUrl: import.meta.url,
      packageName: '@yourtool/openai-compatible',
    }),
  ).toBe(4);
  const [groq, local] = server.requests;
  expect(groq?.body).toMatchObject({
    model: 'llama-3.3-70b-versatile',
    max_completion_tokens: 1024,
  });
  expect(local?.headers).not.toHaveProperty('authorization');
  expect(local?.body).toMatchObject({ model: 'qwen3-8b', max_tokens: 2048, stream: true });
  expect(server.pending()).toBe(0);
});

it('the README CommonJS form runs from the CommonJS build', async () => {
  server.reset();
  server.enqueue(...(mistral.text ?? []));
  expect(
    await runReadmeCommonJsExample({
      testUrl: import.meta.url,
      env: { MISTRAL_API_KEY: 'mistral-readme-0000', MISTRAL_BASE_URL: server.url },
    }),
  ).toBe(1);
  expect(server.requests[0]?.body).toMatchObject({
    model: 'mistral-large-latest',
    max_tokens: 512,
  });
  expect(server.pending()).toBe(0);
});

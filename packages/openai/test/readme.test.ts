import { fileURLToPath } from 'node:url';
import {
  type LoopbackServer,
  loadFixtureDirectory,
  startLoopbackServer,
} from '@yourtool/conformance';
import { materializeReadmeExample } from '@yourtool/testkit';
import { afterAll, beforeAll, expect, it } from 'vitest';

let server: LoopbackServer;
beforeAll(async () => {
  server = await startLoopbackServer();
});
afterAll(() => server.close());

it('the README example runs against recorded responses and prints what it says', async () => {
  const fixtures = loadFixtureDirectory(fileURLToPath(new URL('./fixtures', import.meta.url)));
  server.enqueue(...(fixtures.text ?? []), ...(fixtures['tool-call-stream'] ?? []));
  process.env.OPENAI_API_KEY = 'sk-readme-0000000000000000';
  process.env.OPENAI_BASE_URL = server.url;
  const file = materializeReadmeExample({
    readme: fileURLToPath(new URL('../README.md', import.meta.url)),
    heading: '## Example',
    rewrite: { '@yourtool/openai': fileURLToPath(new URL('../src/index.ts', import.meta.url)) },
    outFile: fileURLToPath(new URL('./.generated/readme-example.ts', import.meta.url)),
  });
  const module = (await import(/* @vite-ignore */ file)) as { checks: number };
  expect(module.checks).toBe(5);
  expect(server.requests).toHaveLength(2);
  expect(server.pending()).toBe(0);
});

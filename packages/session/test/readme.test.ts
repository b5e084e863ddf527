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
  const fixtures = loadFixtureDirectory(
    fileURLToPath(new URL('../../anthropic/test/fixtures', import.meta.url)),
  );
  server.enqueue(...(fixtures['tool-call-stream'] ?? []), ...(fixtures['text-stream'] ?? []));
  process.env.ANTHROPIC_API_KEY = 'sk-ant-readme-0000000000';
  process.env.ANTHROPIC_BASE_URL = server.url;
  const src = (pkg: string) => fileURLToPath(new URL(`../../${pkg}/src/index.ts`, import.meta.url));
  const file = materializeReadmeExample({
    readme: fileURLToPath(new URL('../README.md', import.meta.url)),
    heading: '## Example',
    // the other packages resolve to their builds (turbo builds them before the tests)
    rewrite: { '@yourtool/session': src('session') },
    outFile: fileURLToPath(new URL('./.generated/readme-example.ts', import.meta.url)),
  });
  const module = (await import(/* @vite-ignore */ file)) as { checks: number };
  expect(module.checks).toBe(5);
  expect(server.requests).toHaveLength(2);
});

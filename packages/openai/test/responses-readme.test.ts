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

it('the README Responses API example runs against recorded responses and prints what it says', async () => {
  const fixtures = loadFixtureDirectory(
    fileURLToPath(new URL('./fixtures-responses', import.meta.url)),
  );
  server.enqueue(...(fixtures.thinking ?? []), ...(fixtures['thinking-replay'] ?? []));
  process.env.OPENAI_API_KEY = 'sk-readme-0000000000000000';
  process.env.OPENAI_BASE_URL = server.url;
  expect(
    await runReadmeExample({
      testUrl: import.meta.url,
      packageName: '@yourtool/openai',
      heading: '## Responses API',
    }),
  ).toBe(4);
  expect(server.requests.map((r) => r.path)).toEqual(['/responses', '/responses']);
  expect(server.pending()).toBe(0);
  // the second request carried the first reply's reasoning back, encrypted, without item ids
  const input =
    (server.requests[1]?.body as { input?: Array<Record<string, unknown>> } | undefined)?.input ??
    [];
  expect(input.filter((item) => item.type === 'reasoning')).toEqual([
    {
      type: 'reasoning',
      summary: [{ type: 'summary_text', text: 'The user wants a greeting. Keep it short.' }],
      encrypted_content: 'EqQBCkYIBxgCKkCqZ3uRConformanceSignature',
    },
    { type: 'reasoning', summary: [], encrypted_content: 'EmwKAhgBEgy3va3pzixConformanceRedacted' },
  ]);
});

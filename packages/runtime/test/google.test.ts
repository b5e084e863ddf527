import { fileURLToPath } from 'node:url';
import {
  type LoopbackServer,
  loadFixtureDirectory,
  startLoopbackServer,
} from '@yourtool/conformance';
import { validateHistory } from '@yourtool/core';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { createRuntime, KNOWN_ADAPTER_PACKAGES } from '../src/index.js';
import { servedAs } from './served-as.js';

const googleFixtures = loadFixtureDirectory(
  fileURLToPath(new URL('../../google/test/fixtures', import.meta.url)),
);

let server: LoopbackServer;
beforeAll(async () => {
  server = await startLoopbackServer();
});
afterAll(() => server.close());
// each run counts its own requests (vitest --repeats runs a test again on the same server)
beforeEach(() => server.reset());

it('builds a `google` adapter by type from @yourtool/google and runs a priced Gemini turn', async () => {
  expect(KNOWN_ADAPTER_PACKAGES.google).toEqual({
    package: '@yourtool/google',
    export: 'GoogleAdapter',
  });
  const runtime = await createRuntime({
    models: `
adapters:
  gemini: { type: google, api_key_env: TEST_GEMINI_KEY, base_url_env: TEST_LLM_BASE_URL, max_retries: 0 }
models:
  google:gemini-2.5-flash: { adapter: gemini, wire_name: gemini-2.5-flash, aliases: [flash] }
`,
    env: { TEST_GEMINI_KEY: 'gemini-runtime-test-0000', TEST_LLM_BASE_URL: server.url },
  });
  try {
    // served by the model asked for (a reply is priced by the model that served it)
    server.enqueue(...servedAs(googleFixtures['text-stream'] ?? [], 'gemini-2.5-flash'));
    const session = await runtime.sessions.createSession({ workspace_path: '/work/foo' });
    const result = await runtime.sessions.sendAndWait(session.id, 'Say hello.');
    expect(result.end).toBe('end_turn');
    expect(server.requests[0]?.path).toMatch(/\/models\/gemini-2\.5-flash:streamGenerateContent/);
    const { messages } = await runtime.store.loadMessages(session.id);
    expect(validateHistory(messages).ok).toBe(true);
    const reply = messages.at(-1);
    expect(reply?.metadata.model).toBe('google:gemini-2.5-flash');
    // 12 × 0.30 + 9 × 2.50 µ$ from the bundled price table
    expect(reply?.metadata.usage?.cost_usd).toBe('0.0000261');
  } finally {
    await runtime.close();
  }
});

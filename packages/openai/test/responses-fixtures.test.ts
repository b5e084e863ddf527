import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { loadFixtureDirectory, renderFixtures, writeFixtureDirectory } from '@yourtool/conformance';
import { expect, it } from 'vitest';
import { responsesRenderer } from './responses-renderer.js';

const dir = fileURLToPath(new URL('./fixtures-responses', import.meta.url));

/** What gpt-5 on the Responses API returns (see responses-conformance.test.ts). */
export const RESPONSES_FEATURES = {
  signedThinking: true,
  redactedThinking: true,
  stopSequences: 'emulated',
  thinking: true,
  images: true,
  structuredOutput: true,
  parallelToolCalls: true,
} as const;

/**
 * The fixture files are rendered from the suite's expectations by `responses-renderer.ts`; this
 * keeps them in step (`WRITE_FIXTURES=1` rewrites them after a change to the renderer).
 */
it('the Responses fixtures are what the renderer produces', () => {
  const rendered = renderFixtures(responsesRenderer, RESPONSES_FEATURES);
  if (process.env.WRITE_FIXTURES === '1') {
    mkdirSync(dir, { recursive: true });
    writeFixtureDirectory(dir, rendered);
  }
  const onDisk = loadFixtureDirectory(dir);
  for (const [scenario, responses] of Object.entries(rendered)) {
    expect(onDisk[scenario], `fixtures for ${scenario}`).toEqual(responses);
  }
  expect(Object.keys(rendered).length).toBeGreaterThan(25);
});

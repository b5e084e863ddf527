import { fileURLToPath } from 'node:url';
import { loadFixtureDirectory, renderFixtures, writeFixtureDirectory } from '@yourtool/conformance';
import { expect, it } from 'vitest';
import { geminiRenderer } from './renderer.js';

const dir = fileURLToPath(new URL('./fixtures', import.meta.url));
const features = {
  signedThinking: true,
  thinking: true,
  images: true,
  structuredOutput: true,
  parallelToolCalls: true,
};

/**
 * The fixture files are rendered from the suite's expectations by `renderer.ts`; this keeps
 * them in step (`WRITE_FIXTURES=1` rewrites them after a change to the renderer).
 */
it('the recorded fixtures are what the renderer produces', () => {
  const rendered = renderFixtures(geminiRenderer, features);
  if (process.env.WRITE_FIXTURES === '1') writeFixtureDirectory(dir, rendered);
  const onDisk = loadFixtureDirectory(dir);
  for (const [scenario, responses] of Object.entries(rendered)) {
    expect(onDisk[scenario], `fixtures for ${scenario}`).toEqual(responses);
  }
  expect(Object.keys(rendered).length).toBeGreaterThan(25);
});

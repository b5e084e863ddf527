import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_FIXTURES } from '../src/default-fixtures.js';
import {
  type ConformanceFixtures,
  type LoopbackServer,
  loadFixtureDirectory,
  startLoopbackServer,
} from '../src/index.js';
import { captureRawResponse } from './wire-capture.js';

/**
 * Every conformance fixture of the repository, played by the loopback server, must reach the
 * client byte for byte as it did before the server was built on `@yourtool/wire-formats`
 * (issue 39, decision 0161). The golden files hold those bytes as the server wrote them then;
 * `WRITE_GOLDEN=1` rewrites them, which only a deliberate change of the wire output may do.
 */

const here = (relative: string) => fileURLToPath(new URL(relative, import.meta.url));

/** Each fixture set: its golden file's name and where it comes from. */
const SETS: Record<string, () => ConformanceFixtures> = {
  'suite-defaults': () => DEFAULT_FIXTURES,
  anthropic: () => loadFixtureDirectory(here('../../anthropic/test/fixtures')),
  google: () => loadFixtureDirectory(here('../../google/test/fixtures')),
  ollama: () => loadFixtureDirectory(here('../../ollama/test/fixtures')),
  openai: () => loadFixtureDirectory(here('../../openai/test/fixtures')),
  'openai-gpt-4.1': () => loadFixtureDirectory(here('../../openai/test/fixtures-gpt-4.1')),
  'openai-responses': () => loadFixtureDirectory(here('../../openai/test/fixtures-responses')),
  openrouter: () => loadFixtureDirectory(here('../../openrouter/test/fixtures')),
  'openai-compatible-mistral': () =>
    loadFixtureDirectory(here('../../openai-compatible/test/fixtures-mistral')),
  'openai-compatible-vllm': () =>
    loadFixtureDirectory(here('../../openai-compatible/test/fixtures-vllm')),
  'openai-compatible-deepseek': () =>
    loadFixtureDirectory(here('../../openai-compatible/test/fixtures-deepseek')),
  'third-party-adapter': () =>
    loadFixtureDirectory(here('../../../examples/third-party-adapter/test/fixtures')),
};

let server: LoopbackServer;
beforeAll(async () => {
  server = await startLoopbackServer();
});
afterAll(() => server.close());

/** The bytes of every response of every scenario of `fixtures`, keyed `<scenario>/<n>`. */
async function playAll(fixtures: ConformanceFixtures): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const [scenario, responses] of Object.entries(fixtures)) {
    server.reset();
    server.enqueue(...(responses ?? []));
    for (const [i, response] of (responses ?? []).entries()) {
      out[`${scenario}/${i + 1}`] = await captureRawResponse(server.url, response);
    }
  }
  return out;
}

describe('the loopback server plays every conformance fixture byte for byte as before', () => {
  for (const [name, load] of Object.entries(SETS)) {
    it(name, async () => {
      const played = await playAll(load());
      const file = here(`./fixtures-golden/${name}.json`);
      if (process.env.WRITE_GOLDEN === '1') {
        writeFileSync(file, `${JSON.stringify(played, null, 1)}\n`);
      }
      expect(existsSync(file), `${file} (WRITE_GOLDEN=1 writes it)`).toBe(true);
      const golden = JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>;
      expect(Object.keys(played)).toEqual(Object.keys(golden));
      for (const [key, bytes] of Object.entries(played)) expect(bytes, key).toBe(golden[key]);
      expect(Object.keys(played).length).toBeGreaterThan(0);
    });
  }
});

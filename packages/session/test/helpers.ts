import { fileURLToPath } from 'node:url';
import {
  type ConformanceFixtures,
  type LoopbackServer,
  loadFixtureDirectory,
  type ScriptedResponse,
  startLoopbackServer,
} from '@yourtool/conformance';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import type { SessionEvent } from '../src/index.js';

/** The recorded fixtures of an adapter package (`anthropic`, `openai`, `ollama`). */
export const fixturesOf = (pkg: string): ConformanceFixtures =>
  loadFixtureDirectory(fileURLToPath(new URL(`../../${pkg}/test/fixtures`, import.meta.url)));

/** One fixture by name; throws naming it when it is missing. */
export function requireFixture(from: ConformanceFixtures, name: string): ScriptedResponse[] {
  const found = from[name];
  if (!found) throw new Error(`no fixture ${name}`);
  return found;
}

/** A 503 from the Messages API, as an overloaded deployment sends it. */
export const unavailable = (): ScriptedResponse => ({
  type: 'json',
  status: 503,
  body: { type: 'error', error: { type: 'api_error', message: 'Service Unavailable' } },
});

/** Every event of a turn, and the error it ended with (if any). */
export async function collect(
  stream: AsyncIterable<SessionEvent>,
): Promise<{ events: SessionEvent[]; error: unknown }> {
  const events: SessionEvent[] = [];
  try {
    for await (const event of stream) events.push(event);
  } catch (error) {
    return { events, error };
  }
  return { events, error: undefined };
}

/**
 * The recorded responses as if `model` (the provider's name for it) had served them: replies
 * are priced by the model that served them, so a test about another model's price serves it.
 */
export function servedAs(responses: ScriptedResponse[], model: string): ScriptedResponse[] {
  const rename = (text: string) =>
    text.replace(/"(model|modelVersion)":"[^"]*"/g, (_whole, key: string) => `"${key}":"${model}"`);
  return responses.map((response) => {
    if (response.type === 'stream') return { ...response, chunks: response.chunks.map(rename) };
    if (response.type === 'text') return { ...response, body: rename(response.body) };
    if (response.type === 'json')
      return { ...response, body: JSON.parse(rename(JSON.stringify(response.body))) };
    return response;
  });
}

/**
 * The loopback server of one test file: started before its tests, reset before each, closed
 * after them. Read `.server` inside tests and hooks (it is set once the file's tests start).
 */
export function loopbackForFile(): { readonly server: LoopbackServer } {
  const holder = {} as { server: LoopbackServer };
  beforeAll(async () => {
    holder.server = await startLoopbackServer();
  });
  afterAll(() => holder.server.close());
  beforeEach(() => holder.server.reset());
  return holder;
}

import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Anthropic, { APIError } from '@anthropic-ai/sdk';
import { type LoopbackServer, loadResponseFile, startLoopbackServer } from '@yourtool/conformance';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * Every recorded fixture must be something the official SDK itself accepts: streams through
 * its MessageStream accumulator (finalMessage), JSON replies through messages.create, errors
 * as APIError with the recorded status.
 */
const dir = fileURLToPath(new URL('./fixtures', import.meta.url));
const files = readdirSync(dir).flatMap((scenario) =>
  readdirSync(join(dir, scenario))
    .filter((f) => !f.endsWith('.meta.json'))
    .map((f) => join(scenario, f)),
);

let server: LoopbackServer;
let client: Anthropic;
beforeAll(async () => {
  server = await startLoopbackServer();
  client = new Anthropic({
    apiKey: 'sk-ant-test-0000000000',
    baseURL: server.url,
    maxRetries: 0,
    logLevel: 'off',
    openTelemetry: false,
  });
});
afterAll(() => server.close());

const params = {
  model: 'claude-sonnet-4-6',
  max_tokens: 64,
  messages: [{ role: 'user' as const, content: 'hi' }],
};

describe('fixtures parse through the official SDK', () => {
  it('has fixtures to check', () => expect(files.length).toBeGreaterThan(30));
  for (const file of files) {
    const response = loadResponseFile(join(dir, file));
    if (
      response.type === 'hangup' ||
      (response.type === 'stream' && response.ending !== undefined && response.ending !== 'end')
    )
      continue;
    it(file, async () => {
      server.reset();
      server.enqueue(response);
      if (response.type === 'stream') {
        const final = await client.messages.stream(params).finalMessage();
        expect(final.type).toBe('message');
        expect(final.stop_reason).not.toBeNull();
        expect(final.content.length).toBeGreaterThan(0);
      } else if (response.type === 'json' && (response.status ?? 200) === 200) {
        const message = await client.messages.create(params);
        expect(message.content).toEqual((response.body as { content: unknown }).content);
      } else if (response.type === 'json') {
        const error = await client.messages.create(params).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(APIError);
        expect((error as APIError).status).toBe(response.status);
      }
    });
  }
});

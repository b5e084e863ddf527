import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from 'vitest';
import { type AwsSandbox, awsSandbox } from './aws-env.js';
import { type BedrockServer, startBedrockServer } from './bedrock-server.js';
import { attempt, hello, transportFor } from './transport-context.js';

/**
 * One adapter holds more than 50 streams open at once (issue 42): the SDK's HTTP/1.1 handler
 * would queue the 51st behind a 50-socket pool; the default HTTP/2 handler opens a session per
 * call. 60 streams are opened and held open by the server until every one has its first event.
 */

const STREAMS = 60;
let server: BedrockServer;
let sandbox: AwsSandbox;
beforeAll(async () => {
  server = await startBedrockServer();
});
afterAll(() => server.close());
beforeEach(() => {
  server.reset();
  sandbox = awsSandbox();
});
afterEach(() => sandbox.dispose());

it.each(['2', '1.1'] as const)(
  `HTTP/%s: ${STREAMS} streams are open at once, none queued behind a socket pool`,
  async (httpVersion) => {
    server.always({
      frames: [{ event: 'messageStart', payload: { role: 'assistant' } }],
      hold: true,
    });
    const transport = transportFor({
      api_key: 'ABSKQmVkcm9ja0FQSUtleS1jb25jdXJyZW5jeS0wMDAwMDA',
      base_url: httpVersion === '2' ? server.h2Url : server.http1Url,
      options: { region: 'us-east-1', http_version: httpVersion },
    });
    const controller = new AbortController();
    const streams = await Promise.all(
      Array.from({ length: STREAMS }, () => transport.open(hello(), attempt(controller.signal))),
    );
    const firsts = await Promise.all(streams.map((s) => s[Symbol.asyncIterator]().next()));
    expect(firsts.map((f) => f.value)).toEqual(
      Array.from({ length: STREAMS }, () => ({ messageStart: { role: 'assistant' } })),
    );
    expect(server.peakOpen()).toBe(STREAMS);
    expect(new Set(server.requests.map((r) => r.httpVersion))).toEqual(
      new Set([httpVersion === '2' ? '2.0' : '1.1']),
    );
    controller.abort();
  },
);

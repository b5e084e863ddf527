import {
  BedrockRuntimeClient,
  ConverseCommand,
  ConverseStreamCommand,
  type ConverseStreamCommandOutput,
} from '@aws-sdk/client-bedrock-runtime';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import {
  type ConformanceFixtures,
  type LoopbackServer,
  loadFixtureDirectory,
  type ScriptedResponse,
  startLoopbackServer,
  writeFixtureDirectory,
} from '@yourtool/conformance';
import { type BedrockFrame, decodeBedrockFrame } from '@yourtool/wire-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CONFORMANCE_FIXTURES_DIR,
  conformanceFixtures,
  WIRE_FIXTURES_DIR,
} from './fixture-generator.js';
import { wireFixtures } from './fixture-generator-wire.js';

/**
 * Every Bedrock fixture is what the official client reads: each is served by the conformance
 * loopback server and parsed by the real BedrockRuntimeClient (over HTTP/1.1): JSON replies
 * through Converse (the content as the client hands it over), streams through ConverseStream
 * (the events the frames name, in order; an exception frame thrown as the SDK's class, by
 * `send()` when it is the first frame), HTTP errors as the exception `x-amzn-errortype` names.
 * The files are what the generators render (`WRITE_FIXTURES=1` rewrites them). No adapter here.
 */

const SETS: Record<string, { dir: string; render: () => ConformanceFixtures }> = {
  conformance: { dir: CONFORMANCE_FIXTURES_DIR, render: conformanceFixtures },
  wire: { dir: WIRE_FIXTURES_DIR, render: wireFixtures },
};

/** The stream events the client knows; others (and the padding `p`) it drops. */
const KNOWN_EVENTS = new Set([
  'messageStart',
  'contentBlockStart',
  'contentBlockDelta',
  'contentBlockStop',
  'messageStop',
  'metadata',
]);

let server: LoopbackServer;
let client: BedrockRuntimeClient;
beforeAll(async () => {
  server = await startLoopbackServer();
  client = new BedrockRuntimeClient({
    region: 'us-east-1',
    endpoint: server.url,
    credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'fixtures-secret' },
    maxAttempts: 1,
    requestHandler: new NodeHttpHandler(),
  });
});
afterAll(async () => {
  client.destroy();
  await server.close();
});

const request = {
  modelId: 'us.anthropic.claude-sonnet-4-5-20250929-v1:0',
  messages: [{ role: 'user' as const, content: [{ text: 'hi' }] }],
};

/** Bytes as base64, recursively, so client output compares with the JSON on the wire. */
function plain(value: unknown): unknown {
  if (value instanceof Uint8Array) return Buffer.from(value).toString('base64');
  if (Array.isArray(value)) return value.map(plain);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, plain(v)]));
  }
  return value;
}

/** The SDK event a frame becomes: `{ [event]: payload }` without the padding field. */
function expectedEvent(frame: Extract<BedrockFrame, { event: string }>): unknown {
  const { p: _padding, ...payload } = frame.payload;
  return { [frame.event]: payload };
}

/** The SDK's class name for an `:exception-type` (`throttlingException` → `ThrottlingException`). */
const className = (exception: string) => exception.charAt(0).toUpperCase() + exception.slice(1);

/** Reads a stream fixture through ConverseStream: its events, and what it threw. */
async function readStream(): Promise<{ events: unknown[]; thrown: unknown; bySend: boolean }> {
  let response: ConverseStreamCommandOutput;
  try {
    response = await client.send(new ConverseStreamCommand(request));
  } catch (error) {
    return { events: [], thrown: error, bySend: true };
  }
  const events: unknown[] = [];
  try {
    for await (const event of response.stream ?? []) events.push(plain(event));
  } catch (error) {
    return { events, thrown: error, bySend: false };
  }
  return { events, thrown: undefined, bySend: false };
}

async function checkStream(response: Extract<ScriptedResponse, { type: 'binary-stream' }>) {
  const decoded = response.chunks.map((chunk) => {
    try {
      return decodeBedrockFrame(chunk);
    } catch {
      return null;
    }
  });
  const cutAt = decoded.indexOf(null);
  const whole = (cutAt < 0 ? decoded : decoded.slice(0, cutAt)) as BedrockFrame[];
  const exceptionAt = whole.findIndex((f) => 'exception' in f);
  const before = exceptionAt < 0 ? whole : whole.slice(0, exceptionAt);
  const expected = before.flatMap((f) =>
    'event' in f && KNOWN_EVENTS.has(f.event) ? [expectedEvent(f)] : [],
  );
  const { events, thrown, bySend } = await readStream();
  expect(events).toEqual(expected);
  const exception = whole[exceptionAt];
  if (exception && 'exception' in exception) {
    expect((thrown as Error)?.name).toBe(className(exception.exception));
    expect((thrown as Error).message).toBe(exception.payload.message);
    expect(bySend, 'an exception in the first frame is thrown by send()').toBe(exceptionAt === 0);
  } else if (cutAt >= 0) {
    expect((thrown as Error)?.message).toMatch(/Truncated event message received/);
  } else {
    expect(thrown).toBeUndefined();
  }
}

async function checkJson(response: Extract<ScriptedResponse, { type: 'json' }>) {
  const status = response.status ?? 200;
  if (status === 200) {
    const reply = await client.send(new ConverseCommand(request));
    const body = response.body as { output: unknown; stopReason: unknown; usage: unknown };
    expect(plain(reply.output)).toEqual(body.output);
    expect(reply.stopReason).toBe(body.stopReason);
    expect(reply.usage).toEqual(body.usage);
    return;
  }
  const error = (await client.send(new ConverseCommand(request)).catch((e: unknown) => e)) as Error & {
    $metadata?: { httpStatusCode?: number };
  };
  const named = response.headers?.['x-amzn-errortype']?.split(':')[0];
  expect(error.name).toBe(named);
  expect(error.$metadata?.httpStatusCode).toBe(status);
  expect(error.message).toBe((response.body as { message: string }).message);
}

for (const [set, { dir, render }] of Object.entries(SETS)) {
  describe(`${set} fixtures`, () => {
    const rendered = render();
    if (process.env.WRITE_FIXTURES === '1') writeFixtureDirectory(dir, rendered);
    const onDisk = loadFixtureDirectory(dir);

    it('are what the generator renders', () => {
      expect(Object.keys(onDisk).sort()).toEqual(Object.keys(rendered).sort());
      for (const [scenario, responses] of Object.entries(rendered)) {
        expect(onDisk[scenario], scenario).toEqual(responses);
      }
    });

    for (const [scenario, responses] of Object.entries(onDisk)) {
      (responses ?? []).forEach((response, i) => {
        const stalls = 'ending' in response && response.ending !== undefined && response.ending !== 'end';
        it.skipIf(response.type === 'hangup' || stalls)(
          `${scenario}/${i + 1} parses through BedrockRuntimeClient`,
          async () => {
            server.reset();
            server.enqueue(response);
            if (response.type === 'binary-stream') await checkStream(response);
            else if (response.type === 'json') await checkJson(response);
            else throw new Error(`${scenario}/${i + 1}: a ${response.type} response is not a Bedrock fixture`);
          },
        );
      });
    }
  });
}

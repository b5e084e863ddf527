import { runReadmeCommonJsExample, runReadmeExample } from '@yourtool/testkit';
import { afterAll, afterEach, beforeAll, beforeEach, expect, it, vi } from 'vitest';
import { type AwsSandbox, awsSandbox } from './aws-env.js';
import { type BedrockServer, type Frame, startBedrockServer } from './bedrock-server.js';
import { converseReply } from './transport-context.js';

/**
 * The README's examples run through the real SDK against a loopback Bedrock server found by
 * the environment variables the README names (`AWS_ENDPOINT_URL_BEDROCK_RUNTIME`,
 * `AWS_BEARER_TOKEN_BEDROCK`), and print what they say they print.
 */

const KEY = 'ABSKQmVkcm9ja0FQSUtleS1yZWFkbWUtMDAwMDAwMDAwMDAw';

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

const hello = {
  ...converseReply('Hello! How can I help you today?'),
  usage: { inputTokens: 12, outputTokens: 9, totalTokens: 21 },
};

const toolStream: Frame[] = [
  { event: 'messageStart', payload: { role: 'assistant' } },
  { event: 'contentBlockDelta', payload: { contentBlockIndex: 0, delta: { text: "I'll read " } } },
  { event: 'contentBlockDelta', payload: { contentBlockIndex: 0, delta: { text: 'the file.' } } },
  { event: 'contentBlockStop', payload: { contentBlockIndex: 0 } },
  {
    event: 'contentBlockStart',
    payload: {
      contentBlockIndex: 1,
      start: { toolUse: { toolUseId: 'tooluse_readme0000000001', name: 'read_file' } },
    },
  },
  {
    event: 'contentBlockDelta',
    payload: { contentBlockIndex: 1, delta: { toolUse: { input: '{"path":' } } },
  },
  {
    event: 'contentBlockDelta',
    payload: { contentBlockIndex: 1, delta: { toolUse: { input: '"README.md"}' } } },
  },
  { event: 'contentBlockStop', payload: { contentBlockIndex: 1 } },
  { event: 'messageStop', payload: { stopReason: 'tool_use' } },
  {
    event: 'metadata',
    payload: {
      usage: { inputTokens: 40, outputTokens: 20, totalTokens: 60 },
      metrics: { latencyMs: 9 },
    },
  },
];

it('the README example runs against the loopback server and prints what it says', async () => {
  vi.stubEnv('AWS_ENDPOINT_URL_BEDROCK_RUNTIME', server.h2Url);
  vi.stubEnv('AWS_BEARER_TOKEN_BEDROCK', KEY);
  server.enqueue({ json: hello }, { frames: toolStream });
  expect(
    await runReadmeExample({ testUrl: import.meta.url, packageName: '@yourtool/bedrock' }),
  ).toBe(5);
  expect(server.requests.map((r) => r.path)).toEqual([
    '/model/us.anthropic.claude-sonnet-4-5-20250929-v1%3A0/converse',
    '/model/us.anthropic.claude-sonnet-4-5-20250929-v1%3A0/converse-stream',
  ]);
  expect(server.requests.every((r) => r.headers.authorization === `Bearer ${KEY}`)).toBe(true);
});

it('the README CommonJS form runs from the CommonJS build', async () => {
  server.enqueue({ json: hello });
  expect(
    await runReadmeCommonJsExample({
      testUrl: import.meta.url,
      env: {
        AWS_ENDPOINT_URL_BEDROCK_RUNTIME: server.h2Url,
        AWS_BEARER_TOKEN_BEDROCK: KEY,
        AWS_CONFIG_FILE: `${sandbox.dir}/config`,
        AWS_SHARED_CREDENTIALS_FILE: `${sandbox.dir}/credentials`,
        AWS_EC2_METADATA_DISABLED: 'true',
      },
    }),
  ).toBe(1);
  expect(server.requests).toHaveLength(1);
  expect(server.requests[0]?.path).toBe('/model/amazon.nova-pro-v1%3A0/converse');
});

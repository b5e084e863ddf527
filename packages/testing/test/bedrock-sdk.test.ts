import { createServer as createH2cServer } from 'node:http2';
import type { AddressInfo } from 'node:net';
import {
  BedrockRuntimeClient,
  type BedrockRuntimeClientConfig,
  ConverseCommand,
  ConverseStreamCommand,
  type ConverseStreamOutput,
  ServiceUnavailableException,
  ThrottlingException,
  ValidationException,
} from '@aws-sdk/client-bedrock-runtime';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { bedrockRenderer } from '@yourtool/wire-formats';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import {
  contextOverflow,
  httpError,
  overloaded,
  redactedThinking,
  reset,
  type ScriptedProvider,
  startScriptedProvider,
  text,
  thinking,
  toolCall,
  usage,
} from '../src/index.js';

/**
 * The scripted provider's Bedrock routes through the real `@aws-sdk/client-bedrock-runtime`:
 * Converse and ConverseStream over HTTP/1.1, the SDK's own deserializers reading what the
 * provider renders (JSON replies, binary event-stream frames, `x-amzn-errortype` errors).
 */

const MODEL = 'us.anthropic.claude-sonnet-4-5-20250929-v1:0';

let provider: ScriptedProvider;
beforeAll(async () => {
  provider = await startScriptedProvider();
});
afterAll(() => provider.close());
afterEach(() => provider.clear());

function client(endpoint: string, extra: Partial<BedrockRuntimeClientConfig> = {}) {
  return new BedrockRuntimeClient({
    region: 'us-east-1',
    endpoint,
    credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'testing-secret' },
    maxAttempts: 1,
    requestHandler: new NodeHttpHandler(),
    ...extra,
  });
}

const ask = (question: string) => ({
  modelId: MODEL,
  system: [{ text: 'Be brief.' }],
  messages: [{ role: 'user' as const, content: [{ text: question }] }],
  inferenceConfig: { maxTokens: 256 },
  toolConfig: {
    tools: [
      {
        toolSpec: {
          name: 'read_file',
          inputSchema: { json: { type: 'object', properties: { path: { type: 'string' } } } },
        },
      },
    ],
  },
});

/** Every event of a ConverseStream, in order. */
async function events(
  sdk: BedrockRuntimeClient,
  question: string,
): Promise<ConverseStreamOutput[]> {
  const response = await sdk.send(new ConverseStreamCommand(ask(question)));
  const out: ConverseStreamOutput[] = [];
  for await (const event of response.stream ?? []) out.push(event);
  return out;
}

describe('Bedrock through the real BedrockRuntimeClient (HTTP/1.1)', () => {
  let sdk: BedrockRuntimeClient;
  beforeAll(() => {
    sdk = client(provider.url);
  });
  afterAll(() => sdk.destroy());

  it('Converse: text, reasoning with its signature, redacted bytes, a tool call, usage', async () => {
    provider.reply(
      thinking('Plan it.', { signature: 'sig-Testing-0001' }),
      redactedThinking('AAECAwQ='),
      text('Reading.'),
      toolCall('read_file', { path: 'README.md' }),
      usage({ input_tokens: 12, output_tokens: 9, cached_input_tokens: 30 }),
    );
    const reply = await sdk.send(new ConverseCommand(ask('Read the README.')));
    const content = reply.output?.message?.content ?? [];
    expect(content[0]).toEqual({
      reasoningContent: { reasoningText: { text: 'Plan it.', signature: 'sig-Testing-0001' } },
    });
    const redacted = content[1]?.reasoningContent?.redactedContent;
    expect(redacted).toBeInstanceOf(Uint8Array);
    expect(Buffer.from(redacted ?? []).toString('base64')).toBe('AAECAwQ=');
    expect(content[2]).toEqual({ text: 'Reading.' });
    expect(content[3]?.toolUse).toMatchObject({ name: 'read_file', input: { path: 'README.md' } });
    expect(content[3]?.toolUse?.toolUseId).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
    expect(reply.stopReason).toBe('tool_use');
    expect(reply.usage).toEqual({
      inputTokens: 12,
      outputTokens: 9,
      totalTokens: 51,
      cacheReadInputTokens: 30,
    });

    const [recorded] = provider.requests;
    expect(recorded?.format).toBe('bedrock');
    expect(recorded?.stream).toBe(false);
    expect(recorded?.path).toBe(`/model/${encodeURIComponent(MODEL)}/converse`);
    expect(recorded?.model).toBe(MODEL);
    expect(recorded?.system).toBe('Be brief.');
    expect(recorded?.lastUserText).toBe('Read the README.');
    expect(recorded?.tools).toEqual(['read_file']);
    expect(recorded?.headers.authorization).toBe('[REDACTED]');
  });

  it('ConverseStream: binary frames become the SDK events, text in pieces, usage last', async () => {
    provider.reply(
      text('Hello there, friend!', { chunks: 3 }),
      toolCall('read_file', { path: 'README.md' }, { chunks: 2 }),
      usage({ input_tokens: 5, output_tokens: 4 }),
    );
    const all = await events(sdk, 'Say hello.');
    const kinds = all.map((e) => Object.keys(e).find((k) => e[k as keyof typeof e] !== undefined));
    expect(kinds[0]).toBe('messageStart');
    expect(kinds.slice(-2)).toEqual(['messageStop', 'metadata']);
    const texts = all.flatMap((e) =>
      e.contentBlockDelta?.delta?.text ? [e.contentBlockDelta.delta.text] : [],
    );
    expect(texts).toEqual(['Hello t', 'here, f', 'riend!']);
    const starts = all.flatMap((e) => (e.contentBlockStart ? [e.contentBlockStart] : []));
    expect(starts).toHaveLength(1);
    expect(starts[0]).toMatchObject({
      contentBlockIndex: 1,
      start: { toolUse: { name: 'read_file' } },
    });
    const input = all.flatMap((e) => {
      const fragment = e.contentBlockDelta?.delta?.toolUse?.input;
      return fragment === undefined ? [] : [fragment];
    });
    expect(input).toHaveLength(2);
    expect(JSON.parse(input.join(''))).toEqual({ path: 'README.md' });
    expect(all.at(-2)?.messageStop?.stopReason).toBe('tool_use');
    expect(all.at(-1)?.metadata?.usage).toEqual({
      inputTokens: 5,
      outputTokens: 4,
      totalTokens: 9,
    });
    expect(provider.requests[0]?.stream).toBe(true);
    expect(provider.requests[0]?.path).toMatch(/\/converse-stream$/);
  });

  it('errors: the SDK classes from x-amzn-errortype, with status and message', async () => {
    provider.reply(httpError(429));
    const throttled = await sdk.send(new ConverseCommand(ask('Hi'))).catch((e: unknown) => e);
    expect(throttled).toBeInstanceOf(ThrottlingException);
    expect((throttled as ThrottlingException).$metadata.httpStatusCode).toBe(429);

    provider.reply(contextOverflow());
    const overflow = await sdk.send(new ConverseCommand(ask('Hi'))).catch((e: unknown) => e);
    expect(overflow).toBeInstanceOf(ValidationException);
    expect((overflow as Error).message).toBe('Input is too long for requested model.');

    provider.reply(overloaded());
    const busy = await sdk.send(new ConverseStreamCommand(ask('Hi'))).catch((e: unknown) => e);
    expect(busy).toBeInstanceOf(ServiceUnavailableException);
    expect((busy as ServiceUnavailableException).$metadata.httpStatusCode).toBe(503);
  });

  it('a stream reset mid-way: the SDK iterator fails after the text it received', async () => {
    provider.reply(reset(text('Partial answer', { chunks: 2 })));
    const response = await sdk.send(new ConverseStreamCommand(ask('Hi')));
    const seen: string[] = [];
    const failure = await (async () => {
      for await (const event of response.stream ?? []) {
        if (event.contentBlockDelta?.delta?.text) seen.push(event.contentBlockDelta.delta.text);
      }
    })().catch((e: unknown) => e);
    expect(seen.join('')).toBe('Partial answer');
    expect(failure).toBeInstanceOf(Error);
  });

  it('a Bedrock API key goes as a bearer token, recorded redacted', async () => {
    const keyed = client(provider.url, {
      token: { token: 'bedrock-api-key-testing-0001' },
      authSchemePreference: ['httpBearerAuth'],
    });
    provider.reply(text('Hi.'));
    const reply = await keyed.send(new ConverseCommand(ask('Hi')));
    keyed.destroy();
    expect(reply.output?.message?.content).toEqual([{ text: 'Hi.' }]);
    expect(provider.requests[0]?.headers.authorization).toBe('[REDACTED]');
    expect(JSON.stringify(provider.requests[0]?.headers)).not.toContain('bedrock-api-key');
  });
});

describe('modelsYaml for a bedrock model', () => {
  it('gives the adapter the endpoint, the key, a region and HTTP/1.1, and the full model id', () => {
    const doc = parse(provider.modelsYaml({ models: { [`bedrock:${MODEL}`]: {} } })) as {
      adapters: Record<string, Record<string, unknown>>;
      models: Record<string, { adapter: string; wire_name: string }>;
    };
    expect(doc.adapters.bedrock).toMatchObject({
      type: 'bedrock',
      base_url: provider.url,
      api_key: expect.any(String),
      max_retries: 0,
      options: { region: 'us-east-1', http_version: '1.1' },
    });
    expect(doc.models[`bedrock:${MODEL}`]).toEqual({ adapter: 'bedrock', wire_name: MODEL });
  });
});

describe('the SDK default HTTP/2 handler (h2c) reads the same frames', () => {
  it('ConverseStream over a loopback http2 server playing the rendered frames', async () => {
    const { chunks } = bedrockRenderer.stream({
      reply: {
        kind: 'message',
        blocks: [{ kind: 'text', text: 'Over h2c.', chunks: 2 }],
        usage: { input_tokens: 3, output_tokens: 2 },
        stopReason: 'end_turn',
        chunkDelayMs: 0,
      },
      model: MODEL,
      seq: 1,
      body: {},
    });
    const paths: string[] = [];
    const server = createH2cServer((req, res) => {
      paths.push(req.url);
      res.writeHead(200, { 'content-type': bedrockRenderer.streamContentType });
      for (const chunk of chunks) res.write(chunk);
      res.end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    // no requestHandler: the client's default, NodeHttp2Handler
    const sdk = client(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, {
      requestHandler: undefined,
    });
    try {
      const all = await events(sdk, 'Hi');
      const texts = all.flatMap((e) =>
        e.contentBlockDelta?.delta?.text ? [e.contentBlockDelta.delta.text] : [],
      );
      expect(texts).toEqual(['Over ', 'h2c.']);
      expect(all.at(-1)?.metadata?.usage?.totalTokens).toBe(5);
      expect(paths).toEqual([`/model/${encodeURIComponent(MODEL)}/converse-stream`]);
    } finally {
      sdk.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});

import { createMemoryLogger } from '@yourtool/core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { bedrockSdkLogger } from '../src/sdk-logger.js';
import { type AwsSandbox, awsSandbox } from './aws-env.js';
import { type BedrockServer, startBedrockServer } from './bedrock-server.js';
import { attempt, converseReply, hello, transportFor } from './transport-context.js';

/**
 * The transport through the real `@aws-sdk/client-bedrock-runtime` over real HTTP to a loopback
 * server: how it authenticates (a Bedrock API key as bearer, SigV4 from the SDK's chain), which
 * handler it uses, and where it sends.
 */

const API_KEY = 'ABSKQmVkcm9ja0FQSUtleS1leGFtcGxlLWtleS0wMDAwMDAwMDAwMDAw';
const REGION = { region: 'us-east-1' };

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

describe('authentication', () => {
  it('sends a configured Bedrock API key as Authorization: Bearer, not SigV4', async () => {
    // IAM keys in the environment too: the configured key still wins
    vi.stubEnv('AWS_ACCESS_KEY_ID', 'AKIDEXAMPLE');
    vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY');
    server.enqueue({ json: converseReply('hello') });
    const transport = transportFor({ api_key: API_KEY, base_url: server.h2Url, options: REGION });
    const reply = await transport.send(hello(), attempt());
    expect(reply.output?.message?.content?.[0]).toEqual({ text: 'hello' });
    const [seen] = server.requests;
    expect(seen?.headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(seen?.headers['x-amz-date']).toBeUndefined();
  });

  it('sends AWS_BEARER_TOKEN_BEDROCK as Authorization: Bearer when no key is configured', async () => {
    vi.stubEnv('AWS_BEARER_TOKEN_BEDROCK', API_KEY);
    server.enqueue({ json: converseReply('hello') });
    await transportFor({ base_url: server.h2Url, options: REGION }).send(hello(), attempt());
    expect(server.requests[0]?.headers.authorization).toBe(`Bearer ${API_KEY}`);
  });

  it('signs with SigV4 from the environment keys when there is no API key', async () => {
    vi.stubEnv('AWS_ACCESS_KEY_ID', 'AKIDEXAMPLE');
    vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY');
    server.enqueue({ json: converseReply('hello') });
    await transportFor({ base_url: server.h2Url, options: REGION }).send(hello(), attempt());
    const auth = String(server.requests[0]?.headers.authorization);
    expect(auth).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/\d{8}\/us-east-1\/bedrock\//);
    expect(server.requests[0]?.headers['x-amz-date']).toMatch(/^\d{8}T\d{6}Z$/);
  });

  it('signs with the keys of options.profile from the shared credentials file, and its Region', async () => {
    sandbox.writeCredentials(
      '[team]\naws_access_key_id = AKIDPROFILE\naws_secret_access_key = profileSecret0000\n',
    );
    sandbox.writeConfig('[profile team]\nregion = eu-west-3\n');
    server.enqueue({ json: converseReply('hello') });
    await transportFor({ base_url: server.h2Url, options: { profile: 'team' } }).send(
      hello(),
      attempt(),
    );
    expect(String(server.requests[0]?.headers.authorization)).toMatch(
      /^AWS4-HMAC-SHA256 Credential=AKIDPROFILE\/\d{8}\/eu-west-3\/bedrock\//,
    );
  });
});

describe('requests', () => {
  it('posts Converse to /model/<url-encoded id>/converse with the JSON body', async () => {
    server.enqueue({ json: converseReply('hello') });
    const transport = transportFor({ api_key: API_KEY, base_url: server.h2Url, options: REGION });
    await transport.send(hello('us.anthropic.claude-sonnet-4-5-20250929-v1:0'), attempt());
    const [seen] = server.requests;
    expect(seen?.method).toBe('POST');
    expect(seen?.path).toBe('/model/us.anthropic.claude-sonnet-4-5-20250929-v1%3A0/converse');
    expect(JSON.parse(seen?.body ?? '{}')).toEqual({
      messages: [{ role: 'user', content: [{ text: 'hi' }] }],
    });
  });

  it('uses HTTP/2 by default and HTTP/1.1 when options.http_version is "1.1"', async () => {
    server.enqueue({ json: converseReply('a') }, { json: converseReply('b') });
    await transportFor({ api_key: API_KEY, base_url: server.h2Url, options: REGION }).send(
      hello(),
      attempt(),
    );
    const http1 = transportFor({
      api_key: API_KEY,
      base_url: server.http1Url,
      options: { ...REGION, http_version: '1.1' },
    });
    const reply = await http1.send(hello(), attempt());
    expect(reply.output?.message?.content?.[0]).toEqual({ text: 'b' });
    expect(server.requests.map((r) => r.httpVersion)).toEqual(['2.0', '1.1']);
  });

  it('sets extra_headers on every request', async () => {
    server.enqueue({ json: converseReply('hello') });
    await transportFor({
      api_key: API_KEY,
      base_url: server.h2Url,
      extra_headers: { 'x-team': 'search' },
      options: REGION,
    }).send(hello(), attempt());
    expect(server.requests[0]?.headers['x-team']).toBe('search');
  });

  it('posts ConverseStream to /converse-stream and yields the parsed events', async () => {
    server.enqueue({
      frames: [
        { event: 'messageStart', payload: { role: 'assistant' } },
        { event: 'contentBlockDelta', payload: { contentBlockIndex: 0, delta: { text: 'hi' } } },
        { event: 'messageStop', payload: { stopReason: 'end_turn' } },
      ],
    });
    const transport = transportFor({ api_key: API_KEY, base_url: server.h2Url, options: REGION });
    const events = [];
    for await (const event of await transport.open(hello(), attempt())) events.push(event);
    expect(server.requests[0]?.path).toMatch(/\/converse-stream$/);
    expect(events).toEqual([
      { messageStart: { role: 'assistant' } },
      { contentBlockDelta: { contentBlockIndex: 0, delta: { text: 'hi' } } },
      { messageStop: { stopReason: 'end_turn' } },
    ]);
  });
});

describe('where calls go', () => {
  it('serverUrl is base_url, else the Region endpoint', () => {
    expect(transportFor({ base_url: server.h2Url }).serverUrl()).toBe(server.h2Url);
    expect(transportFor({ options: { region: 'eu-central-1' } }).serverUrl()).toBe(
      'https://bedrock-runtime.eu-central-1.amazonaws.com',
    );
    vi.stubEnv('AWS_REGION', 'ap-south-1');
    expect(transportFor({}).serverUrl()).toBe('https://bedrock-runtime.ap-south-1.amazonaws.com');
  });

  it('the SDK takes AWS_ENDPOINT_URL_BEDROCK_RUNTIME as the endpoint, and serverUrl says so', async () => {
    vi.stubEnv('AWS_ENDPOINT_URL_BEDROCK_RUNTIME', server.h2Url);
    server.enqueue({ json: converseReply('from the environment endpoint') });
    const transport = transportFor({ api_key: API_KEY, options: REGION });
    expect(transport.serverUrl()).toBe(server.h2Url);
    const reply = await transport.send(hello(), attempt());
    expect(reply.output?.message?.content?.[0]).toEqual({ text: 'from the environment endpoint' });
  });
});

describe('the SDK logger', () => {
  it('writes to the adapter logger with secrets redacted, never to the console', () => {
    const logger = createMemoryLogger();
    const sdk = bedrockSdkLogger(logger, () => [API_KEY]);
    sdk.warn(`retrying with ${API_KEY}`, { header: `Bearer ${API_KEY}` });
    sdk.debug('dropped: the logger has debug, so it is kept');
    const text = JSON.stringify(logger.records);
    expect(text).not.toContain(API_KEY);
    expect(logger.records[0]).toMatchObject({
      level: 'warn',
      obj: { event: 'sdk_log', adapter: 'bedrock', sdk_level: 'warn' },
    });
    expect(logger.records[0]?.msg).toBe('retrying with [REDACTED]');
  });
});

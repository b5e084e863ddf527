import { createServer, type Http2Server } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { BedrockRuntimeClient, ConverseCommand } from '@aws-sdk/client-bedrock-runtime';
import {
  type AdapterCapabilities,
  type ContentBlock,
  createMessage,
  newRequestId,
  newSessionId,
  ToolIdMap,
} from '@yourtool/core';
import { assistantTestMetadata, PNG_1PX_BASE64 as PNG } from '@yourtool/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fromBedrockReply, toBedrockRequest } from '../src/codec/index.js';
import { familyOf } from '../src/families.js';

// The codec's output and input go through the official client over HTTP/2 (its default
// handler) to a loopback server: what the SDK puts on the wire from an encoded request, and
// what the codec makes of a reply the SDK parsed.

const WIRE = 'us.anthropic.claude-sonnet-4-5-20250929-v1:0';
const MODEL = `bedrock:${WIRE}`;
const session_id = newSessionId();
const CAPS: AdapterCapabilities = {
  supports_images: true,
  supports_thinking: true,
  supports_tools: true,
  supports_system_prompt: true,
  supports_structured_output: true,
  supports_streaming: true,
  supports_streaming_tool_calls: true,
  supports_parallel_tool_calls: true,
  supports_prompt_caching: true,
  max_context_tokens: 200_000,
  max_output_tokens: 64_000,
  accepted_image_media_types: [],
};

let server: Http2Server;
let client: BedrockRuntimeClient;
const seen: { path: string; body: Record<string, unknown> }[] = [];
let replyBody: unknown = {};

beforeAll(async () => {
  server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => {
      seen.push({ path: req.url, body: JSON.parse(Buffer.concat(parts).toString('utf8')) });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(replyBody));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  client = new BedrockRuntimeClient({
    region: 'us-east-1',
    endpoint: `http://127.0.0.1:${port}`,
    credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'x' },
    maxAttempts: 1,
  });
});

afterAll(async () => {
  client.destroy();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe('Bedrock codec through the official client', () => {
  it('puts an encoded request on the wire as Converse JSON, and decodes the parsed reply', async () => {
    const id = 'tu_01JZ0000000000000000000001';
    const redacted = Buffer.from([0, 1, 2, 255]).toString('base64');
    const content: ContentBlock[] = [
      { type: 'thinking', text: 'plan', signature: 'sig-1' },
      { type: 'redacted_thinking', data: redacted },
      { type: 'tool_use', id, name: 'read_file', input: { path: 'a' } },
    ];
    const messages = [
      createMessage({ session_id, role: 'user', content: [{ type: 'text', text: 'read a' }] }),
      createMessage({
        session_id,
        role: 'assistant',
        content,
        metadata: assistantTestMetadata(MODEL),
      }),
      createMessage({
        session_id,
        role: 'tool',
        content: [
          {
            type: 'tool_result',
            tool_use_id: id,
            content: [
              { type: 'image', media_type: 'image/png', source: { kind: 'base64', data: PNG } },
            ],
            is_error: false,
          },
        ],
        metadata: { parent_tool_use_id: id },
      }),
    ];
    const toolIdMap = new ToolIdMap();
    const { request } = toBedrockRequest(
      {
        request_id: newRequestId(),
        model: MODEL,
        messages,
        tools: [],
        system_prompt: 'Be brief.',
        stop_sequences: [],
        max_output_tokens: 2048,
        stream: false,
      },
      { toolIdMap, capabilities: CAPS, family: familyOf(WIRE) },
    );
    replyBody = {
      output: {
        message: {
          role: 'assistant',
          content: [
            { reasoningContent: { reasoningText: { text: 'ok', signature: 'sig-2' } } },
            { reasoningContent: { redactedContent: 'AAEC' } },
            { text: 'It says hi.' },
          ],
        },
      },
      stopReason: 'end_turn',
      usage: { inputTokens: 12, outputTokens: 6, totalTokens: 18, cacheWriteInputTokens: 1000 },
      metrics: { latencyMs: 33 },
    };
    const reply = await client.send(new ConverseCommand(request));

    const sent = seen.at(-1);
    expect(sent?.path).toBe(`/model/${encodeURIComponent(WIRE)}/converse`);
    const body = sent?.body as {
      messages: { content: Record<string, unknown>[] }[];
      system: unknown[];
    };
    expect(body.system).toEqual([{ text: 'Be brief.' }, { cachePoint: { type: 'default' } }]);
    expect(body.messages[1]?.content).toEqual([
      { reasoningContent: { reasoningText: { text: 'plan', signature: 'sig-1' } } },
      { reasoningContent: { redactedContent: redacted } },
      { toolUse: { toolUseId: id, name: 'read_file', input: { path: 'a' } } },
    ]);
    expect(body.messages[2]?.content?.[0]).toEqual({
      toolResult: {
        toolUseId: id,
        content: [{ image: { format: 'png', source: { bytes: PNG } } }],
      },
    });
    expect((body as { toolConfig?: unknown }).toolConfig).toEqual({
      tools: [
        {
          toolSpec: {
            name: 'read_file',
            description: 'read_file',
            inputSchema: { json: { type: 'object', properties: {} } },
          },
        },
        { cachePoint: { type: 'default' } },
      ],
    });

    const decoded = fromBedrockReply(reply, WIRE, { toolIdMap, family: familyOf(WIRE) });
    expect(decoded.content).toEqual([
      { type: 'thinking', text: 'ok', signature: 'sig-2' },
      { type: 'redacted_thinking', data: 'AAEC' },
      { type: 'text', text: 'It says hi.' },
    ]);
    expect(decoded.usage).toEqual({
      input_tokens: 12,
      output_tokens: 6,
      cached_input_tokens: 0,
      cache_creation_input_tokens: 1000,
    });
    expect(decoded.provider_raw).toEqual({
      bedrock: { model_id: WIRE, stop_reason: 'end_turn', latency_ms: 33 },
    });
  });
});

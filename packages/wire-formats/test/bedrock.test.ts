import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import {
  BEDROCK_EVENT_STREAM_CONTENT_TYPE,
  type BedrockFrame,
  bedrockFormat,
  bedrockRedactedBase64,
  bedrockRenderer,
  bedrockStreamFrames,
  decodeBedrockFrame,
  encodeBedrockFrame,
  type MessageReply,
  playWireResponse,
  type RenderContext,
} from '../src/index.js';

const servers: Array<{ close: () => void }> = [];
afterEach(() => {
  for (const server of servers.splice(0)) server.close();
});

const reply: MessageReply = {
  kind: 'message',
  blocks: [
    { kind: 'thinking', text: 'Plan the answer.', signature: 'sig-1', chunks: 2 },
    { kind: 'redacted_thinking', data: 'AAECAw==' },
    { kind: 'text', text: 'Reading it now.', chunks: 2 },
    { kind: 'tool_call', name: 'read_file', input: { path: 'README.md' }, id: null, chunks: 3 },
    { kind: 'tool_call', name: 'list_files', input: {}, id: 'tooluse_given', chunks: 1 },
  ],
  usage: {
    input_tokens: 10,
    output_tokens: 7,
    cached_input_tokens: 30,
    cache_creation_input_tokens: 5,
  },
  stopReason: 'tool_use',
  chunkDelayMs: 0,
};
const context: RenderContext = { reply, model: 'us.anthropic.claude-x-v1:0', seq: 3, body: {} };

describe('event-stream frames', () => {
  it('encode and decode back to the same event or exception', () => {
    const frames: BedrockFrame[] = [
      { event: 'contentBlockDelta', payload: { contentBlockIndex: 0, delta: { text: 'héllo ✓' } } },
      { exception: 'throttlingException', payload: { message: 'Too many requests' } },
    ];
    for (const frame of frames) {
      const bytes = encodeBedrockFrame(frame);
      expect(bytes).toBeInstanceOf(Uint8Array);
      // prelude: total length (big-endian) equals the frame's byte length
      expect(new DataView(bytes.buffer, bytes.byteOffset).getUint32(0)).toBe(bytes.byteLength);
      expect(decodeBedrockFrame(bytes)).toEqual(frame);
    }
  });

  it('a damaged frame is a TypeError naming the event-stream frame', () => {
    const bytes = encodeBedrockFrame({ event: 'messageStop', payload: { stopReason: 'end_turn' } });
    const damaged = bytes.slice();
    const at = damaged.length - 6;
    damaged[at] = (damaged[at] ?? 0) ^ 0xff;
    expect(() => decodeBedrockFrame(damaged)).toThrow(TypeError);
    expect(() => decodeBedrockFrame(damaged)).toThrow(/event-stream frame/);
    expect(() => decodeBedrockFrame(bytes.slice(0, 20))).toThrow(/event-stream frame/);
  });
});

describe('the Bedrock renderer', () => {
  it('renders a whole Converse reply: blocks in order, usage without cache in inputTokens', () => {
    expect(bedrockRenderer.reply(context)).toEqual({
      output: {
        message: {
          role: 'assistant',
          content: [
            {
              reasoningContent: { reasoningText: { text: 'Plan the answer.', signature: 'sig-1' } },
            },
            { reasoningContent: { redactedContent: 'AAECAw==' } },
            { text: 'Reading it now.' },
            {
              toolUse: {
                toolUseId: 'tooluse_Testing000003x003',
                name: 'read_file',
                input: { path: 'README.md' },
              },
            },
            { toolUse: { toolUseId: 'tooluse_given', name: 'list_files', input: {} } },
          ],
        },
      },
      stopReason: 'tool_use',
      usage: {
        inputTokens: 10,
        outputTokens: 7,
        totalTokens: 52,
        cacheReadInputTokens: 30,
        cacheWriteInputTokens: 5,
      },
      metrics: { latencyMs: 120 },
    });
  });

  it('streams starts only for tool calls, deltas in pieces, then messageStop and metadata', () => {
    const { frames, closing } = bedrockStreamFrames(context);
    expect(closing).toBe(2);
    const names = frames.map((f) => ('event' in f ? f.event : f.exception));
    expect(names[0]).toBe('messageStart');
    expect(names.slice(-2)).toEqual(['messageStop', 'metadata']);
    const starts = frames.filter((f) => 'event' in f && f.event === 'contentBlockStart');
    expect(starts.map((f) => f.payload)).toEqual([
      {
        contentBlockIndex: 3,
        start: { toolUse: { toolUseId: 'tooluse_Testing000003x003', name: 'read_file' } },
      },
      {
        contentBlockIndex: 4,
        start: { toolUse: { toolUseId: 'tooluse_given', name: 'list_files' } },
      },
    ]);
    const deltas = (index: number) =>
      frames
        .filter((f) => 'event' in f && f.event === 'contentBlockDelta')
        .filter((f) => f.payload.contentBlockIndex === index)
        .map((f) => f.payload.delta);
    expect(deltas(0)).toEqual([
      { reasoningContent: { text: 'Plan the' } },
      { reasoningContent: { text: ' answer.' } },
      { reasoningContent: { signature: 'sig-1' } },
    ]);
    expect(deltas(1)).toEqual([{ reasoningContent: { redactedContent: 'AAECAw==' } }]);
    expect(deltas(2)).toEqual([{ text: 'Reading ' }, { text: 'it now.' }]);
    const input = deltas(3).map((d) => (d as { toolUse: { input: string } }).toolUse.input);
    expect(input).toHaveLength(3);
    expect(JSON.parse(input.join(''))).toEqual({ path: 'README.md' });
    // an input-less call sends no delta by default
    expect(deltas(4)).toEqual([]);
    expect(frames.at(-2)?.payload).toEqual({ stopReason: 'tool_use' });
    expect(frames.at(-1)?.payload).toMatchObject({ usage: { inputTokens: 10, totalTokens: 52 } });
    const rendered = bedrockRenderer.stream(context);
    expect(rendered.chunks.map((c) => decodeBedrockFrame(c))).toEqual(frames);
  });

  it('options: a stop reason of its own, and what an input-less call sends', () => {
    const refusal = bedrockFormat({
      stopReason: 'guardrail_intervened',
      emptyToolInput: 'empty-string',
    });
    expect(refusal.reply(context)).toMatchObject({ stopReason: 'guardrail_intervened' });
    const { frames } = bedrockStreamFrames(context, { emptyToolInput: 'empty-string' });
    const last = frames.filter((f) => f.payload.contentBlockIndex === 4);
    expect(last.map((f) => f.payload)).toContainEqual({
      contentBlockIndex: 4,
      delta: { toolUse: { input: '' } },
    });
  });

  it('redacted data: base64 goes on the wire as it is, any other string as its UTF-8 bytes', () => {
    expect(bedrockRedactedBase64('AAECAw==')).toBe('AAECAw==');
    expect(bedrockRedactedBase64('opaque-1')).toBe(Buffer.from('opaque-1').toString('base64'));
  });

  it('errors: status, x-amzn-errortype, {"message"}; overflow and overload in Bedrock terms', () => {
    const base = { kind: 'error', message: null, retryAfterSeconds: null } as const;
    const throttled = bedrockRenderer.error({ ...base, status: 429, shape: 'status' }, 1);
    expect(throttled.status).toBe(429);
    expect(throttled.headers['x-amzn-errortype']).toBe(
      'ThrottlingException:http://internal.amazon.com/coral/com.amazon.bedrock/',
    );
    expect(throttled.body).toEqual({ message: 'scripted 429: rate limit exceeded' });
    const overflow = bedrockRenderer.error({ ...base, status: null, shape: 'context_overflow' }, 1);
    expect([overflow.status, overflow.headers['x-amzn-errortype']?.split(':')[0]]).toEqual([
      400,
      'ValidationException',
    ]);
    expect(overflow.body).toEqual({ message: 'Input is too long for requested model.' });
    const busy = bedrockRenderer.error({ ...base, status: null, shape: 'overloaded' }, 1);
    expect([busy.status, busy.headers['x-amzn-errortype']?.split(':')[0]]).toEqual([
      503,
      'ServiceUnavailableException',
    ]);
    const hinted = bedrockRenderer.error(
      { ...base, status: 429, shape: 'status', retryAfterSeconds: 2 },
      1,
    );
    expect(hinted.headers['retry-after']).toBe('2');
  });
});

describe('playWireResponse with a binary stream', () => {
  it('writes each frame as-is, with the event-stream content type', async () => {
    const chunks = [...bedrockRenderer.stream(context).chunks];
    const server = createServer((req, res) => {
      void playWireResponse(
        { type: 'binary-stream', contentType: BEDROCK_EVENT_STREAM_CONTENT_TYPE, chunks },
        { req, res, hold: () => undefined },
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    servers.push(server);
    const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    expect(res.headers.get('content-type')).toBe(BEDROCK_EVENT_STREAM_CONTENT_TYPE);
    const body = new Uint8Array(await res.arrayBuffer());
    expect(Buffer.from(body).equals(Buffer.concat(chunks))).toBe(true);
  });
});

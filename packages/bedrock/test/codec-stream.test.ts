import {
  checkStreamInvariants,
  type MessageCompleteEvent,
  RateLimitError,
  ServerError,
  type StreamEvent,
  ToolIdMap,
} from '@yourtool/core';
import { StreamBuilder } from '@yourtool/core/adapter';
import { describe, expect, it } from 'vitest';
import { createBedrockStreamMapper } from '../src/codec/index.js';
import { BEDROCK_FAMILIES, type BedrockFamily } from '../src/families.js';
import type { BedrockChunk } from '../src/wire-types.js';

const MODEL_ID = 'us.anthropic.claude-sonnet-4-5-20250929-v1:0';

function run(chunks: BedrockChunk[], family: BedrockFamily = BEDROCK_FAMILIES.claude) {
  const toolIdMap = new ToolIdMap();
  const builder = new StreamBuilder({
    request_id: 'req_1',
    model: `bedrock:${MODEL_ID}`,
    provider: 'bedrock',
  });
  const map = createBedrockStreamMapper({ toolIdMap, family, modelId: MODEL_ID });
  const events: StreamEvent[] = [builder.start()];
  for (const chunk of chunks) events.push(...map(chunk, builder));
  const complete = events.find((e): e is MessageCompleteEvent => e.type === 'message.complete');
  return { events, complete, toolIdMap, builder };
}

const start: BedrockChunk = { messageStart: { role: 'assistant' } };
const textDelta = (i: number, text: string): BedrockChunk => ({
  contentBlockDelta: { contentBlockIndex: i, delta: { text } },
});
const stopBlock = (i: number): BedrockChunk => ({ contentBlockStop: { contentBlockIndex: i } });
const stop = (stopReason: string): BedrockChunk => ({
  messageStop: { stopReason: stopReason as never },
});
const metadata: BedrockChunk = {
  metadata: {
    usage: { inputTokens: 11, outputTokens: 4, totalTokens: 515, cacheReadInputTokens: 500 },
    metrics: { latencyMs: 120 },
  },
};

describe('Bedrock stream mapping', () => {
  it('streams text with no start event, completes only on metadata after messageStop, with usage', () => {
    const before = run([
      start,
      textDelta(0, 'Hel'),
      textDelta(0, 'lo'),
      stopBlock(0),
      stop('end_turn'),
    ]);
    expect(before.complete).toBeUndefined();
    const { events, complete } = run([
      start,
      textDelta(0, 'Hel'),
      textDelta(0, 'lo'),
      stopBlock(0),
      stop('end_turn'),
      metadata,
    ]);
    expect(
      events.filter((e) => e.type === 'text.delta').map((e) => (e as { text: string }).text),
    ).toEqual(['Hel', 'lo']);
    expect(complete?.final_content).toEqual([{ type: 'text', text: 'Hello' }]);
    expect(complete?.stop_reason).toBe('end_turn');
    expect(complete?.usage).toMatchObject({
      input_tokens: 11,
      output_tokens: 4,
      cached_input_tokens: 500,
    });
    expect(complete?.provider_raw).toEqual({
      bedrock: { model_id: MODEL_ID, stop_reason: 'end_turn', latency_ms: 120 },
    });
    expect(checkStreamInvariants(events)).toEqual([]);
  });

  it('maps a tool use from its start, string input fragments and stop; an input-less call gets {}', () => {
    const { events, complete, toolIdMap } = run([
      start,
      textDelta(0, 'Reading.'),
      stopBlock(0),
      {
        contentBlockStart: {
          contentBlockIndex: 1,
          start: { toolUse: { toolUseId: 'tooluse_1', name: 'read_file' } },
        },
      },
      { contentBlockDelta: { contentBlockIndex: 1, delta: { toolUse: { input: '{"path":' } } } },
      { contentBlockDelta: { contentBlockIndex: 1, delta: { toolUse: { input: '"a.txt"}' } } } },
      stopBlock(1),
      {
        contentBlockStart: {
          contentBlockIndex: 2,
          start: { toolUse: { toolUseId: 'tooluse_2', name: 'now' } },
        },
      },
      { contentBlockDelta: { contentBlockIndex: 2, delta: { toolUse: { input: '' } } } },
      stopBlock(2),
      {
        contentBlockStart: {
          contentBlockIndex: 3,
          start: { toolUse: { toolUseId: 'tooluse_3', name: 'ping' } },
        },
      },
      stopBlock(3),
      stop('tool_use'),
      metadata,
    ]);
    const first = toolIdMap.getCanonicalId('bedrock', 'tooluse_1');
    expect(complete?.stop_reason).toBe('tool_use');
    expect(complete?.final_content).toEqual([
      { type: 'text', text: 'Reading.' },
      { type: 'tool_use', id: first, name: 'read_file', input: { path: 'a.txt' } },
      {
        type: 'tool_use',
        id: toolIdMap.getCanonicalId('bedrock', 'tooluse_2'),
        name: 'now',
        input: {},
      },
      {
        type: 'tool_use',
        id: toolIdMap.getCanonicalId('bedrock', 'tooluse_3'),
        name: 'ping',
        input: {},
      },
    ]);
    expect(events.filter((e) => e.type === 'tool.use_input_delta')).toHaveLength(2);
    expect(checkStreamInvariants(events)).toEqual([]);
  });

  it('maps reasoning text and its signature, and redacted reasoning bytes as one block', () => {
    const { complete, events } = run([
      start,
      {
        contentBlockDelta: {
          contentBlockIndex: 0,
          delta: { reasoningContent: { text: 'let me ' } },
        },
      },
      {
        contentBlockDelta: { contentBlockIndex: 0, delta: { reasoningContent: { text: 'think' } } },
      },
      {
        contentBlockDelta: {
          contentBlockIndex: 0,
          delta: { reasoningContent: { signature: 'SIG==' } },
        },
      },
      stopBlock(0),
      {
        contentBlockDelta: {
          contentBlockIndex: 1,
          delta: { reasoningContent: { redactedContent: new Uint8Array([1, 2]) } },
        },
      },
      {
        contentBlockDelta: {
          contentBlockIndex: 1,
          delta: { reasoningContent: { redactedContent: new Uint8Array([3]) } },
        },
      },
      stopBlock(1),
      textDelta(2, 'done'),
      stop('end_turn'),
      metadata,
    ]);
    expect(complete?.final_content).toEqual([
      { type: 'thinking', text: 'let me think', signature: 'SIG==' },
      { type: 'redacted_thinking', data: Buffer.from([1, 2, 3]).toString('base64') },
      { type: 'text', text: 'done' },
    ]);
    expect(checkStreamInvariants(events)).toEqual([]);
  });

  it('ignores $unknown events and members, maps a guardrail stop to refusal, reads Mistral ids under its key', () => {
    const { complete, toolIdMap } = run(
      [
        start,
        { $unknown: ['futureEvent', {}] } as BedrockChunk,
        {
          contentBlockDelta: {
            contentBlockIndex: 0,
            delta: { $unknown: ['newDelta', { x: 1 }] } as never,
          },
        },
        {
          contentBlockStart: {
            contentBlockIndex: 0,
            start: { toolUse: { toolUseId: 'aB3dE5gH9', name: 'f' } },
          },
        },
        stopBlock(0),
        stop('guardrail_intervened'),
        metadata,
      ],
      BEDROCK_FAMILIES.mistral,
    );
    expect(complete?.stop_reason).toBe('refusal');
    expect(toolIdMap.getCanonicalId('bedrock-mistral', 'aB3dE5gH9')).toMatch(/^tu_/);
    expect(toolIdMap.getCanonicalId('bedrock', 'aB3dE5gH9')).toBeUndefined();
  });

  it('throws an exception member as the contract class', () => {
    expect(() =>
      run([
        start,
        { throttlingException: { name: 'ThrottlingException', message: 'slow down' } as never },
      ]),
    ).toThrow(RateLimitError);
    expect(() => run([start, { modelStreamErrorException: { message: 'bad' } as never }])).toThrow(
      ServerError,
    );
  });
});

import { createMemoryLogger, ToolIdMap } from '@yourtool/core';
import { wireToolName } from '@yourtool/core/adapter';
import { describe, expect, it } from 'vitest';
import {
  fromBedrockReply,
  mapBedrockStopReason,
  mapBedrockUsage,
  roundTripBedrockContent,
} from '../src/codec/index.js';
import { BEDROCK_FAMILIES, bedrockBaseModel, familyOf } from '../src/families.js';
import type { BedrockReply } from '../src/wire-types.js';

const MODEL = 'us.anthropic.claude-sonnet-4-5-20250929-v1:0';

function reply(content: unknown[], extra: Partial<BedrockReply> = {}): BedrockReply {
  return {
    $metadata: {},
    output: { message: { role: 'assistant', content: content as never } },
    stopReason: 'end_turn',
    usage: { inputTokens: 10, outputTokens: 5, totalTokens: 15 },
    metrics: { latencyMs: 42 },
    ...extra,
  } as BedrockReply;
}

describe('Bedrock model families', () => {
  it.each([
    ['anthropic.claude-3-haiku-20240307-v1:0', 'claude'],
    ['us.anthropic.claude-sonnet-4-5-20250929-v1:0', 'claude'],
    ['global.anthropic.claude-opus-4-5-20251101-v1:0', 'claude'],
    ['us-gov.anthropic.claude-3-5-sonnet-20240620-v1:0', 'claude'],
    ['eu.meta.llama3-2-3b-instruct-v1:0', 'llama'],
    ['mistral.mistral-large-2407-v1:0', 'mistral'],
    ['apac.amazon.nova-pro-v1:0', 'nova'],
    ['jp.amazon.nova-2-lite-v1:0', 'nova'],
    ['openai.gpt-oss-120b-1:0', 'gpt-oss'],
    ['us.deepseek.r1-v1:0', 'deepseek'],
    ['cohere.command-r-plus-v1:0', 'cohere'],
    ['ai21.jamba-1-5-large-v1:0', 'jamba'],
    ['qwen.qwen3-32b-v1:0', 'qwen'],
    ['amazon.titan-text-express-v1', 'generic'],
    ['arn:aws:bedrock:us-east-1::foundation-model/meta.llama3-70b-instruct-v1:0', 'llama'],
    [
      'arn:aws:bedrock:us-east-1:123456789012:inference-profile/us.anthropic.claude-haiku-4-5-20251001-v1:0',
      'claude',
    ],
    ['arn:aws:bedrock:us-east-1:123456789012:application-inference-profile/abc123', 'generic'],
  ])('%s is %s', (id, family) => {
    expect(familyOf(id).name).toBe(family);
  });

  it('takes the configured family first (application inference profiles name no model)', () => {
    const arn = 'arn:aws:bedrock:us-east-1:123456789012:application-inference-profile/abc123';
    expect(bedrockBaseModel(arn)).toBeNull();
    expect(familyOf(arn, { [arn]: 'mistral' }).name).toBe('mistral');
    expect(familyOf('my-import', { other: 'claude' }).name).toBe('generic');
  });

  it('records the rules the codec follows for each family', () => {
    expect(BEDROCK_FAMILIES.mistral.toolIdRules.pattern?.test('abcDEF123')).toBe(true);
    expect(BEDROCK_FAMILIES.mistral.toolIdRules.pattern?.test('abc_EF123')).toBe(false);
    expect(BEDROCK_FAMILIES.claude.cachePoints).toEqual({
      system: true,
      tools: true,
      messages: true,
    });
    expect(BEDROCK_FAMILIES.nova.cachePoints).toEqual({
      system: true,
      tools: false,
      messages: true,
    });
    expect(BEDROCK_FAMILIES.generic.cachePoints).toEqual({
      system: false,
      tools: false,
      messages: false,
    });
    expect(BEDROCK_FAMILIES['gpt-oss'].thinking).toBe('reasoning-effort');
    expect(BEDROCK_FAMILIES.generic.reasoningReplay).toBe('never');
  });
});

describe('Bedrock reply decoding', () => {
  it('maps every Converse stop reason', () => {
    const table: Record<string, string> = {
      end_turn: 'end_turn',
      tool_use: 'tool_use',
      max_tokens: 'max_tokens',
      stop_sequence: 'stop_sequence',
      guardrail_intervened: 'refusal',
      content_filtered: 'refusal',
      model_context_window_exceeded: 'max_tokens',
      malformed_model_output: 'error',
      malformed_tool_use: 'error',
    };
    for (const [raw, canonical] of Object.entries(table)) {
      expect(mapBedrockStopReason(raw), raw).toBe(canonical);
    }
  });

  it('maps usage: input excludes cache reads and writes, as canonically', () => {
    expect(
      mapBedrockUsage({
        inputTokens: 7,
        outputTokens: 3,
        totalTokens: 1040,
        cacheReadInputTokens: 1000,
        cacheWriteInputTokens: 30,
      }),
    ).toEqual({
      input_tokens: 7,
      output_tokens: 3,
      cached_input_tokens: 1000,
      cache_creation_input_tokens: 30,
    });
  });

  it('decodes text, tool use, signed and redacted reasoning, and keeps the raw stop facts', () => {
    const toolIdMap = new ToolIdMap();
    const redacted = new Uint8Array([9, 8, 7]);
    const decoded = fromBedrockReply(
      reply(
        [
          { reasoningContent: { reasoningText: { text: 'think', signature: 'sig' } } },
          { reasoningContent: { redactedContent: redacted } },
          { text: 'hello' },
          { text: '' },
          { toolUse: { toolUseId: 'tooluse_abc', name: wireToolName('fs.read'), input: { p: 1 } } },
        ],
        {
          stopReason: 'guardrail_intervened',
          additionalModelResponseFields: { stop_sequence: 'END' } as never,
        },
      ),
      MODEL,
      { toolIdMap, family: BEDROCK_FAMILIES.claude, toolNames: new Set(['fs.read']) },
    );
    const id = toolIdMap.getCanonicalId('bedrock', 'tooluse_abc');
    expect(decoded.content).toEqual([
      { type: 'thinking', text: 'think', signature: 'sig' },
      { type: 'redacted_thinking', data: Buffer.from(redacted).toString('base64') },
      { type: 'text', text: 'hello' },
      { type: 'tool_use', id, name: 'fs.read', input: { p: 1 } },
    ]);
    expect(id).toMatch(/^tu_/);
    expect(decoded.stop_reason).toBe('refusal');
    expect(decoded.usage).toEqual({
      input_tokens: 10,
      output_tokens: 5,
      cached_input_tokens: 0,
      cache_creation_input_tokens: 0,
    });
    expect(decoded.provider_raw).toEqual({
      bedrock: {
        model_id: MODEL,
        stop_reason: 'guardrail_intervened',
        stop_sequence: 'END',
        latency_ms: 42,
      },
    });
  });

  it('leaves usage null when the reply has none, and drops a block with no canonical form with a WARN', () => {
    const logger = createMemoryLogger();
    const decoded = fromBedrockReply(
      reply([{ text: 'a' }, { citationsContent: { content: [] } }], { usage: undefined }),
      MODEL,
      { toolIdMap: new ToolIdMap(), logger },
    );
    expect(decoded.usage).toBeNull();
    expect(decoded.content).toEqual([{ type: 'text', text: 'a' }]);
    expect(logger.warnings()[0]?.obj).toMatchObject({
      event: 'block_dropped',
      block_type: 'citationsContent',
    });
  });

  it('reads Mistral tool ids under its own key, and round-trips assistant content', () => {
    const toolIdMap = new ToolIdMap();
    const decoded = fromBedrockReply(
      reply([{ toolUse: { toolUseId: 'aB3dE5gH9', name: 'f', input: {} } }]),
      'mistral.mistral-large-2407-v1:0',
      { toolIdMap, family: BEDROCK_FAMILIES.mistral },
    );
    const block = decoded.content[0];
    expect(block?.type === 'tool_use' && block.id).toBe(
      toolIdMap.getCanonicalId('bedrock-mistral', 'aB3dE5gH9'),
    );
    const content = [
      { type: 'text', text: 'x' },
      { type: 'tool_use', id: 'tu_01JZ0000000000000000000001', name: 'get', input: { a: [1] } },
    ] as const;
    expect(roundTripBedrockContent([...content], new ToolIdMap())).toEqual(content);
  });
});

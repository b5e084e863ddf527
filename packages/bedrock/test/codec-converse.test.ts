import {
  type AdapterCapabilities,
  AuthError,
  type CallOptions,
  type CanonicalRequest,
  createMemoryLogger,
  createMessage,
  InvalidRequestError,
  newRequestId,
  newSessionId,
  ToolIdMap,
} from '@yourtool/core';
import {
  type AdapterContext,
  HistoryMemo,
  parseProviderCallOptions,
  StreamBuilder,
  type WireCall,
} from '@yourtool/core/adapter';
import { describe, expect, it } from 'vitest';
import { BedrockConverseCodec } from '../src/converse-codec.js';
import { BedrockConfigOptionsSchema } from '../src/options.js';
import type { BedrockChunk } from '../src/wire-types.js';

const PROFILE = 'arn:aws:bedrock:us-east-1:123456789012:application-inference-profile/team-a';
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

/** The part of the adapter's context the codec reads: its name and core's per-call option parser. */
const context = {
  name: 'bedrock',
  parseCallOptions: (schema, options: CallOptions) =>
    parseProviderCallOptions(schema, options.providerOptions?.bedrock, 'bedrock'),
} as AdapterContext;

function codec(config: Record<string, unknown> = {}, problem: string | null = null) {
  return new BedrockConverseCodec(context, BedrockConfigOptionsSchema.parse(config), () => problem);
}

function call(wireName: string, options: CallOptions = {}): WireCall {
  const request: CanonicalRequest = {
    request_id: newRequestId(),
    model: `bedrock:${wireName}`,
    messages: [
      createMessage({
        session_id: newSessionId(),
        role: 'user',
        content: [{ type: 'text', text: 'hi' }],
      }),
    ],
    tools: [],
    system_prompt: 'sys',
    stop_sequences: [],
    max_output_tokens: 4096,
    stream: false,
  };
  return {
    request,
    logger: createMemoryLogger(),
    toolIdMap: new ToolIdMap(),
    options,
    modelProvider: 'bedrock',
    wireName,
    capabilities: CAPS,
    historyMemo: new HistoryMemo(),
  };
}

describe('BedrockConverseCodec', () => {
  it('fails auth before encoding when the transport names a setup problem', () => {
    const c = codec({}, 'no AWS credentials found (set AWS_PROFILE or AWS_ACCESS_KEY_ID)');
    expect(() => c.encode(call('us.anthropic.claude-haiku-4-5-20251001-v1:0'))).toThrow(AuthError);
  });

  it('takes the configured family for an application inference profile, and this call over the config', () => {
    const c = codec({ families: { [PROFILE]: 'claude' }, thinking: { budget_tokens: 1024 } });
    const configured = c.encode(call(PROFILE));
    expect(configured.modelId).toBe(PROFILE);
    expect(configured.system).toEqual([{ text: 'sys' }, { cachePoint: { type: 'default' } }]);
    expect(configured.additionalModelRequestFields).toEqual({
      thinking: { type: 'enabled', budget_tokens: 1024 },
    });
    const perCall = c.encode(
      call(PROFILE, {
        providerOptions: {
          bedrock: {
            thinking: 'off',
            promptCaching: false,
            additionalModelRequestFields: { top_k: 3 },
          },
        },
      }),
    );
    expect(perCall.system).toEqual([{ text: 'sys' }]);
    expect(perCall.additionalModelRequestFields).toEqual({ top_k: 3 });
    const unconfigured = codec().encode(call(PROFILE));
    expect(unconfigured.system).toEqual([{ text: 'sys' }]);
  });

  it('applies the configured guardrail and refuses an unknown per-call option, naming it', () => {
    const c = codec({ guardrail: { id: 'gr-9', version: '2' } });
    expect(c.encode(call('meta.llama3-70b-instruct-v1:0')).guardrailConfig).toEqual({
      guardrailIdentifier: 'gr-9',
      guardrailVersion: '2',
    });
    const bad = call('meta.llama3-70b-instruct-v1:0', {
      providerOptions: { bedrock: { promptCache: true } },
    });
    expect(() => c.encode(bad)).toThrow(InvalidRequestError);
    expect(() => c.encode(bad)).toThrow(/providerOptions\.bedrock/);
  });

  it('decodes replies and streams with the family the model resolves to', () => {
    const c = codec();
    const wire = 'mistral.mistral-large-2407-v1:0';
    const wireCall = call(wire);
    const encoded = c.encode(wireCall);
    const decoded = c.decode(
      {
        $metadata: {},
        output: {
          message: {
            role: 'assistant',
            content: [{ toolUse: { toolUseId: 'abcDEF123', name: 'f', input: {} } }],
          },
        },
        stopReason: 'tool_use',
        usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 },
        metrics: { latencyMs: 1 },
      },
      encoded,
      wireCall,
    );
    expect(decoded.stop_reason).toBe('tool_use');
    expect(wireCall.toolIdMap.getCanonicalId('bedrock-mistral', 'abcDEF123')).toBeDefined();
    const map = c.chunkMapper(encoded, wireCall);
    const builder = new StreamBuilder({
      request_id: 'r',
      model: `bedrock:${wire}`,
      provider: 'bedrock',
    });
    const chunks: BedrockChunk[] = [
      { messageStart: { role: 'assistant' } },
      { contentBlockDelta: { contentBlockIndex: 0, delta: { text: 'ok' } } },
      { messageStop: { stopReason: 'end_turn' } },
      {
        metadata: {
          usage: { inputTokens: 3, outputTokens: 1, totalTokens: 4 },
          metrics: { latencyMs: 5 },
        },
      },
    ];
    const events = chunks.flatMap((chunk) => map(chunk, builder));
    expect(events.at(-1)).toMatchObject({ type: 'message.complete', stop_reason: 'end_turn' });
  });
});

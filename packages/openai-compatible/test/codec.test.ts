import {
  type AdapterCapabilities,
  createMemoryLogger,
  createMessage,
  newRequestId,
  newSessionId,
  ToolIdMap,
} from '@yourtool/core';
import { describe, expect, it } from 'vitest';
import {
  readReasoning,
  reasoningWriteField,
  roundTripCompatibleContent,
  toCompatibleParams,
} from '../src/codec.js';
import { CONSERVATIVE_CAPABILITIES, capabilitiesFromSpec, resolveQuirks } from '../src/index.js';

const session_id = newSessionId();
const THINKING: AdapterCapabilities = capabilitiesFromSpec({ supports_thinking: true });

describe('reasoning fields', () => {
  it('reads the configured field; `both` prefers reasoning', () => {
    const both = { reasoning: 'A', reasoning_content: 'B' };
    expect(readReasoning(both, 'reasoning')).toBe('A');
    expect(readReasoning(both, 'reasoning_content')).toBe('B');
    expect(readReasoning(both, 'both')).toBe('A');
    expect(readReasoning({ reasoning: '', reasoning_content: 'B' }, 'both')).toBe('B');
    expect(readReasoning(both, 'none')).toBeNull();
    expect(readReasoning({ reasoning: null }, 'both')).toBeNull();
    expect(reasoningWriteField('both')).toBe('reasoning');
    expect(reasoningWriteField('none')).toBeNull();
  });

  it('replays only unsigned thinking of the same model, joined, in the write field', () => {
    const model = 'ds:r1';
    const message = (metaModel: string) =>
      createMessage({
        session_id,
        role: 'assistant',
        content: [
          { type: 'thinking', text: 'One.' },
          { type: 'thinking', text: 'Signed.', signature: 'sig-from-elsewhere' },
          { type: 'thinking', text: 'Two.' },
          { type: 'text', text: 'Answer.' },
        ],
        metadata: { model: metaModel },
      });
    const logger = createMemoryLogger();
    const encoding = toCompatibleParams(
      {
        request_id: newRequestId(),
        model,
        max_output_tokens: 10,
        stop_sequences: [],
        tools: [],
        stream: false,
        messages: [
          createMessage({ session_id, role: 'user', content: [{ type: 'text', text: 'Q' }] }),
          message(model),
          createMessage({ session_id, role: 'user', content: [{ type: 'text', text: 'Q2' }] }),
          message('ds:other'),
          createMessage({ session_id, role: 'user', content: [{ type: 'text', text: 'Q3' }] }),
        ],
      },
      {
        provider: 'ds',
        wireName: 'r1',
        capabilities: THINKING,
        toolIdMap: new ToolIdMap(),
        logger,
        maxTokensField: 'max_tokens',
        reasoningField: 'reasoning_content',
        reasoningReplay: true,
      },
    );
    const assistants = encoding.params.messages.filter(
      (m) => m.role === 'assistant',
    ) as unknown as Array<Record<string, unknown>>;
    expect(assistants[0]?.reasoning_content).toBe('One.\n\nTwo.');
    expect(assistants[1]).not.toHaveProperty('reasoning_content');
    expect(JSON.stringify(encoding.params)).not.toContain('sig-from-elsewhere');
    // the signed block, and the three of the other model's turn, were dropped with a WARN
    expect(logger.warnings().filter((w) => w.obj.event === 'block_dropped')).toHaveLength(4);
    expect(encoding.params.max_tokens).toBe(10);
  });
});

describe('quirks and capabilities', () => {
  it('options win over the preset, which wins over the defaults', () => {
    const quirks = resolveQuirks({
      preset: 'mistral',
      include_usage: true,
      provider: 'mistral-eu',
    });
    expect(quirks).toMatchObject({
      provider: 'mistral-eu',
      includeUsage: true,
      maxTokensField: 'max_tokens',
      apiKeyEnv: 'MISTRAL_API_KEY',
    });
    expect(quirks.toolIdRules?.maxLength).toBe(9);
    expect(resolveQuirks({ provider: 'my-host' })).toMatchObject({
      apiKeyEnv: 'MY_HOST_API_KEY',
      baseUrlEnv: 'MY_HOST_BASE_URL',
      maxTokensField: 'max_tokens',
      reasoningField: 'both',
      reasoningReplay: false,
      includeUsage: true,
    });
  });

  it('a declared model follows its spec; tools imply streamed and parallel calls', () => {
    expect(capabilitiesFromSpec(undefined)).toEqual(CONSERVATIVE_CAPABILITIES);
    const caps = capabilitiesFromSpec({ supports_tools: true, supports_images: true });
    expect(caps).toMatchObject({
      supports_tools: true,
      supports_streaming_tool_calls: true,
      supports_parallel_tool_calls: true,
      max_context_tokens: 32_768,
    });
    expect(caps.accepted_image_media_types).toContain('image/png');
    expect(
      capabilitiesFromSpec({ supports_tools: true, supports_parallel_tool_calls: false })
        .supports_parallel_tool_calls,
    ).toBe(false);
  });

  it('round-trips tool calls under nine-alphanumeric rules', () => {
    const map = new ToolIdMap();
    const content = [
      {
        type: 'tool_use' as const,
        id: 'tu_01JZ0000000000000000000RT1',
        name: 'f',
        input: { a: [1, { b: null }] },
      },
    ];
    const rules = { pattern: /^[a-zA-Z0-9]{9}$/, maxLength: 9 };
    expect(roundTripCompatibleContent(content, map, 'mistral', rules)).toEqual(content);
    expect(map.getProviderId('mistral', 'tu_01JZ0000000000000000000RT1')).toMatch(
      /^[a-zA-Z0-9]{9}$/,
    );
  });
});

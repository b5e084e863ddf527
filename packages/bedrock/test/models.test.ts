import { describe, expect, it } from 'vitest';
import { BEDROCK_FAMILY_FALLBACKS, BEDROCK_MODELS, bedrockModelInfo } from '../src/models.js';

describe('model ids', () => {
  it.each([
    ['anthropic.claude-sonnet-4-5-20250929-v1:0', 'claude'],
    ['us.anthropic.claude-sonnet-4-5-20250929-v1:0', 'claude'],
    ['eu.amazon.nova-pro-v1:0', 'nova'],
    ['apac.amazon.nova-lite-v1:0', 'nova'],
    ['arn:aws:bedrock:us-east-1::foundation-model/meta.llama3-3-70b-instruct-v1:0', 'llama'],
    ['arn:aws:bedrock:us-east-1:123456789012:inference-profile/us.deepseek.r1-v1:0', 'deepseek'],
    ['openai.gpt-oss-120b-1:0', 'gpt-oss'],
  ])('%s is a known %s model', (wire, family) => {
    const info = bedrockModelInfo(wire);
    expect(info.family).toBe(family);
    expect(Object.values(BEDROCK_MODELS)).toContain(info);
  });
});

describe('bedrockModelInfo', () => {
  it('finds a profile id in the table by its base id', () => {
    const info = bedrockModelInfo('global.anthropic.claude-sonnet-4-5-20250929-v1:0');
    expect(info).toBe(BEDROCK_MODELS['anthropic.claude-sonnet-4-5-20250929-v1:0']);
    expect(info.family).toBe('claude');
    expect(info.capabilities.max_output_tokens).toBe(64_000);
  });

  it('an unknown model of a known provider gets its family fallback', () => {
    expect(bedrockModelInfo('us.meta.llama9-1t-instruct-v1:0')).toBe(
      BEDROCK_FAMILY_FALLBACKS.llama,
    );
    expect(bedrockModelInfo('qwen.qwen3-coder-480b-a35b-v1:0').family).toBe('qwen');
  });

  it("a family configured for a known id replaces its row with that family's fallback", () => {
    const id = 'us.amazon.nova-pro-v1:0';
    expect(bedrockModelInfo(id, { [id]: 'generic' })).toBe(BEDROCK_FAMILY_FALLBACKS.generic);
  });

  it('an application inference profile takes the family configured for it, else generic', () => {
    const arn = 'arn:aws:bedrock:us-east-1:123456789012:application-inference-profile/a1b2c3';
    expect(bedrockModelInfo(arn, { [arn]: 'claude' })).toBe(BEDROCK_FAMILY_FALLBACKS.claude);
    const generic = bedrockModelInfo(arn);
    expect(generic.family).toBe('generic');
    expect(generic.capabilities.supports_tools).toBe(false);
    expect(generic.capabilities.supports_images).toBe(false);
  });

  it('Claude models take a reply schema (outputConfig); other families and unknown Claude ids do not', () => {
    const claude = bedrockModelInfo('global.anthropic.claude-haiku-4-5-20251001-v1:0');
    expect(claude.capabilities.supports_structured_output).toBe(true);
    expect(bedrockModelInfo('amazon.nova-pro-v1:0').capabilities.supports_structured_output).toBe(
      false,
    );
    expect(
      bedrockModelInfo('anthropic.claude-future-9-v1:0').capabilities.supports_structured_output,
    ).toBe(false);
  });

  it('text-only models accept no images; image models take the Converse formats', () => {
    for (const [id, info] of Object.entries(BEDROCK_MODELS)) {
      const { supports_images, accepted_image_media_types } = info.capabilities;
      expect(accepted_image_media_types.length > 0, id).toBe(supports_images);
    }
    expect(BEDROCK_MODELS['openai.gpt-oss-120b-1:0']?.capabilities.supports_images).toBe(false);
    expect(BEDROCK_MODELS['amazon.nova-micro-v1:0']?.capabilities.supports_images).toBe(false);
  });

  it('every fallback promises no more than the known models of its family', () => {
    for (const info of Object.values(BEDROCK_MODELS)) {
      const fallback = BEDROCK_FAMILY_FALLBACKS[info.family].capabilities;
      expect(fallback.max_context_tokens).toBeLessThanOrEqual(info.capabilities.max_context_tokens);
      expect(fallback.max_output_tokens).toBeLessThanOrEqual(info.capabilities.max_output_tokens);
      expect(!fallback.supports_images || info.capabilities.supports_images).toBe(true);
      expect(
        !fallback.supports_structured_output || info.capabilities.supports_structured_output,
      ).toBe(true);
    }
  });
});

import { describe, expect, it } from 'vitest';
import { BedrockCallOptionsSchema, BedrockConfigOptionsSchema } from '../src/options.js';

describe('Bedrock options', () => {
  it('parses config options to camelCase with defaults', () => {
    const parsed = BedrockConfigOptionsSchema.parse({
      region: 'eu-west-1',
      families: {
        'arn:aws:bedrock:eu-west-1:123456789012:application-inference-profile/a1': 'claude',
      },
      prompt_caching: false,
    });
    expect(parsed.region).toBe('eu-west-1');
    expect(parsed.promptCaching).toBe(false);
    expect(parsed.httpVersion).toBe('2');
    expect(Object.values(parsed.families)).toEqual(['claude']);
  });

  it('refuses an unknown family, an unknown key and a malformed thinking option', () => {
    expect(BedrockConfigOptionsSchema.safeParse({ families: { x: 'gpt4' } }).success).toBe(false);
    expect(BedrockConfigOptionsSchema.safeParse({ regoin: 'us-east-1' }).success).toBe(false);
    expect(BedrockCallOptionsSchema.safeParse({ thinking: { effort: 'max' } }).success).toBe(false);
    expect(BedrockCallOptionsSchema.safeParse({ thinking: { budget_tokens: 2048 } }).success).toBe(
      true,
    );
  });
});

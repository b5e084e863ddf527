import type { AdapterCapabilities } from '@yourtool/core';
import { OPENAI_IMAGE_MEDIA_TYPES } from '@yourtool/openai';

/** What the adapter knows about one model behind OpenRouter. */
export interface OpenRouterModelInfo {
  capabilities: AdapterCapabilities;
  /**
   * `sent`, or `emulated` for models whose upstream refuses stop sequences (OpenRouter would
   * silently ignore them): the adapter then cuts the reply itself.
   */
  stopSequences: 'sent' | 'emulated';
}

interface Spec {
  context: number;
  output: number;
  images: boolean;
  thinking: boolean;
  tools?: boolean;
  structured?: boolean;
  caching?: boolean;
  stop?: 'sent' | 'emulated';
  media?: string[];
}

const CLAUDE_MEDIA = ['image/jpeg', 'image/png', 'image/gif', 'image/webp'];

function model(spec: Spec): OpenRouterModelInfo {
  const tools = spec.tools ?? true;
  return {
    stopSequences: spec.stop ?? 'sent',
    capabilities: {
      supports_images: spec.images,
      supports_thinking: spec.thinking,
      supports_tools: tools,
      supports_system_prompt: true,
      supports_structured_output: spec.structured ?? false,
      supports_streaming: true,
      supports_streaming_tool_calls: tools,
      supports_parallel_tool_calls: tools,
      supports_prompt_caching: spec.caching ?? false,
      max_context_tokens: spec.context,
      max_output_tokens: spec.output,
      accepted_image_media_types: spec.images ? (spec.media ?? OPENAI_IMAGE_MEDIA_TYPES) : [],
    },
  };
}

const CLAUDE = {
  images: true,
  thinking: true,
  structured: true,
  caching: true,
  media: CLAUDE_MEDIA,
};
const GPT5 = {
  context: 400_000,
  output: 128_000,
  images: true,
  thinking: true,
  structured: true,
  caching: true,
  stop: 'emulated',
} as const;

/**
 * A few well-known models by OpenRouter slug (OpenRouter's model pages, November 2026; limits
 * are the smallest any of a model's providers offers, see docs/decisions/0046). Variant suffixes
 * (`:free`, `:nitro`, ...) resolve to the base slug. `supports_thinking` means OpenRouter returns
 * reasoning this adapter maps to thinking blocks and can send back.
 */
export const OPENROUTER_MODELS: Readonly<Record<string, OpenRouterModelInfo>> = {
  'anthropic/claude-sonnet-4.6': model({ ...CLAUDE, context: 1_000_000, output: 64_000 }),
  'anthropic/claude-opus-4.7': model({ ...CLAUDE, context: 1_000_000, output: 128_000 }),
  'anthropic/claude-haiku-4.5': model({ ...CLAUDE, context: 200_000, output: 64_000 }),
  'openai/gpt-5': model(GPT5),
  'openai/gpt-5-mini': model(GPT5),
  'openai/gpt-4.1': model({
    context: 1_047_576,
    output: 32_768,
    images: true,
    thinking: false,
    structured: true,
    caching: true,
  }),
  'google/gemini-2.5-pro': model({
    context: 1_048_576,
    output: 65_536,
    images: true,
    thinking: true,
    structured: true,
    caching: true,
  }),
  'google/gemini-2.5-flash': model({
    context: 1_048_576,
    output: 65_536,
    images: true,
    thinking: true,
    structured: true,
    caching: true,
  }),
  'deepseek/deepseek-v3': model({
    context: 128_000,
    output: 8_192,
    images: false,
    thinking: false,
  }),
  'deepseek/deepseek-chat': model({
    context: 128_000,
    output: 8_192,
    images: false,
    thinking: false,
  }),
  'deepseek/deepseek-r1': model({
    context: 128_000,
    output: 32_768,
    images: false,
    thinking: true,
  }),
  'meta-llama/llama-3.3-70b-instruct': model({
    context: 128_000,
    output: 16_384,
    images: false,
    thinking: false,
  }),
};

/**
 * For a slug the table does not know: text only, no tools, no thinking, no structured output,
 * 32K context and 4K output, so routing never sends a model more than it may take. Declare what
 * a model really does with `capabilityOverrides`.
 */
export const UNKNOWN_OPENROUTER_MODEL: OpenRouterModelInfo = model({
  context: 32_768,
  output: 4_096,
  images: false,
  thinking: false,
  tools: false,
});

/** Looks up a model by OpenRouter slug, tolerating variant suffixes such as `:free`. */
export function openRouterModelInfo(slug: string): OpenRouterModelInfo {
  return (
    OPENROUTER_MODELS[slug] ??
    OPENROUTER_MODELS[slug.split(':')[0] ?? ''] ??
    UNKNOWN_OPENROUTER_MODEL
  );
}

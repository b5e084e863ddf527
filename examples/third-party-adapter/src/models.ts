import type { AdapterCapabilities } from '@yourtool/core';

/**
 * What the adapter really supports per model: text and tools, no images, no thinking, no
 * structured output. Unknown models get the same conservative set.
 */
export function acmeCapabilities(wireName: string): AdapterCapabilities {
  const large = wireName.includes('large');
  return {
    supports_images: false,
    supports_thinking: false,
    supports_tools: true,
    supports_system_prompt: true,
    supports_structured_output: false,
    supports_streaming: true,
    supports_streaming_tool_calls: true,
    supports_parallel_tool_calls: true,
    supports_prompt_caching: false,
    max_context_tokens: large ? 131_072 : 32_768,
    max_output_tokens: 8_192,
    accepted_image_media_types: [],
  };
}

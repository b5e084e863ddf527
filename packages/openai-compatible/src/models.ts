import type { AdapterCapabilities } from '@yourtool/core';
import {
  OPENAI_IMAGE_MEDIA_TYPES,
  type OpenAIModelInfo,
  openAIModelInfo,
  UNKNOWN_OPENAI_MODEL,
} from '@yourtool/openai';
import type { CompatibleModelSpec, ResolvedQuirks } from './options.js';

/**
 * What a model the config does not describe is taken to do: text only, no tools, no thinking,
 * no structured output, 32K context and 4K output, so routing never sends a model more than it
 * may take (decision 0131). Declare what a model really does in the `models` option or with the
 * registry's `capabilities:`.
 */
export const CONSERVATIVE_CAPABILITIES: AdapterCapabilities = Object.freeze({
  supports_images: false,
  supports_thinking: false,
  supports_tools: false,
  supports_system_prompt: true,
  supports_structured_output: false,
  supports_streaming: true,
  supports_streaming_tool_calls: false,
  supports_parallel_tool_calls: false,
  supports_prompt_caching: false,
  max_context_tokens: 32_768,
  max_output_tokens: 4_096,
  accepted_image_media_types: [],
}) as AdapterCapabilities;

/**
 * A model's capabilities from its spec over `base` (default {@link CONSERVATIVE_CAPABILITIES}):
 * tools imply streamed and parallel tool calls and images imply Chat Completions' image types,
 * unless the spec says otherwise.
 */
export function capabilitiesFromSpec(
  spec: CompatibleModelSpec | undefined,
  base: AdapterCapabilities = CONSERVATIVE_CAPABILITIES,
): AdapterCapabilities {
  if (!spec) return { ...base, accepted_image_media_types: [...base.accepted_image_media_types] };
  const { stop_sequences: _stop, temperature: _temperature, ...declared } = spec;
  const tools = declared.supports_tools ?? base.supports_tools;
  const images = declared.supports_images ?? base.supports_images;
  return {
    ...base,
    supports_streaming_tool_calls: tools,
    supports_parallel_tool_calls: tools,
    ...declared,
    accepted_image_media_types: images
      ? (declared.accepted_image_media_types ??
        (base.accepted_image_media_types.length > 0
          ? base.accepted_image_media_types
          : OPENAI_IMAGE_MEDIA_TYPES))
      : [],
  };
}

/**
 * `@yourtool/openai`'s facts of a model, for a deployment that serves OpenAI's models (Azure)
 * and only for a model that table knows; `undefined` otherwise.
 */
export function knownOpenAIModel(
  quirks: Pick<ResolvedQuirks, 'openAIModels'>,
  wireName: string,
): OpenAIModelInfo | undefined {
  if (!quirks.openAIModels) return undefined;
  const info = openAIModelInfo(wireName);
  return info === UNKNOWN_OPENAI_MODEL ? undefined : info;
}

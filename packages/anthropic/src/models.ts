import type { AdapterCapabilities } from '@yourtool/core';

/** How a Claude model takes extended thinking. */
export type ClaudeThinkingMode =
  /** `thinking: { type: "adaptive" }` only; `budget_tokens` is refused. */
  | 'adaptive'
  /** adaptive or a `budget_tokens` budget. */
  | 'adaptive-or-budget'
  /** only `thinking: { type: "enabled", budget_tokens }`. */
  | 'budget';

/** What the adapter knows about one Claude model. */
export interface ClaudeModelInfo {
  capabilities: AdapterCapabilities;
  thinking: ClaudeThinkingMode;
  /** Whether the model still accepts `temperature` (only under API version 2023-06-01). */
  acceptsTemperature: boolean;
}

/** Media types the Messages API accepts for images. */
export const CLAUDE_IMAGE_MEDIA_TYPES = ['image/jpeg', 'image/png', 'image/gif', 'image/webp'];

function claude(
  max_context_tokens: number,
  max_output_tokens: number,
  thinking: ClaudeThinkingMode,
  acceptsTemperature: boolean,
): ClaudeModelInfo {
  return {
    thinking,
    acceptsTemperature,
    capabilities: {
      supports_images: true,
      supports_thinking: true,
      supports_tools: true,
      supports_system_prompt: true,
      supports_structured_output: true,
      supports_streaming: true,
      supports_streaming_tool_calls: true,
      supports_parallel_tool_calls: true,
      supports_prompt_caching: true,
      max_context_tokens,
      max_output_tokens,
      accepted_image_media_types: CLAUDE_IMAGE_MEDIA_TYPES,
    },
  };
}

/**
 * Current Claude models by wire name (Anthropic's model overview, November 2026). Dated
 * snapshots (`claude-haiku-4-5-20251001`) resolve to their alias.
 */
export const CLAUDE_MODELS: Readonly<Record<string, ClaudeModelInfo>> = {
  'claude-opus-4-7': claude(1_000_000, 128_000, 'adaptive', false),
  'claude-sonnet-4-6': claude(1_000_000, 64_000, 'adaptive-or-budget', true),
  'claude-opus-4-6': claude(1_000_000, 128_000, 'adaptive-or-budget', true),
  'claude-haiku-4-5': claude(200_000, 64_000, 'budget', true),
  'claude-sonnet-4-5': claude(200_000, 64_000, 'budget', true),
  'claude-opus-4-5': claude(200_000, 64_000, 'budget', true),
};

/**
 * For a model the table does not know: what every current Claude model can do, with the
 * smallest limits, so routing never over-promises.
 */
export const UNKNOWN_CLAUDE_MODEL: ClaudeModelInfo = claude(200_000, 8_192, 'budget', false);

/**
 * Looks up a model by wire name, tolerating dated snapshot suffixes: Anthropic's
 * (`claude-haiku-4-5-20251001`) and Vertex AI's (`claude-haiku-4-5@20251001`).
 */
export function claudeModelInfo(wireName: string): ClaudeModelInfo {
  const direct = CLAUDE_MODELS[wireName];
  if (direct) return direct;
  const alias = wireName.replace(/[-@]\d{8}$/, '');
  return CLAUDE_MODELS[alias] ?? UNKNOWN_CLAUDE_MODEL;
}

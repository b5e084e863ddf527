import type { AdapterCapabilities } from '@yourtool/core';

/** The thinking levels Gemini 3 models take (`thinkingConfig.thinkingLevel`). */
export type GeminiThinkingLevel = 'minimal' | 'low' | 'medium' | 'high';

/** How a Gemini model takes thinking configuration. */
export type GeminiThinkingControl =
  /** No thinking (`thinkingConfig` is not sent). */
  | { kind: 'none' }
  /**
   * A token budget (`thinkingBudget`), Gemini 2.5: `min`..`max` tokens, `-1` for dynamic.
   * `canDisable`: a budget of 0 turns thinking off.
   */
  | { kind: 'budget'; min: number; max: number; canDisable: boolean }
  /** A level (`thinkingLevel`), Gemini 3; thinking cannot be turned off. */
  | { kind: 'level'; levels: readonly GeminiThinkingLevel[] };

/** What the adapter knows about one Gemini model. */
export interface GeminiModelInfo {
  capabilities: AdapterCapabilities;
  thinking: GeminiThinkingControl;
  /**
   * Gemini 3 and later: the API refuses (400) a function call in the current turn whose
   * `thoughtSignature` is missing, so one is always sent.
   */
  requiresFunctionCallSignatures: boolean;
  /**
   * Gemini 3 and later: takes images nested in a function response (`functionResponse.parts`,
   * Google's multimodal function responses). Gemini 2.x refuses them, so a tool result's images
   * go after the turn's function responses there (decision 0151). Absent: false.
   */
  multimodalFunctionResponses?: boolean;
}

/**
 * Media types Gemini accepts for images (Gemini API "Image understanding": PNG, JPEG, WEBP,
 * HEIC, HEIF).
 */
export const GEMINI_IMAGE_MEDIA_TYPES = [
  'image/png',
  'image/jpeg',
  'image/webp',
  'image/heic',
  'image/heif',
];

/** What changed with Gemini 3: signatures required on function calls, media in responses. */
const GEMINI_3 = { requiresFunctionCallSignatures: true, multimodalFunctionResponses: true };
const GEMINI_2 = { requiresFunctionCallSignatures: false, multimodalFunctionResponses: false };

function gemini(
  max_context_tokens: number,
  max_output_tokens: number,
  thinking: GeminiThinkingControl,
  generation: typeof GEMINI_3,
): GeminiModelInfo {
  return {
    thinking,
    ...generation,
    capabilities: {
      supports_images: true,
      supports_thinking: thinking.kind !== 'none',
      supports_tools: true,
      supports_system_prompt: true,
      supports_structured_output: true,
      supports_streaming: true,
      // Gemini sends each function call whole, in one chunk: the adapter emits it as one
      // `tool.use_input_delta`, so streamed calls are not incremental.
      supports_streaming_tool_calls: false,
      supports_parallel_tool_calls: true,
      // Implicit caching is automatic (reported as cached content tokens); the adapter does not
      // create explicit caches, so it declares no prompt caching of its own.
      supports_prompt_caching: false,
      max_context_tokens,
      max_output_tokens,
      accepted_image_media_types: GEMINI_IMAGE_MEDIA_TYPES,
    },
  };
}

const LEVELS_3_PRO: readonly GeminiThinkingLevel[] = ['low', 'high'];
const LEVELS_3_FLASH: readonly GeminiThinkingLevel[] = ['minimal', 'low', 'medium', 'high'];

/**
 * Current Gemini models by wire name (Gemini API models page, November 2026): input window,
 * output limit and thinking control. Every one takes images and function calling.
 */
export const GEMINI_MODELS: Readonly<Record<string, GeminiModelInfo>> = {
  'gemini-3-pro-preview': gemini(
    1_048_576,
    65_536,
    { kind: 'level', levels: LEVELS_3_PRO },
    GEMINI_3,
  ),
  'gemini-3-flash-preview': gemini(
    1_048_576,
    65_536,
    { kind: 'level', levels: LEVELS_3_FLASH },
    GEMINI_3,
  ),
  'gemini-2.5-pro': gemini(
    1_048_576,
    65_536,
    { kind: 'budget', min: 128, max: 32_768, canDisable: false },
    GEMINI_2,
  ),
  'gemini-2.5-flash': gemini(
    1_048_576,
    65_536,
    { kind: 'budget', min: 1, max: 24_576, canDisable: true },
    GEMINI_2,
  ),
  'gemini-2.5-flash-lite': gemini(
    1_048_576,
    65_536,
    { kind: 'budget', min: 512, max: 24_576, canDisable: true },
    GEMINI_2,
  ),
  'gemini-2.0-flash': gemini(1_048_576, 8_192, { kind: 'none' }, GEMINI_2),
};

/**
 * For a model the table does not know: images and tools, no thinking control, small limits,
 * and signatures on function calls (harmless where not required), so routing never
 * over-promises and a newer model does not 400 on a history without signatures. A tool
 * result's images go after the function responses, which every generation takes; a name that
 * says Gemini 3 or later (`gemini-3.1-pro-preview`) nests them instead (see `geminiModelInfo`).
 */
export const UNKNOWN_GEMINI_MODEL: GeminiModelInfo = gemini(
  128_000,
  8_192,
  { kind: 'none' },
  {
    ...GEMINI_3,
    multimodalFunctionResponses: false,
  },
);

/** An unknown model whose name says Gemini 3 or later (`gemini-3.1-pro-preview`). */
const UNKNOWN_GEMINI_3_MODEL: GeminiModelInfo = { ...UNKNOWN_GEMINI_MODEL, ...GEMINI_3 };

/** The major version a Gemini model name carries (`gemini-3.1-pro` → 3), if any. */
function geminiGeneration(name: string): number | undefined {
  const match = /^gemini-(\d+)(?:[.-]|$)/.exec(name);
  return match ? Number(match[1]) : undefined;
}

/**
 * Looks up a model by wire name, tolerating `models/` prefixes, `-latest` aliases and dated or
 * numbered versions (`gemini-2.5-flash-001`, `gemini-2.5-flash-preview-09-2025`).
 */
export function geminiModelInfo(wireName: string): GeminiModelInfo {
  const name = wireName.replace(/^models\//, '');
  const direct = GEMINI_MODELS[name];
  if (direct) return direct;
  const base = name
    .replace(/-latest$/, '')
    .replace(/-\d{3}$/, '')
    .replace(/-preview-\d{2}-\d{4}$/, '');
  const known = GEMINI_MODELS[base];
  if (known) return known;
  // an unknown model requires signatures like the Gemini 3 ones listed; one whose name says
  // Gemini 3 or later takes media in function responses like them too
  return (geminiGeneration(base) ?? 0) >= 3 ? UNKNOWN_GEMINI_3_MODEL : UNKNOWN_GEMINI_MODEL;
}

import type { AdapterCapabilities } from '@yourtool/core';

/** Media types Chat Completions accepts for images (GIF only when not animated). */
export const OPENAI_IMAGE_MEDIA_TYPES = ['image/png', 'image/jpeg', 'image/webp', 'image/gif'];

/** A `reasoning_effort` value of Chat Completions. */
export type OpenAIReasoningEffort = 'none' | 'minimal' | 'low' | 'medium' | 'high' | 'xhigh';

/**
 * Whether a model takes `temperature`:
 * - `accepted`: always;
 * - `refused`: never (only the default is allowed; any other value is a 400);
 * - `without-reasoning`: only while the effective `reasoning_effort` is `none`.
 */
export type TemperatureSupport = 'accepted' | 'refused' | 'without-reasoning';

/**
 * How stop sequences reach a model: `sent` as the `stop` parameter, or `emulated` by the adapter
 * (the model refuses `stop`, so the adapter cuts the reply at the first stop sequence itself and
 * reports `stop_sequence`).
 */
export type StopSequenceSupport = 'sent' | 'emulated';

/** What the adapter knows about one OpenAI model. */
export interface OpenAIModelInfo {
  capabilities: AdapterCapabilities;
  temperature: TemperatureSupport;
  stopSequences: StopSequenceSupport;
  /** Whether the model takes `reasoning_effort`. */
  reasoning: boolean;
  /** The effort the model uses when the request names none (`null` for models without reasoning). */
  defaultReasoningEffort: OpenAIReasoningEffort | null;
}

interface GptSpec {
  context: number;
  output: number;
  temperature: TemperatureSupport;
  stop: StopSequenceSupport;
  effort: OpenAIReasoningEffort | null;
  images?: boolean;
  tools?: boolean;
  structured?: boolean;
}

function gpt(spec: GptSpec): OpenAIModelInfo {
  const images = spec.images ?? true;
  const tools = spec.tools ?? true;
  return {
    temperature: spec.temperature,
    stopSequences: spec.stop,
    reasoning: spec.effort !== null,
    defaultReasoningEffort: spec.effort,
    capabilities: {
      supports_images: images,
      // Chat Completions returns no reasoning content that could be replayed (contract §4.4).
      supports_thinking: false,
      supports_tools: tools,
      supports_system_prompt: true,
      supports_structured_output: spec.structured ?? true,
      supports_streaming: true,
      supports_streaming_tool_calls: tools,
      supports_parallel_tool_calls: tools,
      // OpenAI caches prompts automatically; cached tokens are reported in the usage.
      supports_prompt_caching: true,
      max_context_tokens: spec.context,
      max_output_tokens: spec.output,
      accepted_image_media_types: images ? OPENAI_IMAGE_MEDIA_TYPES : [],
    },
  };
}

const GPT5 = { context: 400_000, output: 128_000, stop: 'emulated' } as const;
const GPT5_LONG = { context: 1_050_000, output: 128_000, stop: 'emulated' } as const;
const GPT41 = {
  context: 1_047_576,
  output: 32_768,
  temperature: 'accepted',
  stop: 'sent',
} as const;
const GPT4O = { context: 128_000, output: 16_384, temperature: 'accepted', stop: 'sent' } as const;
const O_SERIES = {
  context: 200_000,
  output: 100_000,
  temperature: 'refused',
  stop: 'emulated',
  effort: 'medium',
} as const;

/**
 * Current OpenAI chat models by wire name (OpenAI's model pages as of November 2026; see
 * docs/decisions/0041). Dated snapshots (`gpt-4.1-2025-04-14`) and fine-tunes
 * (`ft:gpt-4.1-mini:org::id`) resolve to their base model.
 *
 * - The GPT-5 family refuses `stop`, so stop sequences are emulated. GPT-5, -mini and -nano
 *   always reason and refuse `temperature`; GPT-5.1 and later take `temperature` only while
 *   `reasoning_effort` is `none`, which is the default of 5.1 and 5.2 but not of 5.4 and 5.5.
 * - `gpt-5-chat-latest` is the ChatGPT model: no tools, no structured output.
 */
export const OPENAI_MODELS: Readonly<Record<string, OpenAIModelInfo>> = {
  'gpt-5.5': gpt({ ...GPT5_LONG, temperature: 'without-reasoning', effort: 'medium' }),
  'gpt-5.4': gpt({ ...GPT5_LONG, temperature: 'without-reasoning', effort: 'medium' }),
  'gpt-5.2': gpt({ ...GPT5, temperature: 'without-reasoning', effort: 'none' }),
  'gpt-5.1': gpt({ ...GPT5, temperature: 'without-reasoning', effort: 'none' }),
  'gpt-5': gpt({ ...GPT5, temperature: 'refused', effort: 'medium' }),
  'gpt-5-mini': gpt({ ...GPT5, temperature: 'refused', effort: 'medium' }),
  'gpt-5-nano': gpt({ ...GPT5, temperature: 'refused', effort: 'medium' }),
  'gpt-5-chat-latest': gpt({
    context: 128_000,
    output: 16_384,
    temperature: 'accepted',
    stop: 'sent',
    effort: null,
    tools: false,
    structured: false,
  }),
  'gpt-4.1': gpt({ ...GPT41, effort: null }),
  'gpt-4.1-mini': gpt({ ...GPT41, effort: null }),
  'gpt-4.1-nano': gpt({ ...GPT41, effort: null }),
  'gpt-4o': gpt({ ...GPT4O, effort: null }),
  'gpt-4o-mini': gpt({ ...GPT4O, effort: null }),
  o3: gpt(O_SERIES),
  'o4-mini': gpt(O_SERIES),
};

/**
 * For a model the table does not know: text only, the smallest current limits, temperature left
 * out and stop sequences emulated, so routing never over-promises and no request is refused for
 * a parameter.
 */
export const UNKNOWN_OPENAI_MODEL: OpenAIModelInfo = gpt({
  context: 128_000,
  output: 16_384,
  temperature: 'refused',
  stop: 'emulated',
  effort: null,
  images: false,
});

/** Looks up a model by wire name, tolerating dated snapshots and fine-tune names. */
export function openAIModelInfo(wireName: string): OpenAIModelInfo {
  const direct = OPENAI_MODELS[wireName];
  if (direct) return direct;
  const base = wireName.startsWith('ft:') ? (wireName.slice(3).split(':')[0] ?? '') : wireName;
  const undated = base.replace(/-\d{4}-\d{2}-\d{2}$/, '');
  return OPENAI_MODELS[base] ?? OPENAI_MODELS[undated] ?? UNKNOWN_OPENAI_MODEL;
}

/**
 * Whether `temperature` may be sent to a model under the given effective reasoning effort.
 * Returns the reason it may not, or `null` when it may.
 */
export function temperatureRefusal(
  info: OpenAIModelInfo,
  wireName: string,
  effort: OpenAIReasoningEffort | null,
): string | null {
  switch (info.temperature) {
    case 'accepted':
      return null;
    case 'refused':
      return `${wireName} accepts only the default temperature`;
    case 'without-reasoning':
      return effort === 'none' || effort === null
        ? null
        : `${wireName} accepts temperature only with reasoning_effort "none" (effective: "${effort}")`;
  }
}

/** How much reasoning summary the Responses API returns (`reasoning.summary`). */
export type OpenAIReasoningSummary = 'auto' | 'concise' | 'detailed';

/**
 * What the adapter knows about a model when it is called through the Responses API (decision
 * 0126): the same table, except that
 * - models that reason declare `supports_thinking`: their reasoning comes back as items the
 *   adapter maps to thinking blocks and replays, encrypted, to the same model;
 * - stop sequences are always emulated: the Responses API has no `stop` parameter.
 */
export function openAIResponsesModelInfo(wireName: string): OpenAIModelInfo {
  const info = openAIModelInfo(wireName);
  return {
    ...info,
    stopSequences: 'emulated',
    capabilities: { ...info.capabilities, supports_thinking: info.reasoning },
  };
}

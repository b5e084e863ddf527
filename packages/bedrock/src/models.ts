import type { AdapterCapabilities } from '@yourtool/core';
import { BEDROCK_FAMILIES, BEDROCK_IMAGE_FORMATS, bedrockBaseModel, familyOf } from './families.js';
import type { BedrockFamilyName } from './provider.js';

/** What the adapter knows about one Bedrock model. */
export interface BedrockModelInfo {
  /** The family whose request rules apply (see `families.ts`). */
  family: BedrockFamilyName;
  /** What the model can take and produce through Converse. */
  capabilities: AdapterCapabilities;
}

/** The image formats Converse takes (`image.format`). */
export const BEDROCK_IMAGE_MEDIA_TYPES: readonly string[] = Object.keys(BEDROCK_IMAGE_FORMATS);

/** The capabilities a table row sets; the rest default to "no". */
interface Row {
  context: number;
  output: number;
  images?: boolean;
  thinking?: boolean;
  tools?: boolean;
  streamingTools?: boolean;
  parallelTools?: boolean;
  caching?: boolean;
  /** Takes a reply JSON schema (`outputConfig.textFormat`), where its family does. */
  structured?: boolean;
}

function model(family: BedrockFamilyName, row: Row): BedrockModelInfo {
  return {
    family,
    capabilities: {
      supports_images: row.images ?? false,
      supports_thinking: row.thinking ?? false,
      supports_tools: row.tools ?? false,
      supports_system_prompt: true,
      supports_structured_output:
        (row.structured ?? false) && BEDROCK_FAMILIES[family].structuredOutput,
      supports_streaming: true,
      supports_streaming_tool_calls: row.streamingTools ?? false,
      supports_parallel_tool_calls: row.parallelTools ?? false,
      supports_prompt_caching: row.caching ?? false,
      supports_forced_tool_choice: BEDROCK_FAMILIES[family].forcedToolChoice,
      max_context_tokens: row.context,
      max_output_tokens: row.output,
      accepted_image_media_types: row.images ? [...BEDROCK_IMAGE_MEDIA_TYPES] : [],
    },
  };
}

const claude = (output: number, structured = true) =>
  model('claude', {
    structured,
    // Bedrock's default window; the 1M windows of the 4.6 models are not assumed
    context: 200_000,
    output,
    images: true,
    thinking: true,
    tools: true,
    streamingTools: true,
    parallelTools: true,
    caching: true,
  });

/**
 * Bedrock's models by base model id (no `us.` / `eu.` / `apac.` / `global.` profile prefix), as
 * AWS's model cards and Anthropic's Bedrock page name them (November 2026). Limits are the
 * documented ones; where a card gives none the smaller known value is used, so routing never
 * over-promises. Prices are in the pricing table, not here.
 */
export const BEDROCK_MODELS: Readonly<Record<string, BedrockModelInfo>> = {
  'anthropic.claude-opus-4-6-v1': claude(128_000),
  // structured output on the models AWS lists for it (Sonnet 4.5, Haiku 4.5, Opus 4.5, Opus 4.6)
  'anthropic.claude-sonnet-4-6': claude(64_000, false),
  'anthropic.claude-opus-4-5-20251101-v1:0': claude(64_000),
  'anthropic.claude-sonnet-4-5-20250929-v1:0': claude(64_000),
  'anthropic.claude-haiku-4-5-20251001-v1:0': claude(64_000),
  'anthropic.claude-opus-4-1-20250805-v1:0': claude(32_000, false),
  'anthropic.claude-sonnet-4-20250514-v1:0': claude(64_000, false),
  'meta.llama4-maverick-17b-instruct-v1:0': model('llama', {
    context: 1_000_000,
    output: 8_192,
    images: true,
    tools: true,
  }),
  'meta.llama3-3-70b-instruct-v1:0': model('llama', {
    context: 128_000,
    output: 8_192,
    tools: true,
  }),
  'mistral.mistral-large-2407-v1:0': model('mistral', {
    context: 128_000,
    output: 8_192,
    tools: true,
  }),
  'mistral.pixtral-large-2502-v1:0': model('mistral', {
    context: 128_000,
    output: 16_000,
    images: true,
    tools: true,
  }),
  'amazon.nova-micro-v1:0': model('nova', {
    context: 128_000,
    output: 5_000,
    tools: true,
    streamingTools: true,
    caching: true,
  }),
  'amazon.nova-lite-v1:0': model('nova', {
    context: 300_000,
    output: 5_000,
    images: true,
    tools: true,
    streamingTools: true,
    caching: true,
  }),
  'amazon.nova-pro-v1:0': model('nova', {
    context: 300_000,
    output: 5_000,
    images: true,
    tools: true,
    streamingTools: true,
    caching: true,
  }),
  'amazon.nova-premier-v1:0': model('nova', {
    context: 1_000_000,
    output: 32_000,
    images: true,
    tools: true,
    streamingTools: true,
    caching: true,
  }),
  'amazon.nova-2-lite-v1:0': model('nova', {
    context: 1_000_000,
    output: 32_000,
    images: true,
    thinking: true,
    tools: true,
    streamingTools: true,
    caching: true,
  }),
  'openai.gpt-oss-20b-1:0': model('gpt-oss', {
    context: 128_000,
    output: 8_192,
    thinking: true,
    tools: true,
  }),
  'openai.gpt-oss-120b-1:0': model('gpt-oss', {
    context: 128_000,
    output: 8_192,
    thinking: true,
    tools: true,
  }),
  // R1 takes no tools through Converse and always reasons; 8192 is AWS's advice for max_tokens
  'deepseek.r1-v1:0': model('deepseek', { context: 128_000, output: 8_192, thinking: true }),
  'deepseek.v3-v1:0': model('deepseek', { context: 128_000, output: 8_192, tools: true }),
};

/**
 * For a model the table does not know, by family: what every known model of the family can do,
 * with the smallest limits; `generic` is text only, without tools.
 */
export const BEDROCK_FAMILY_FALLBACKS: Readonly<Record<BedrockFamilyName, BedrockModelInfo>> = {
  claude: claude(8_192, false),
  llama: model('llama', { context: 128_000, output: 2_048, tools: true }),
  mistral: model('mistral', { context: 32_000, output: 4_096, tools: true }),
  nova: model('nova', { context: 128_000, output: 5_000, tools: true, caching: true }),
  'gpt-oss': model('gpt-oss', { context: 128_000, output: 4_096, thinking: true, tools: true }),
  deepseek: model('deepseek', { context: 128_000, output: 4_096 }),
  cohere: model('cohere', { context: 128_000, output: 4_000, tools: true }),
  jamba: model('jamba', { context: 256_000, output: 4_096, tools: true }),
  qwen: model('qwen', { context: 32_000, output: 4_096, tools: true }),
  generic: model('generic', { context: 32_000, output: 4_096 }),
};

/**
 * What the adapter knows about a model by wire name: the table's row for the model it names
 * (`bedrockBaseModel`: no profile prefix, no ARN wrapping), else the fallback of its family
 * (`familyOf`: the config's `options.families` entry for the wire name, else the provider
 * prefix, else `generic`). A configured family other than the table's wins, with its fallback.
 */
export function bedrockModelInfo(
  wireName: string,
  families: Readonly<Record<string, BedrockFamilyName>> = {},
): BedrockModelInfo {
  const family = familyOf(wireName, families).name;
  const base = bedrockBaseModel(wireName);
  const known = base === null ? undefined : BEDROCK_MODELS[base];
  return known && known.family === family ? known : BEDROCK_FAMILY_FALLBACKS[family];
}

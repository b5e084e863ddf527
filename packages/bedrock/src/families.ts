import type { ToolIdRules } from '@yourtool/core';
import type { BedrockFamilyName } from './provider.js';

/**
 * How a family's models are asked to reason: Claude's `additionalModelRequestFields.thinking`,
 * gpt-oss's flat `reasoning_effort`, Nova 2's `reasoningConfig`, `always` (DeepSeek R1 reasons
 * with no switch) or `none`.
 */
export type BedrockThinkingSwitch =
  | 'claude-thinking'
  | 'reasoning-effort'
  | 'nova-reasoning-config'
  | 'always'
  | 'none';

/** Where a family takes `cachePoint` blocks (each after the content it caches). */
export interface BedrockCachePlaces {
  /** After the system prompt's text. */
  system: boolean;
  /** After the last tool definition in `toolConfig.tools`. */
  tools: boolean;
  /** At the end of a message's content. */
  messages: boolean;
}

/** The Converse image formats (`image.format`) by canonical media type. */
export const BEDROCK_IMAGE_FORMATS = {
  'image/png': 'png',
  'image/jpeg': 'jpeg',
  'image/gif': 'gif',
  'image/webp': 'webp',
} as const;

/** A media type Converse takes as an image (see {@link BEDROCK_IMAGE_FORMATS}). */
export type BedrockImageMediaType = keyof typeof BEDROCK_IMAGE_FORMATS;

/** The request rules of one model family on Converse (see docs/decisions/0166). */
export interface BedrockFamily {
  /** The family's name. */
  readonly name: BedrockFamilyName;
  /**
   * The ToolIdMap provider key its tool ids are kept under: `bedrock`, or a key of its own for
   * a family whose id rule is stricter, so its derived ids stay unique among themselves.
   */
  readonly toolIdProvider: string;
  /** What its tool use ids must look like. */
  readonly toolIdRules: ToolIdRules;
  /** How reasoning is switched on. */
  readonly thinking: BedrockThinkingSwitch;
  /**
   * The model names (after any profile prefix) the switch applies to, when not every model of
   * the family reasons (Nova: only Nova 2).
   */
  readonly thinkingModels?: RegExp;
  /**
   * Whether its reasoning goes back in a later request: `signed` sends signed reasoning
   * (byte-identical) and redacted reasoning to the same model only; `never` sends none.
   */
  readonly reasoningReplay: 'signed' | 'never';
  /** Where it takes cache points. */
  readonly cachePoints: BedrockCachePlaces;
  /** The image media types it takes (as `image: { format, source: { bytes } }`). */
  readonly imageMediaTypes: readonly BedrockImageMediaType[];
  /** Whether it takes `outputConfig.textFormat` (a JSON schema for the reply). */
  readonly structuredOutput: boolean;
  /**
   * Whether it takes a forced `toolChoice` (`any`, `tool`): AWS documents it for Claude and
   * Nova; elsewhere a forced choice is sent as `auto` with a WARN (decision 0175).
   */
  readonly forcedToolChoice: boolean;
  /**
   * Whether `top_k` goes in `additionalModelRequestFields` (Converse's `inferenceConfig` has no
   * `topK`; the canonical request has none either, so this is recorded for callers who pass it
   * through `providerOptions.bedrock.additionalModelRequestFields`).
   */
  readonly topKInAdditionalFields: boolean;
}

/** Converse's rule for tool use ids: 1-64 letters, digits, `_` or `-`. */
export const BEDROCK_TOOL_ID_RULES: ToolIdRules = { pattern: /^[a-zA-Z0-9_-]+$/, maxLength: 64 };

/** Mistral's rule on Bedrock: exactly nine letters and digits. */
export const MISTRAL_TOOL_ID_RULES: ToolIdRules = { pattern: /^[a-zA-Z0-9]{9}$/, maxLength: 9 };

const ALL_IMAGES: readonly BedrockImageMediaType[] = [
  'image/png',
  'image/jpeg',
  'image/gif',
  'image/webp',
];
const NO_CACHE: BedrockCachePlaces = { system: false, tools: false, messages: false };

/** A family with the conservative rules, and the changes given. */
function family(name: BedrockFamilyName, rules: Partial<BedrockFamily> = {}): BedrockFamily {
  return Object.freeze({
    name,
    toolIdProvider: 'bedrock',
    toolIdRules: BEDROCK_TOOL_ID_RULES,
    thinking: 'none',
    reasoningReplay: 'never',
    cachePoints: NO_CACHE,
    imageMediaTypes: [],
    structuredOutput: false,
    forcedToolChoice: false,
    topKInAdditionalFields: false,
    ...rules,
  });
}

/**
 * The family table. Sources (decision 0166): the AWS Converse API reference and model
 * parameter pages, and what was verified against SDK 3.1164.0 on a loopback server. Images are
 * declared only for families whose Bedrock models take them in Converse (Claude, Nova, Llama
 * 3.2+ vision, Mistral Pixtral); a model of such a family that takes none is marked by its
 * capabilities, which `prepareHistory` applies first.
 */
export const BEDROCK_FAMILIES: Readonly<Record<BedrockFamilyName, BedrockFamily>> = Object.freeze({
  claude: family('claude', {
    thinking: 'claude-thinking',
    reasoningReplay: 'signed',
    cachePoints: { system: true, tools: true, messages: true },
    imageMediaTypes: ALL_IMAGES,
    structuredOutput: true,
    forcedToolChoice: true,
    topKInAdditionalFields: true,
  }),
  llama: family('llama', { imageMediaTypes: ALL_IMAGES }),
  mistral: family('mistral', {
    toolIdProvider: 'bedrock-mistral',
    toolIdRules: MISTRAL_TOOL_ID_RULES,
    imageMediaTypes: ALL_IMAGES,
  }),
  nova: family('nova', {
    thinking: 'nova-reasoning-config',
    thinkingModels: /^amazon\.nova-2/,
    cachePoints: { system: true, tools: false, messages: true },
    imageMediaTypes: ALL_IMAGES,
    forcedToolChoice: true,
  }),
  'gpt-oss': family('gpt-oss', { thinking: 'reasoning-effort' }),
  deepseek: family('deepseek', { thinking: 'always' }),
  cohere: family('cohere'),
  jamba: family('jamba'),
  qwen: family('qwen'),
  generic: family('generic'),
});

/** Cross-Region inference profile prefixes (`us.anthropic.…`, `global.anthropic.…`). */
const PROFILE_PREFIX = /^(?:us|eu|apac|jp|au|us-gov|global)\./;

/** Provider prefixes of foundation model ids, in the order they are tried. */
const PROVIDER_PREFIXES: ReadonlyArray<readonly [string, BedrockFamilyName]> = [
  ['anthropic.', 'claude'],
  ['meta.', 'llama'],
  ['mistral.', 'mistral'],
  ['amazon.nova', 'nova'],
  ['openai.', 'gpt-oss'],
  ['deepseek.', 'deepseek'],
  ['cohere.', 'cohere'],
  ['ai21.', 'jamba'],
  ['qwen.', 'qwen'],
];

/**
 * The model a Bedrock model id names, without a Region profile prefix: a foundation model or
 * (system) inference profile ARN names it in its last path segment; an application inference
 * profile, provisioned or imported model ARN names none (`null`).
 */
export function bedrockBaseModel(modelName: string): string | null {
  let name = modelName;
  if (name.startsWith('arn:')) {
    const resource = name.split(':').slice(5).join(':');
    const slash = resource.indexOf('/');
    const kind = slash < 0 ? resource : resource.slice(0, slash);
    if (kind !== 'foundation-model' && kind !== 'inference-profile') return null;
    name = resource.slice(slash + 1);
  }
  return name.replace(PROFILE_PREFIX, '');
}

/**
 * The family of a Bedrock model id (the wire name, after `bedrock:`): the configured entry
 * (`options.families`) first, since it is the caller's word; else the provider prefix of the
 * model it names (after stripping a Region profile prefix and an ARN's path); else `generic`,
 * whose rules every Converse model accepts.
 */
export function familyOf(
  modelName: string,
  configured: Readonly<Record<string, BedrockFamilyName>> = {},
): BedrockFamily {
  const named = Object.hasOwn(configured, modelName) ? configured[modelName] : undefined;
  if (named !== undefined) return BEDROCK_FAMILIES[named];
  const base = bedrockBaseModel(modelName);
  if (base !== null) {
    for (const [prefix, name] of PROVIDER_PREFIXES) {
      if (base.startsWith(prefix)) return BEDROCK_FAMILIES[name];
    }
  }
  return BEDROCK_FAMILIES.generic;
}

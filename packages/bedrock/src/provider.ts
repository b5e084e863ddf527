/** The adapter's name and provider key: canonical model ids read `bedrock:<Bedrock model id>`. */
export const BEDROCK = 'bedrock';

/**
 * The model families Bedrock serves through Converse, each with its own request rules (see the
 * family table in `families.ts`). `generic` is the conservative set used for a model id no
 * family claims.
 */
export const BEDROCK_FAMILY_NAMES = [
  'claude',
  'llama',
  'mistral',
  'nova',
  'gpt-oss',
  'deepseek',
  'cohere',
  'jamba',
  'qwen',
  'generic',
] as const;

/** One of {@link BEDROCK_FAMILY_NAMES}. */
export type BedrockFamilyName = (typeof BEDROCK_FAMILY_NAMES)[number];

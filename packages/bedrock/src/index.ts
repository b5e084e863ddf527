/**
 * @yourtool/bedrock: the Amazon Bedrock adapter (Converse and ConverseStream) for the yourtool
 * canonical format, on the official `@aws-sdk/client-bedrock-runtime`. The codec's functions
 * are at `@yourtool/bedrock/codec`.
 *
 * @packageDocumentation
 */
export {
  BedrockAdapter,
  type BedrockRuntimeOptions,
  bedrockParts,
  DEFAULT_BEDROCK_MODEL,
} from './adapter.js';
export { type BedrockSetupInput, bedrockSetupProblem } from './credentials.js';
export { classifyBedrockException, toBedrockAdapterError } from './errors.js';
export {
  BEDROCK_FAMILIES,
  type BedrockFamily,
  bedrockBaseModel,
  familyOf,
} from './families.js';
export {
  BEDROCK_FAMILY_FALLBACKS,
  BEDROCK_IMAGE_MEDIA_TYPES,
  BEDROCK_MODELS,
  type BedrockModelInfo,
  bedrockModelInfo,
} from './models.js';
export type {
  BedrockCallOptions,
  BedrockConfigOptions,
  BedrockDefaults,
  BedrockThinkingOption,
} from './options.js';
export { BEDROCK, BEDROCK_FAMILY_NAMES, type BedrockFamilyName } from './provider.js';
export { BedrockTransport } from './transport.js';
export type { BedrockChunk, BedrockReply, BedrockRequest } from './wire-types.js';

/**
 * @yourtool/bedrock: the Amazon Bedrock adapter (Converse and ConverseStream) for the yourtool
 * canonical format, on the official `@aws-sdk/client-bedrock-runtime`.
 *
 * @packageDocumentation
 */
export type {
  BedrockCallOptions,
  BedrockConfigOptions,
  BedrockThinkingOption,
} from './options.js';
export { BEDROCK, BEDROCK_FAMILY_NAMES, type BedrockFamilyName } from './provider.js';
export type { BedrockChunk, BedrockReply, BedrockRequest } from './wire-types.js';

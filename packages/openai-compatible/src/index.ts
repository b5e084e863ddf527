/**
 * @yourtool/openai-compatible: one configured adapter for every server that speaks OpenAI Chat
 * Completions, with presets for Groq, Mistral, vLLM, Azure OpenAI and DeepSeek. The codec is at
 * `@yourtool/openai-compatible/codec`.
 *
 * @packageDocumentation
 */
export {
  AzureOpenAIAdapter,
  DeepSeekAdapter,
  GroqAdapter,
  MistralAdapter,
  OpenAICompatibleAdapter,
  type OpenAICompatibleConfig,
  type OpenAICompatibleRuntimeOptions,
  VllmAdapter,
} from './adapter.js';
export { CONSERVATIVE_CAPABILITIES, capabilitiesFromSpec } from './models.js';
export * from './options.js';
export * from './presets.js';
export { OPENAI_COMPATIBLE, resolveQuirks, toolIdRulesFromConfig } from './resolve.js';
export { OpenAICompatibleOptionsSchema, PRESET_NAMES } from './schema.js';

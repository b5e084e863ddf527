/**
 * `@yourtool/ai-sdk/model`: this project's adapters as AI SDK language models (specification v4
 * for `ai` 7, v3 for `ai` 6), without the UI message stream's imports.
 *
 * @packageDocumentation
 */
export {
  createLanguageModel,
  createLanguageModelV3,
  type LanguageModelOptions,
  YourtoolLanguageModel,
} from './language-model.js';
export { METADATA_KEY, promptToCanonical } from './prompt.js';
export { finishReasonOf, usageToAiSdk } from './usage.js';

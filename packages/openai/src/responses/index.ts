export type { OpenAIResponsesCallOptions, OpenAIResponsesConfigOptions } from '../options.js';
export {
  DEFAULT_OPENAI_RESPONSES_MODEL,
  OpenAIResponsesAdapter,
  type OpenAIResponsesRuntimeOptions,
} from './adapter.js';

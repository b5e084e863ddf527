export {
  DEFAULT_OPENAI_RESPONSES_MODEL,
  OpenAIResponsesAdapter,
  type OpenAIResponsesCallOptions,
  type OpenAIResponsesConfigOptions,
  type OpenAIResponsesRuntimeOptions,
} from './adapter.js';

/**
 * @yourtool/openai: the OpenAI (Chat Completions) adapter for the yourtool canonical format.
 *
 * @packageDocumentation
 */
export {
  DEFAULT_OPENAI_MODEL,
  OpenAIAdapter,
  type OpenAICallOptions,
  type OpenAIConfigOptions,
  type OpenAIRuntimeOptions,
} from './adapter.js';
export {
  ChatCompletionsAdapter,
  type ChatCompletionsCallContext,
  type ChatCompletionsEncoding,
  type ChatCompletionsProvider,
  type ChatCompletionsRuntimeOptions,
} from './chat-adapter.js';
export * from './codec/index.js';
export * from './models.js';

/**
 * @yourtool/openai: the OpenAI adapter (Chat Completions, or the Responses API with replayable
 * reasoning) for the yourtool canonical format.
 *
 * @packageDocumentation
 */
export {
  DEFAULT_OPENAI_MODEL,
  OpenAIAdapter,
  type OpenAIApi,
  type OpenAICallOptions,
  type OpenAIConfigOptions,
  type OpenAIRuntimeOptions,
} from './adapter.js';
export {
  ChatCompletionsAdapter,
  type ChatCompletionsCallContext,
  type ChatCompletionsClientOptions,
  type ChatCompletionsEncoding,
  type ChatCompletionsProvider,
  type ChatCompletionsRuntimeOptions,
} from './chat-adapter.js';
export * from './codec/index.js';
export * from './models.js';
export * from './responses/index.js';

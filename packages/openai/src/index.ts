/**
 * @yourtool/openai: the OpenAI adapter (Chat Completions, or the Responses API with replayable
 * reasoning) for the yourtool canonical format.
 *
 * @packageDocumentation
 */
export { DEFAULT_OPENAI_MODEL, OpenAIAdapter, type OpenAIRuntimeOptions } from './adapter.js';
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
export { OPENAI_BASE_URL, OpenAIChatCompletionsAdapter } from './openai-chat-adapter.js';
export {
  OPENAI_APIS,
  type OpenAIApi,
  type OpenAICallOptions,
  OpenAICallOptionsSchema,
  type OpenAIConfigOptions,
  OpenAIConfigOptionsSchema,
  type ParsedOpenAICallOptions,
} from './options.js';
export * from './responses/index.js';
export type { OpenAIClientSettings } from './sdk-client.js';

/**
 * @yourtool/openai: the OpenAI adapter (Chat Completions, or the Responses API with replayable
 * reasoning) for the yourtool canonical format. The codec is at `@yourtool/openai/codec`; the
 * parts other Chat Completions adapters are assembled from at `@yourtool/openai/wire`.
 *
 * @packageDocumentation
 */

export * from './models.js';
export {
  DEFAULT_OPENAI_MODEL,
  OpenAIAdapter,
  type OpenAIRuntimeOptions,
} from './openai-adapter.js';
export {
  OPENAI_BASE_URL,
  OpenAIChatCompletionsAdapter,
} from './openai-chat-completions-adapter.js';
export {
  DEFAULT_OPENAI_RESPONSES_MODEL,
  OpenAIResponsesAdapter,
  type OpenAIResponsesRuntimeOptions,
} from './openai-responses-adapter.js';
export {
  OPENAI_APIS,
  type OpenAIApi,
  type OpenAICallOptions,
  OpenAICallOptionsSchema,
  type OpenAIConfigOptions,
  OpenAIConfigOptionsSchema,
  type OpenAIResponsesCallOptions,
  type OpenAIResponsesConfigOptions,
  type ParsedOpenAICallOptions,
} from './options.js';
export type { ChatCompletionsRuntimeOptions } from './wire/chat-completions-rules.js';

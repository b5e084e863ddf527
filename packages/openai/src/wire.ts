/**
 * @yourtool/openai/wire: the parts other Chat Completions adapters are assembled from (the
 * codec and transport every Chat Completions provider shares, configured by its rules), and
 * OpenAI's own parts, for adapters that reuse them (`@yourtool/openrouter`,
 * `@yourtool/openai-compatible`).
 *
 * @packageDocumentation
 */
export { openAIChatCompletionsParts } from './openai-chat-completions-adapter.js';
export { type OpenAIResponsesParts, openAIResponsesParts } from './openai-responses-adapter.js';
export {
  LazyOpenAIClient,
  type OpenAIClientOptions,
  type OpenAIClientSettings,
} from './sdk-client.js';
export { ChatCompletionsCodec } from './wire/chat-completions-codec.js';
export { type ChatCompletionsParts, chatCompletionsParts } from './wire/chat-completions-parts.js';
export type {
  ChatCompletionsClientOptions,
  ChatCompletionsEncoding,
  ChatCompletionsRules,
  ChatCompletionsRuntimeOptions,
} from './wire/chat-completions-rules.js';
export { ChatCompletionsTransport } from './wire/chat-completions-transport.js';
export { OpenAIResponsesCodec } from './wire/responses-codec.js';
export { OpenAIResponsesTransport } from './wire/responses-transport.js';

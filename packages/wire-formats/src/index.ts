/**
 * @yourtool/wire-formats: the one implementation of each provider wire format the @yourtool
 * adapters speak (Anthropic Messages, OpenAI Chat Completions and Responses, Gemini, Ollama,
 * Amazon Bedrock Converse with its binary event stream),
 * rendered from a canonical reply, and the player that writes a wire response to HTTP. The
 * scripted provider of `@yourtool/testing` and the loopback server of `@yourtool/conformance`
 * are both built on it.
 *
 * @packageDocumentation
 */

export {
  type AnthropicWireOptions,
  anthropicFormat,
  anthropicRenderer,
} from './formats/anthropic.js';
export {
  type BedrockStopReason,
  type BedrockWireOptions,
  bedrockFormat,
  bedrockRedactedBase64,
  bedrockRenderer,
  bedrockStreamFrames,
} from './formats/bedrock.js';
export {
  BEDROCK_EVENT_STREAM_CONTENT_TYPE,
  type BedrockEventFrame,
  type BedrockExceptionFrame,
  type BedrockFrame,
  decodeBedrockFrame,
  encodeBedrockFrame,
} from './formats/bedrock-frames.js';
export { type GeminiWireOptions, geminiFormat, geminiRenderer } from './formats/gemini.js';
export {
  DEFAULT_OLLAMA_CAPABILITIES,
  type OllamaDurations,
  type OllamaModelSpec,
  type OllamaWireOptions,
  ollamaFormat,
  ollamaRenderer,
  ollamaShow,
  ollamaTags,
} from './formats/ollama.js';
export {
  type ChatWireOptions,
  type OpenAIErrorOptions,
  openAIChatFormat,
  openAIChatRenderer,
} from './formats/openai-chat.js';
export {
  openAIResponsesFormat,
  openAIResponsesRenderer,
  type ResponsesDeltaKind,
  type ResponsesLiveShape,
  type ResponsesWireOptions,
} from './formats/openai-responses.js';
export type {
  AnyWireRenderer,
  FullUsage,
  RenderContext,
  RenderedError,
  RenderedStream,
  Splitter,
  StreamContentType,
  WireRenderer,
} from './formats/renderer.js';
export type {
  BlockPart,
  ErrorReply,
  ErrorShape,
  FixedReply,
  MessageReply,
  RedactedThinkingPart,
  ResetReply,
  ScriptedStopReason,
  ScriptedUsage,
  StallReply,
  TextPart,
  ThinkingPart,
  ToolCallPart,
} from './reply.js';
export { WIRE_FORMATS, WIRE_RENDERERS, type WireFormat } from './wire-format.js';
export {
  playWireResponse,
  type StreamEnding,
  type WireResponse,
  type WireTarget,
} from './wire-response.js';

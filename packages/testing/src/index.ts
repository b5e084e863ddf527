/**
 * @yourtool/testing: a scripted LLM provider for application tests. One loopback server speaks
 * every adapter's wire format (Anthropic Messages, OpenAI Chat Completions and Responses,
 * Gemini, Ollama, Amazon Bedrock Converse, Chat-Completions-compatible servers), so tests run through the real adapters
 * and SDKs; each request consumes the next scripted reply, rendered in that request's format,
 * and is recorded for assertions.
 *
 * @packageDocumentation
 */

export {
  type BlockPart,
  DEFAULT_OLLAMA_CAPABILITIES,
  type ErrorReply,
  type ErrorShape,
  type FixedReply,
  type MessageReply,
  type OllamaModelSpec,
  type RedactedThinkingPart,
  type ResetReply,
  type ScriptedStopReason,
  type ScriptedUsage,
  type StallReply,
  type TextPart,
  type ThinkingPart,
  type ToolCallPart,
} from '@yourtool/wire-formats';
export {
  type ModelsYamlOptions,
  modelsYaml,
  SCRIPTED_API_KEY,
  type ScriptedModel,
} from './models-yaml.js';
export {
  type ScriptedProvider,
  type ScriptedProviderOptions,
  startScriptedProvider,
} from './provider.js';
export {
  type RecordedRequest,
  type RequestMessage,
  type RequestView,
  viewRequest,
  WIRE_FORMATS,
  type WireFormat,
} from './recorded-request.js';
export {
  type ChunkDelayPart,
  type ChunkOptions,
  chunkDelay,
  contextOverflow,
  DEFAULT_SCRIPTED_USAGE,
  type ErrorOptions,
  httpError,
  isFixedReply,
  isReplyPart,
  message,
  overloaded,
  type ReplyFunction,
  type ReplyPart,
  type ReplyResult,
  redactedThinking,
  reset,
  type ScriptedReply,
  type StopReasonPart,
  stall,
  stopReason,
  type ThinkingOptions,
  type ToolCallOptions,
  text,
  thinking,
  toFixedReply,
  toolCall,
  type UsagePart,
  usage,
} from './script.js';
export { type SessionScriptOptions, scriptFromSession } from './session-replay.js';
export {
  type CutObjectOptions,
  cutObject,
  type ObjectReplyOptions,
  objectReply,
  objectText,
} from './structured.js';

/**
 * The attribute names and values the library's spans and metrics carry: the OpenTelemetry
 * GenAI semantic conventions (v1.41.1, the last release of them in the semantic-conventions
 * repository) and the library's own `yourtool.*` attributes (docs/observability.md).
 */
import { isAdapterError, isYourtoolError } from '../errors.js';
import { parseModelId } from '../model-id.js';

/** An attribute value as the OpenTelemetry API takes it; `undefined` values are left out. */
export type TelemetryAttributeValue = string | number | boolean | string[] | number[];

/** Attributes for a span, an event or a metric point; `undefined` values are left out. */
export type TelemetryAttributes = Record<string, TelemetryAttributeValue | undefined>;

/** Instrumentation scope of the call spans and client metrics (the adapter toolkit). */
export const CORE_SCOPE = '@yourtool/core';

/** The version of the semantic conventions followed, as named in the docs. */
export const GENAI_SEMCONV_VERSION = '1.41.1';

/** Attribute names of the GenAI semantic conventions and of `error.type`. */
export const ATTR = {
  operationName: 'gen_ai.operation.name',
  providerName: 'gen_ai.provider.name',
  conversationId: 'gen_ai.conversation.id',
  requestModel: 'gen_ai.request.model',
  requestMaxTokens: 'gen_ai.request.max_tokens',
  requestTemperature: 'gen_ai.request.temperature',
  requestStopSequences: 'gen_ai.request.stop_sequences',
  requestStream: 'gen_ai.request.stream',
  outputType: 'gen_ai.output.type',
  responseModel: 'gen_ai.response.model',
  responseId: 'gen_ai.response.id',
  responseFinishReasons: 'gen_ai.response.finish_reasons',
  responseTimeToFirstChunk: 'gen_ai.response.time_to_first_chunk',
  usageInputTokens: 'gen_ai.usage.input_tokens',
  usageOutputTokens: 'gen_ai.usage.output_tokens',
  usageCacheReadInputTokens: 'gen_ai.usage.cache_read.input_tokens',
  usageCacheCreationInputTokens: 'gen_ai.usage.cache_creation.input_tokens',
  usageReasoningOutputTokens: 'gen_ai.usage.reasoning.output_tokens',
  tokenType: 'gen_ai.token.type',
  inputMessages: 'gen_ai.input.messages',
  outputMessages: 'gen_ai.output.messages',
  systemInstructions: 'gen_ai.system_instructions',
  toolDefinitions: 'gen_ai.tool.definitions',
  agentName: 'gen_ai.agent.name',
  toolName: 'gen_ai.tool.name',
  toolCallId: 'gen_ai.tool.call.id',
  toolType: 'gen_ai.tool.type',
  toolDescription: 'gen_ai.tool.description',
  toolCallArguments: 'gen_ai.tool.call.arguments',
  toolCallResult: 'gen_ai.tool.call.result',
  errorType: 'error.type',
  serverAddress: 'server.address',
  serverPort: 'server.port',
} as const;

/** The library's own attributes (`yourtool.*`). */
export const YOURTOOL_ATTR = {
  requestId: 'yourtool.request_id',
  modelId: 'yourtool.model_id',
  attempts: 'yourtool.attempts',
  providerStatus: 'yourtool.provider_status',
  usageEstimated: 'yourtool.usage.estimated',
  costUsd: 'yourtool.cost_usd',
  pricingVersion: 'yourtool.pricing_version',
  unpriced: 'yourtool.unpriced',
  step: 'yourtool.step',
  fallbackFromModel: 'yourtool.fallback.from_model',
  fallbackErrorType: 'yourtool.fallback.error_type',
  routingMode: 'yourtool.routing.mode',
  routingRule: 'yourtool.routing.rule',
  stopReason: 'yourtool.stop_reason',
  toolProviderCallId: 'yourtool.tool.provider_call_id',
} as const;

/** Metric instrument names of the GenAI semantic conventions. */
export const METRIC = {
  tokenUsage: 'gen_ai.client.token.usage',
  operationDuration: 'gen_ai.client.operation.duration',
  timeToFirstChunk: 'gen_ai.client.operation.time_to_first_chunk',
} as const;

/** Explicit bucket boundaries the conventions give for `gen_ai.client.token.usage`. */
export const TOKEN_BUCKETS = [
  1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864,
];

/** Explicit bucket boundaries the conventions give for `gen_ai.client.operation.duration` (s). */
export const DURATION_BUCKETS = [
  0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92,
];

/**
 * `gen_ai.provider.name` for an adapter: the conventions' well-known value where one applies
 * (`google` is `gcp.gen_ai`, the value for "any Google generative AI endpoint", as the adapter
 * serves both the Gemini API and Vertex AI), else the adapter's name (`ollama`, `openrouter`,
 * `vllm`, a third-party adapter's name).
 */
export function genAiProviderName(adapter: string): string {
  return WELL_KNOWN_PROVIDERS[adapter] ?? adapter;
}

const WELL_KNOWN_PROVIDERS: Record<string, string> = {
  anthropic: 'anthropic',
  openai: 'openai',
  google: 'gcp.gen_ai',
  gemini: 'gcp.gemini',
  vertex: 'gcp.vertex_ai',
  bedrock: 'aws.bedrock',
  azure: 'azure.ai.openai',
  deepseek: 'deepseek',
  groq: 'groq',
  mistral: 'mistral_ai',
  xai: 'x_ai',
  perplexity: 'perplexity',
  cohere: 'cohere',
};

/**
 * A model's name as the provider knows it: a canonical `provider:name` id without its provider
 * key (split at the first colon), or the value as it is when it has none.
 */
export function providerModelName(model: string): string {
  try {
    return parseModelId(model).name;
  } catch {
    return model;
  }
}

/**
 * The provider's id of a reply, where the adapter keeps it in `provider_raw` (`id`, or Gemini's
 * `response_id`, under the adapter's key or any other).
 */
export function responseIdOf(
  providerRaw: Record<string, unknown> | null | undefined,
  provider: string,
): string | undefined {
  if (!providerRaw) return undefined;
  const idIn = (value: unknown): string | undefined => {
    if (typeof value !== 'object' || value === null) return undefined;
    const { id, response_id } = value as { id?: unknown; response_id?: unknown };
    if (typeof id === 'string' && id !== '') return id;
    return typeof response_id === 'string' && response_id !== '' ? response_id : undefined;
  };
  return idIn(providerRaw[provider]) ?? Object.values(providerRaw).map(idIn).find(Boolean);
}

/**
 * `error.type` of a failure: an adapter error's class (`rate_limit`, `auth`, `server_error`,
 * `network`, `context_overflow`, `invalid_request`, `cancelled`, `other`), another library
 * error's code (`no_route`, `compaction_failed`, ...), else `_OTHER`.
 */
export function errorTypeOf(error: unknown): string {
  if (isAdapterError(error)) return error.error_class;
  if (isYourtoolError(error)) return error.code;
  return '_OTHER';
}

/** The attributes with a value (the API drops `undefined` too, but not every SDK does). */
export function definedAttributes(
  attributes: TelemetryAttributes,
): Record<string, TelemetryAttributeValue> {
  const out: Record<string, TelemetryAttributeValue> = {};
  for (const key in attributes) {
    const value = attributes[key];
    if (value !== undefined) out[key] = value;
  }
  return out;
}

import type { SystemContentBlock } from '@aws-sdk/client-bedrock-runtime';
import {
  type AdapterCapabilities,
  type CanonicalRequest,
  InvalidRequestError,
  type Logger,
  parseModelId,
  silentLogger,
  type ToolIdMap,
} from '@yourtool/core';
import {
  createToolNamer,
  type DroppedBlock,
  type HistoryMemo,
  type HistoryRepair,
  noteLeadingUserTurn,
  prepareHistory,
  STRICT_TOOL_NAME_RULES,
  wrapOutputSchema,
} from '@yourtool/core/adapter';
import { type BedrockFamily, familyOf } from '../families.js';
import type { BedrockThinkingOption } from '../options.js';
import { BEDROCK } from '../provider.js';
import type { BedrockRequest } from '../wire-types.js';
import {
  addMessageCachePoints,
  encodeConverseMessages,
  historyHasToolBlocks,
  historyToolNames,
} from './messages.js';
import { thinkingFields } from './thinking.js';
import { applyToolChoice } from './tool-choice.js';
import { converseToolConfig } from './tools.js';

/** Converse's limit on cache points in one request. */
export const MAX_CACHE_POINTS = 4;
/** How many of the last user turns get a cache point (within {@link MAX_CACHE_POINTS}). */
const MESSAGE_CACHE_POINTS = 2;

/** Bedrock-specific options of one request (this call's over the configured ones). */
export interface BedrockRequestOptions {
  /** Reasoning, switched on the family's way. Off unless asked for. */
  thinking?: BedrockThinkingOption;
  /** Cache points where the family takes them. Default true. */
  promptCaching?: boolean;
  /** Members merged last over what the family sets in `additionalModelRequestFields`. */
  additionalModelRequestFields?: Record<string, unknown>;
  /** A guardrail applied to the request. */
  guardrail?: { id: string; version: string };
}

/** What {@link toBedrockRequest} needs besides the request. */
export interface ToBedrockContext {
  /** The session's tool id map. */
  toolIdMap: ToolIdMap;
  /** The target model's capabilities (what `prepareHistory` filters by). */
  capabilities: AdapterCapabilities;
  /** Where WARN entries go. */
  logger?: Logger;
  /** The Bedrock model id (default: the name in the canonical id). */
  wireName?: string;
  /** The model's family (default: `familyOf(wireName)`). */
  family?: BedrockFamily;
  options?: BedrockRequestOptions;
  /** The adapter's memory of prepared histories (decision 0165). */
  historyMemo?: HistoryMemo;
}

/** A Converse request, and what was changed to make it valid. */
export interface BedrockRequestEncoding {
  request: BedrockRequest;
  dropped: DroppedBlock[];
  repairs: HistoryRepair[];
}

/**
 * Encodes a canonical request as a Converse request: the history prepared by core's
 * `prepareHistory` (signed reasoning and redacted reasoning back only to the model that made
 * them, unanswered tool uses repaired, nothing blank), turns alternating from a user turn, tool
 * ids and names through the session's map and namer under the family's rules, a `toolConfig`
 * whenever tools are offered or used, reasoning switched on the family's way, up to four cache
 * points, structured output, the guardrail, and the caller's own model fields merged last.
 */
export function toBedrockRequest(
  request: CanonicalRequest,
  context: ToBedrockContext,
): BedrockRequestEncoding {
  const logger = context.logger ?? silentLogger;
  const options = context.options ?? {};
  const wireName = context.wireName ?? parseModelId(request.model).name;
  const family = context.family ?? familyOf(wireName);
  const warn = (event: string, reason: string, extra: Record<string, unknown> = {}) =>
    logger.warn({ event, adapter: BEDROCK, request_id: request.request_id, ...extra }, reason);
  const prepared = prepareHistory(
    request.messages,
    { adapter: BEDROCK, model: request.model, capabilities: context.capabilities },
    {
      system_prompt: request.system_prompt ?? null,
      logger,
      // reasoning goes back only to the model that made it, and only to a family that takes it
      // back; whether it is signed is checked as it is encoded (unsigned is dropped there)
      keepThinking: (_block, message) =>
        family.reasoningReplay === 'signed' && message.metadata.model === request.model,
    },
    context.historyMemo,
  );
  const toolName = createToolNamer({
    rules: STRICT_TOOL_NAME_RULES,
    adapter: BEDROCK,
    logger,
    requestId: request.request_id,
  });
  const encoding = { family, toolIdMap: context.toolIdMap, toolName, logger };
  const turns = encodeConverseMessages(prepared.messages, encoding);
  if (turns.insertedFirstTurn) noteLeadingUserTurn(prepared, warn, 'assistant');
  const messages = turns.messages;
  // the codec drops blocks prepareHistory keeps (URL images, unsigned reasoning): Converse
  // refuses a request with no turn, so it is refused here, before anything is sent
  if (messages.length === 0) throw nothingLeft(request, prepared.messages.length);
  const out: BedrockRequest = { modelId: wireName, messages };
  addCachedParts(out, {
    system: prepared.system,
    // Converse has no tool choice "none": such a request offers no tools
    tools: request.tool_choice === 'none' ? [] : request.tools,
    family,
    caching: options.promptCaching !== false,
    toolName,
    requestId: request.request_id,
  });
  const thinking = thinkingFields({
    family,
    wireName,
    option: options.thinking,
    maxTokens: request.max_output_tokens,
    messages,
    warn,
  });
  out.inferenceConfig = inferenceConfig(request, family, thinking.on, warn);
  applyToolChoice(out, request, { family, thinkingOn: thinking.on, toolName, logger });
  applyOutputSchema(out, request, family, warn);
  if (options.guardrail) {
    out.guardrailConfig = {
      guardrailIdentifier: options.guardrail.id,
      guardrailVersion: options.guardrail.version,
    };
  }
  const fields = { ...thinking.fields, ...options.additionalModelRequestFields };
  if (Object.keys(fields).length > 0) {
    out.additionalModelRequestFields = fields as BedrockRequest['additionalModelRequestFields'];
  }
  return { request: out, dropped: prepared.dropped, repairs: prepared.repairs };
}

/** The error for a history whose every block the codec dropped. */
function nothingLeft(request: CanonicalRequest, count: number): InvalidRequestError {
  return new InvalidRequestError(
    `nothing to send to ${request.model}: none of the ${count} message(s) left after preparing the history has a block Converse takes (URL images and unsigned reasoning are dropped)`,
    { request_id: request.request_id, provider: BEDROCK, retryable: false },
  );
}

/** What {@link addCachedParts} needs. */
interface CachedParts {
  system: string | null;
  tools: CanonicalRequest['tools'];
  family: BedrockFamily;
  caching: boolean;
  toolName: (name: string) => string;
  requestId: string;
}

/**
 * Sets `system` and `toolConfig` and places the cache points where the family takes them:
 * after the system text, after the tools, then at the end of the last user turns, at most
 * {@link MAX_CACHE_POINTS} in all.
 */
function addCachedParts(out: BedrockRequest, parts: CachedParts): void {
  const messages = out.messages ?? [];
  const places = parts.family.cachePoints;
  let cachePoints = 0;
  if (parts.system !== null) {
    const system: SystemContentBlock[] = [{ text: parts.system }];
    if (parts.caching && places.system) {
      system.push({ cachePoint: { type: 'default' } });
      cachePoints++;
    }
    out.system = system;
  }
  const toolCache = parts.caching && places.tools;
  const toolConfig = converseToolConfig({
    tools: parts.tools,
    historyNames: historyHasToolBlocks(messages) ? historyToolNames(messages) : [],
    toolName: parts.toolName,
    cachePoint: toolCache,
    requestId: parts.requestId,
  });
  if (toolConfig !== undefined) {
    out.toolConfig = toolConfig;
    if (toolCache) cachePoints++;
  }
  if (parts.caching && places.messages) {
    addMessageCachePoints(messages, Math.min(MESSAGE_CACHE_POINTS, MAX_CACHE_POINTS - cachePoints));
  }
}

/** `maxTokens`, `stopSequences` and `temperature` (not with Claude's thinking, which refuses it). */
function inferenceConfig(
  request: CanonicalRequest,
  family: BedrockFamily,
  thinkingOn: boolean,
  warn: (event: string, reason: string, extra?: Record<string, unknown>) => void,
): NonNullable<BedrockRequest['inferenceConfig']> {
  const config: NonNullable<BedrockRequest['inferenceConfig']> = {
    maxTokens: request.max_output_tokens,
  };
  if (request.stop_sequences.length > 0) config.stopSequences = [...request.stop_sequences];
  const temperature = request.temperature;
  if (temperature !== null && temperature !== undefined) {
    if (thinkingOn && family.thinking === 'claude-thinking') {
      warn('parameter_dropped', 'temperature was not sent: Claude refuses it with thinking on', {
        parameter: 'temperature',
      });
    } else {
      config.temperature = temperature;
    }
  }
  return config;
}

/** `outputConfig` for a requested output schema, where the family takes one (else a WARN). */
function applyOutputSchema(
  out: BedrockRequest,
  request: CanonicalRequest,
  family: BedrockFamily,
  warn: (event: string, reason: string, extra?: Record<string, unknown>) => void,
): void {
  if (!request.output_schema) return;
  if (!family.structuredOutput) {
    warn(
      'parameter_dropped',
      `output_schema was not sent: the ${family.name} family has no structured output on Bedrock`,
      { parameter: 'output_schema' },
    );
    return;
  }
  out.outputConfig = {
    textFormat: {
      type: 'json_schema',
      // a non-object schema goes as { value } (core unwraps it on read)
      structure: {
        jsonSchema: {
          schema: JSON.stringify(wrapOutputSchema(request.output_schema)),
          name: 'reply',
        },
      },
    },
  };
}

import type Anthropic from '@anthropic-ai/sdk';
import {
  type CanonicalRequest,
  type Logger,
  parseModelId,
  silentLogger,
  type ToolIdMap,
} from '@yourtool/core';
import {
  type DroppedBlock,
  type HistoryRepair,
  noteLeadingUserTurn,
  prepareHistory,
} from '@yourtool/core/adapter';
import { type ClaudeModelInfo, claudeModelInfo } from '../models.js';
import { encodeRememberedMessages, type ToolNamer } from './messages.js';
import { anthropicOutputSchema } from './output-schema.js';
import { applyToolChoice } from './tool-choice.js';
import { anthropicToolNamer } from './tool-names.js';
import type { AnthropicWireMemory } from './wire-memory.js';

export { encodeAnthropicMessages, type ToolNamer } from './messages.js';
export { ANTHROPIC } from './provider.js';
export { AnthropicWireMemory } from './wire-memory.js';

/** How thinking is requested (per call through `providerOptions.anthropic.thinking`, or as a default). */
export type AnthropicThinkingOption =
  | 'adaptive'
  | 'off'
  | { type: 'adaptive' }
  | { type: 'enabled'; budget_tokens: number }
  | { budget_tokens: number };

/** Anthropic-specific options of one request. */
export interface AnthropicRequestOptions {
  /** Extended thinking; off unless asked for. */
  thinking?: AnthropicThinkingOption;
  /** Mark the system prompt and tool definitions as cache breakpoints. Default true. */
  promptCaching?: boolean;
  /**
   * The `anthropic-version` the client sends. The SDK's default (2026-10-21) refuses sampling
   * parameters, so `temperature` is left out with a WARN; with `2023-06-01`, or Vertex AI's
   * `vertex-2023-10-16` (which follows it), it is sent to models that still accept it.
   */
  apiVersion?: string;
  /** Wire model name, when it differs from the name in the canonical id. */
  wireName?: string;
}

/** What the request codec needs besides the request. */
export interface ToAnthropicContext {
  toolIdMap: ToolIdMap;
  logger?: Logger;
  options?: AnthropicRequestOptions;
  /** Model facts; looked up from the wire name when omitted. */
  model?: ClaudeModelInfo;
  /**
   * What is remembered between requests (the adapter's own; decision 0165): the prepared
   * history, each sealed message's form and the closed turns of a history's sealed prefix.
   * Without it every message is prepared and encoded afresh, to the same parameters.
   */
  memory?: AnthropicWireMemory;
}

/** Messages API parameters without the `stream` flag (set by the caller). */
export type AnthropicParams = Omit<Anthropic.MessageCreateParamsNonStreaming, 'stream'>;

/** The Messages API parameters for a request, and what was changed to make them valid. */
export interface AnthropicRequestEncoding {
  params: AnthropicParams;
  dropped: DroppedBlock[];
  repairs: HistoryRepair[];
  /** Why thinking was not sent although it was requested, if so. */
  thinkingSkipped: string | null;
}

const MIN_THINKING_BUDGET = 1024;

function requestedThinking(
  option: AnthropicThinkingOption | undefined,
): 'adaptive' | number | null {
  if (option === undefined || option === 'off') return null;
  if (option === 'adaptive') return 'adaptive';
  if ('budget_tokens' in option) return option.budget_tokens;
  return 'adaptive';
}

/**
 * Why thinking cannot be sent with this history, or null. With thinking on, the Messages API
 * requires the assistant turn that a tool loop continues from to start with a thinking block;
 * a turn produced by another model (or before thinking was on) has none.
 */
export function thinkingBlockedByHistory(
  messages: readonly Anthropic.MessageParam[],
): string | null {
  const last = messages.at(-1);
  if (last?.role !== 'user' || typeof last.content === 'string') return null;
  if (!last.content.some((b) => b.type === 'tool_result')) return null;
  const turn = messages.at(-2);
  if (turn?.role !== 'assistant' || typeof turn.content === 'string') return null;
  const first = turn.content[0];
  if (first && (first.type === 'thinking' || first.type === 'redacted_thinking')) return null;
  return 'the assistant turn this tool loop continues from has no thinking block (it was produced without thinking or by another model)';
}

function thinkingConfig(
  wanted: 'adaptive' | number,
  info: ClaudeModelInfo,
  maxTokens: number,
  warn: (reason: string) => void,
): Anthropic.ThinkingConfigParam | null {
  if (info.thinking === 'adaptive') {
    if (wanted !== 'adaptive')
      warn('this model takes adaptive thinking only; the budget was replaced by adaptive thinking');
    return { type: 'adaptive' };
  }
  if (wanted === 'adaptive' && info.thinking === 'adaptive-or-budget') return { type: 'adaptive' };
  let budget = wanted === 'adaptive' ? Math.floor(maxTokens / 2) : wanted;
  if (wanted === 'adaptive')
    warn(`this model has no adaptive thinking; using a budget of ${budget} tokens`);
  if (budget >= maxTokens) {
    budget = maxTokens - 1;
    warn(`the thinking budget must stay below max_output_tokens; lowered to ${budget}`);
  }
  if (budget < MIN_THINKING_BUDGET) {
    warn(
      `max_output_tokens ${maxTokens} leaves no room for the minimum thinking budget of ${MIN_THINKING_BUDGET}; thinking is off for this request`,
    );
    return null;
  }
  return { type: 'enabled', budget_tokens: budget };
}

/**
 * Encodes a canonical request as Messages API parameters (without `stream`): system prompt
 * hoisted and joined, history normalized by core's `prepareHistory` (signed thinking only back
 * to the model that produced it, unanswered tool uses repaired, nothing empty), tool results
 * grouped in user turns, tool ids mapped through the session's `ToolIdMap`, tool names in the
 * history made Anthropic-safe (each rename a `tool_name_mapped` WARN), tool
 * definitions, stop sequences, max tokens, structured output, thinking and cache breakpoints.
 */
export function toAnthropicParams(
  request: CanonicalRequest,
  context: ToAnthropicContext,
): AnthropicRequestEncoding {
  const { toolIdMap, memory } = context;
  const logger = context.logger ?? silentLogger;
  const options = context.options ?? {};
  const wireName = options.wireName ?? parseModelId(request.model).name;
  const info = context.model ?? claudeModelInfo(wireName);
  const caps = info.capabilities;
  // the provider key of the requested model: tool ids are linked under it (Claude on Vertex has its own)
  const provider = parseModelId(request.model).provider;
  const warn = (event: string, reason: string, extra: Record<string, unknown> = {}) =>
    logger.warn({ event, adapter: provider, request_id: request.request_id, ...extra }, reason);

  const prepared = prepareHistory(
    request.messages,
    { adapter: provider, model: request.model, capabilities: caps },
    {
      system_prompt: request.system_prompt ?? null,
      logger,
      // Signed thinking goes back only to the model that produced it, and only with its
      // signature (an unsigned thinking block is refused by the API).
      keepThinking: (block, message) =>
        caps.supports_thinking &&
        message.metadata.model === request.model &&
        (block.type === 'redacted_thinking' || Boolean(block.signature)),
    },
    memory?.history,
  );

  const toolName = anthropicToolNamer(logger, request.request_id, provider);
  const messages = encodeRememberedMessages(prepared.messages, toolIdMap, toolName, {
    provider,
    memory,
  });
  if (startWithUser(messages)) noteLeadingUserTurn(prepared, warn, 'assistant');

  const caching = options.promptCaching !== false && caps.supports_prompt_caching;
  const params: AnthropicParams = {
    model: wireName,
    max_tokens: request.max_output_tokens,
    messages,
  };
  if (prepared.system !== null) {
    params.system = caching
      ? [{ type: 'text', text: prepared.system, cache_control: { type: 'ephemeral' } }]
      : prepared.system;
  }
  if (request.tools.length > 0) params.tools = anthropicTools(request.tools, caching, toolName);
  if (request.stop_sequences.length > 0) params.stop_sequences = [...request.stop_sequences];
  if (request.temperature !== null && request.temperature !== undefined) {
    if (takesSamplingParameters(options.apiVersion) && info.acceptsTemperature) {
      (params as AnthropicParams & { temperature?: number }).temperature = request.temperature;
    } else {
      warn(
        'parameter_dropped',
        `temperature was not sent: ${wireName} under anthropic-version ${options.apiVersion ?? '2026-10-21'} refuses sampling parameters`,
        { parameter: 'temperature' },
      );
    }
  }
  if (request.output_schema) {
    const schema = anthropicOutputSchema(request.output_schema, warn);
    params.output_config = { format: { type: 'json_schema', schema } };
  }

  const thinkingSkipped = applyThinking(params, options.thinking, info, warn);
  applyToolChoice(params, request, toolName, { logger, provider });
  return { params, dropped: prepared.dropped, repairs: prepared.repairs, thinkingSkipped };
}

/**
 * Puts a user turn before a history that starts with an assistant turn (the API requires the
 * first turn to be the user's); true when it did.
 */
function startWithUser(messages: Anthropic.MessageParam[]): boolean {
  if (messages[0]?.role !== 'assistant') return false;
  messages.unshift({
    role: 'user',
    content: [{ type: 'text', text: '(The conversation continues.)' }],
  });
  return true;
}

/** Whether an API version still takes sampling parameters (Vertex AI's follows 2023-06-01). */
function takesSamplingParameters(version: string | undefined): boolean {
  return version === '2023-06-01' || version === 'vertex-2023-10-16';
}

/** Tool definitions, the last one a cache breakpoint when caching. */
function anthropicTools(
  tools: CanonicalRequest['tools'],
  caching: boolean,
  toolName: ToolNamer,
): Anthropic.Tool[] {
  return tools.map(
    (tool, index): Anthropic.Tool => ({
      // declared names keep the canonical rule, which is Anthropic's: sent as they are
      name: toolName(tool.name),
      description: tool.description,
      input_schema: tool.input_schema as Anthropic.Tool.InputSchema,
      ...(caching && index === tools.length - 1 ? { cache_control: { type: 'ephemeral' } } : {}),
    }),
  );
}

/**
 * Sets `params.thinking` as requested, when the model and the history allow it; returns why it
 * was not sent although requested (each reason or adjustment a WARN), or null.
 */
function applyThinking(
  params: AnthropicParams,
  option: AnthropicThinkingOption | undefined,
  info: ClaudeModelInfo,
  warn: (event: string, reason: string) => void,
): string | null {
  const wanted = requestedThinking(option);
  if (wanted === null) return null;
  const skipped = info.capabilities.supports_thinking
    ? thinkingBlockedByHistory(params.messages)
    : `${params.model} does not support thinking`;
  if (skipped) {
    warn('thinking_skipped', `thinking was not enabled for this request: ${skipped}`);
    return skipped;
  }
  const config = thinkingConfig(wanted, info, params.max_tokens, (reason) =>
    warn('thinking_adjusted', reason),
  );
  if (!config) return 'max_output_tokens is too small for a thinking budget';
  params.thinking = config;
  return null;
}

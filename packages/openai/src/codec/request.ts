import {
  type AdapterCapabilities,
  type CanonicalRequest,
  type Logger,
  type Message,
  silentLogger,
  type ToolIdMap,
  type ToolIdRules,
} from '@yourtool/core';
import {
  createToolNamer,
  type DroppedBlock,
  type HistoryMemo,
  type HistoryRepair,
  type PreparedHistory,
  type PrepareHistoryOptions,
  prepareHistory,
  STRICT_TOOL_NAME_RULES,
  type ToolNameRules,
} from '@yourtool/core/adapter';
import type OpenAI from 'openai';
import { encodeOpenAIMessages } from './chat-history.js';
import type { OpenAIChatMessage, ReasoningBlock } from './chat-messages.js';
import type { OpenAIChatWireMemory } from './chat-wire-memory.js';
import { nothingToSendError } from './nothing-to-send.js';
import { jsonSchemaFormat } from './output-format.js';
import { chatToolsParams } from './tools-param.js';

/** The adapter name, which is also the provider key of OpenAI models. */
export const OPENAI = 'openai';

/** Chat Completions parameters without `stream` (set by the caller). */
export type OpenAIChatParams = Omit<OpenAI.ChatCompletionCreateParamsNonStreaming, 'stream'>;

/** What the Chat Completions codec needs besides the request (`historyMemo`: decision 0165). */
export interface OpenAIChatEncodeOptions {
  /** Provider key for the tool id map and log entries. Default `openai`. */
  provider?: string;
  /** Wire model name. */
  wireName: string;
  /** The target model's capabilities (what `prepareHistory` lets through). */
  capabilities: AdapterCapabilities;
  /** The session's tool id map. */
  toolIdMap: ToolIdMap;
  historyMemo?: HistoryMemo;
  logger?: Logger;
  /** How the output limit is named on the wire. Default `max_completion_tokens`. */
  maxTokensParam?: 'max_completion_tokens' | 'max_tokens';
  /** Why `temperature` must be left out (logged at WARN), or `null`/absent to send it. */
  temperatureRefusal?: string | null;
  /** `sent` (default) puts stop sequences in `stop`; `emulated` leaves them for the decoder. */
  stopSequences?: 'sent' | 'emulated';
  /** `reasoning_effort` to send, if any. */
  reasoningEffort?: string | null;
  /** Which thinking blocks may go back (default: none; Chat Completions carries no reasoning). */
  keepThinking?: PrepareHistoryOptions['keepThinking'];
  /**
   * Turns the thinking blocks kept on an assistant message into provider fields of that wire
   * message (OpenRouter's `reasoning_details`). Without it, kept thinking is dropped with a WARN.
   */
  encodeReasoning?: (blocks: ReasoningBlock[], message: Message) => Record<string, unknown>;
  /** Whether a structured-output schema is sent with `strict: true` when it qualifies. Default true. */
  strictStructuredOutput?: boolean;
  /**
   * The rules tool call ids must satisfy on the wire (Mistral: nine letters and digits). Default
   * core's `OPENAI_TOOL_ID_RULES` (at most 40 characters of `[a-zA-Z0-9_-]`).
   */
  toolIdRules?: ToolIdRules;
  /**
   * The rule tool names must satisfy on the wire; a tool use named outside it goes out under
   * the name core's `wireToolName` derives (decision 0140). Default core's
   * `STRICT_TOOL_NAME_RULES` (1-64 of `[a-zA-Z0-9_-]`, OpenAI's rule).
   */
  toolNameRules?: ToolNameRules;
  /**
   * The adapter's wire memory (decisions 0165, 0191): each sealed message's wire messages and
   * their JSON are remembered in it, and `params.messages`' JSON is recorded for the request
   * body writer. Without it, every message is encoded afresh.
   */
  wireMemory?: OpenAIChatWireMemory;
}

/** The wire parameters for a request, and what was changed to make them valid. */
export interface OpenAIChatEncoding {
  params: OpenAIChatParams;
  /** Stop sequences the decoder must apply itself (the model refuses `stop`). */
  emulatedStopSequences: string[];
  /** Whether stop sequences went out in `stop` (a `stop` finish may then be a stop-sequence hit). */
  stopSequencesSent: boolean;
  dropped: DroppedBlock[];
  repairs: HistoryRepair[];
}

/**
 * The history as Chat Completions messages: prepared by core's `prepareHistory`, then encoded.
 * Refused with the "nothing to send" error when no conversation message is left (an assistant
 * turn holding only reasoning the wire cannot carry may have been all there was).
 */
function encodeChatHistory(
  request: CanonicalRequest,
  options: OpenAIChatEncodeOptions,
  logger: Logger,
  toolName: (name: string) => string,
): { prepared: PreparedHistory; messages: OpenAIChatMessage[] } {
  const provider = options.provider ?? OPENAI;
  const prepared = prepareHistory(
    request.messages,
    { adapter: provider, model: request.model, capabilities: options.capabilities },
    {
      system_prompt: request.system_prompt ?? null,
      logger,
      keepThinking: options.keepThinking ?? (() => false),
    },
    options.historyMemo,
  );
  const messages = encodeOpenAIMessages(
    prepared.system,
    prepared.messages,
    {
      provider,
      toolIdMap: options.toolIdMap,
      logger,
      encodeReasoning: options.encodeReasoning,
      dropped: prepared.dropped,
      toolName,
      ...(options.toolIdRules ? { toolIdRules: options.toolIdRules } : {}),
    },
    options.wireMemory,
  );
  if (!messages.some((m) => m.role !== 'system')) {
    throw nothingToSendError(
      { adapter: provider, model: request.model },
      request.messages,
      prepared.dropped,
    );
  }
  return { prepared, messages };
}

/**
 * Encodes a canonical request as Chat Completions parameters (without `stream`): history
 * normalized by core's `prepareHistory` (system text hoisted and joined, nothing empty, thinking
 * dropped with a WARN unless the provider can carry it, unanswered tool uses repaired), tool ids
 * mapped through the session's `ToolIdMap` (at most 40 characters, or `toolIdRules`), tool
 * definitions, the output limit, stop sequences (or their emulation), temperature (or a WARN), and
 * `response_format: json_schema` for `output_schema`.
 */
export function toOpenAIChatParams(
  request: CanonicalRequest,
  options: OpenAIChatEncodeOptions,
): OpenAIChatEncoding {
  const logger = options.logger ?? silentLogger;
  const provider = options.provider ?? OPENAI;
  const warn = (event: string, reason: string, extra: Record<string, unknown> = {}) =>
    logger.warn({ event, adapter: provider, request_id: request.request_id, ...extra }, reason);

  const toolName = createToolNamer({
    rules: options.toolNameRules ?? STRICT_TOOL_NAME_RULES,
    adapter: provider,
    logger,
    requestId: request.request_id,
  });
  const { prepared, messages } = encodeChatHistory(request, options, logger, toolName);
  const params: OpenAIChatParams = { model: options.wireName, messages };
  if (options.maxTokensParam === 'max_tokens') params.max_tokens = request.max_output_tokens;
  else params.max_completion_tokens = request.max_output_tokens;

  Object.assign(params, chatToolsParams(request, options, toolName, warn));

  let emulatedStopSequences: string[] = [];
  let stopSequencesSent = false;
  if (request.stop_sequences.length > 0) {
    if (options.stopSequences === 'emulated') {
      emulatedStopSequences = [...request.stop_sequences];
    } else {
      params.stop = [...request.stop_sequences];
      stopSequencesSent = true;
    }
  }

  if (request.temperature !== null && request.temperature !== undefined) {
    if (options.temperatureRefusal) {
      warn('parameter_dropped', `temperature was not sent: ${options.temperatureRefusal}`, {
        parameter: 'temperature',
      });
    } else {
      params.temperature = request.temperature;
    }
  }

  if (options.reasoningEffort) {
    params.reasoning_effort = options.reasoningEffort as OpenAI.ReasoningEffort;
  }

  const format = jsonSchemaFormat(request, options, warn);
  if (format) params.response_format = { type: 'json_schema', json_schema: format };

  return {
    params,
    emulatedStopSequences,
    stopSequencesSent,
    dropped: prepared.dropped,
    repairs: prepared.repairs,
  };
}

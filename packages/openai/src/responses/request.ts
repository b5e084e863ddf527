import {
  type AdapterCapabilities,
  type CanonicalRequest,
  type Logger,
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
  prepareHistory,
  STRICT_TOOL_NAME_RULES,
  type ToolNameRules,
} from '@yourtool/core/adapter';
import type OpenAI from 'openai';
import { nothingToSendError } from '../codec/nothing-to-send.js';
import { jsonSchemaFormat } from '../codec/output-format.js';
import { OPENAI } from '../codec/request.js';
import { responsesToolsParams } from '../codec/tools-param.js';
import type { OpenAIReasoningSummary } from '../models.js';
import { encodeResponsesInput, type ResponsesInputItem } from './input.js';
import { encodeRememberedInput, type OpenAIResponsesWireMemory } from './wire-memory.js';

/** The smallest `max_output_tokens` the Responses API accepts (a smaller value is a 400). */
export const OPENAI_RESPONSES_MIN_OUTPUT_TOKENS = 16;

/** What the Responses API returns reasoning items with when asked (stateless replay). */
export const OPENAI_ENCRYPTED_REASONING_INCLUDE = 'reasoning.encrypted_content';

/** Responses API parameters without `stream` (set by the caller), with the adapter's input items. */
export type OpenAIResponsesParams = Omit<
  OpenAI.Responses.ResponseCreateParamsNonStreaming,
  'stream' | 'input'
> & { input: ResponsesInputItem[] };

/** What the Responses request codec needs besides the request. */
export interface OpenAIResponsesEncodeOptions {
  /** Provider key for the tool id map and log entries. Default `openai`. */
  provider?: string;
  /** Wire model name. */
  wireName: string;
  /** The target model's capabilities (what `prepareHistory` lets through). */
  capabilities: AdapterCapabilities;
  /** The session's tool id map. */
  toolIdMap: ToolIdMap;
  /** The adapter's `HistoryMemo` for `prepareHistory` (decision 0165); none: prepared afresh. */
  historyMemo?: HistoryMemo;
  logger?: Logger;
  /** Whether the model reasons: asks for encrypted reasoning and sends `reasoning` settings. */
  reasoning?: boolean;
  /** `reasoning.effort` to send (reasoning models only). */
  reasoningEffort?: string | null;
  /** `reasoning.summary` to ask for (reasoning models only). */
  reasoningSummary?: OpenAIReasoningSummary | null;
  /** Why `temperature` must be left out (logged at WARN), or `null`/absent to send it. */
  temperatureRefusal?: string | null;
  /** Whether a structured-output schema is sent with `strict: true` when it qualifies. Default true. */
  strictStructuredOutput?: boolean;
  /** Tool call id rules. Default {@link OPENAI_RESPONSES_TOOL_ID_RULES}. */
  toolIdRules?: ToolIdRules;
  /**
   * The rule function names must satisfy; a tool use named outside it goes out under the name
   * core's `wireToolName` derives (decision 0140). Default core's `STRICT_TOOL_NAME_RULES`.
   */
  toolNameRules?: ToolNameRules;
  /**
   * The adapter's wire memory (decisions 0165, 0193): each sealed message's items and their
   * JSON, and the run of a history's leading messages, are remembered per `ToolIdMap`, so a
   * session's next request encodes only its new messages. None: every message encoded afresh.
   */
  wireMemory?: OpenAIResponsesWireMemory;
}

/** The wire parameters for a request, and what was changed to make them valid. */
export interface OpenAIResponsesEncoding {
  params: OpenAIResponsesParams;
  /** Stop sequences the decoder applies itself (the Responses API has no `stop`). */
  emulatedStopSequences: string[];
  dropped: DroppedBlock[];
  repairs: HistoryRepair[];
}

/**
 * The history as the Responses `input` list: prepared by core's `prepareHistory`, then encoded.
 * Refused with the "nothing to send" error when no item is left (reasoning that cannot be
 * replayed may have been all the history held besides blank text).
 */
function encodeResponsesHistory(
  request: CanonicalRequest,
  options: OpenAIResponsesEncodeOptions,
  logger: Logger,
  toolName: (name: string) => string,
): { prepared: PreparedHistory; input: ResponsesInputItem[] } {
  const provider = options.provider ?? OPENAI;
  const prepared = prepareHistory(
    request.messages,
    { adapter: provider, model: request.model, capabilities: options.capabilities },
    { system_prompt: request.system_prompt ?? null, logger },
    options.historyMemo,
  );
  const context = {
    provider,
    toolIdMap: options.toolIdMap,
    logger,
    dropped: prepared.dropped,
    toolName,
    ...(options.toolIdRules ? { toolIdRules: options.toolIdRules } : {}),
  };
  const input = options.wireMemory
    ? encodeRememberedInput(prepared.messages, context, options.wireMemory)
    : encodeResponsesInput(prepared.messages, context);
  if (input.length === 0) {
    throw nothingToSendError(
      { adapter: provider, model: request.model },
      request.messages,
      prepared.dropped,
    );
  }
  return { prepared, input };
}

/**
 * Encodes a canonical request as Responses API parameters (without `stream`): history
 * normalized by core's `prepareHistory` (system text hoisted into `instructions`, nothing
 * empty, thinking only back to the model that produced it, unanswered tool uses repaired),
 * `store: false` always (the adapter is stateless), `include: ["reasoning.encrypted_content"]`
 * and `reasoning` settings for models that reason, function tools (`strict: false`), the output
 * limit (raised to the API's minimum of 16, with a WARN), temperature (or a WARN),
 * `text.format` json_schema for `output_schema`. Stop sequences are returned for the decoder to
 * apply: the Responses API has no `stop` parameter.
 */
export function toOpenAIResponsesParams(
  request: CanonicalRequest,
  options: OpenAIResponsesEncodeOptions,
): OpenAIResponsesEncoding {
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
  const { prepared, input } = encodeResponsesHistory(request, options, logger, toolName);
  const params: OpenAIResponsesParams = {
    model: options.wireName,
    input,
    max_output_tokens: Math.max(request.max_output_tokens, OPENAI_RESPONSES_MIN_OUTPUT_TOKENS),
    store: false,
  };
  if (request.max_output_tokens < OPENAI_RESPONSES_MIN_OUTPUT_TOKENS) {
    warn(
      'parameter_adjusted',
      `max_output_tokens ${request.max_output_tokens} was sent as ${OPENAI_RESPONSES_MIN_OUTPUT_TOKENS}: the Responses API refuses less`,
      { parameter: 'max_output_tokens' },
    );
  }
  if (prepared.system !== null) params.instructions = prepared.system;

  if (options.reasoning) {
    params.include = [OPENAI_ENCRYPTED_REASONING_INCLUDE];
    const reasoning: OpenAI.Reasoning = {};
    if (options.reasoningEffort) {
      reasoning.effort = options.reasoningEffort as OpenAI.ReasoningEffort;
    }
    if (options.reasoningSummary) reasoning.summary = options.reasoningSummary;
    if (Object.keys(reasoning).length > 0) params.reasoning = reasoning;
  }

  Object.assign(params, responsesToolsParams(request, options, toolName, warn));

  if (request.temperature !== null && request.temperature !== undefined) {
    if (options.temperatureRefusal) {
      warn('parameter_dropped', `temperature was not sent: ${options.temperatureRefusal}`, {
        parameter: 'temperature',
      });
    } else {
      params.temperature = request.temperature;
    }
  }

  const format = jsonSchemaFormat(request, options, warn);
  if (format) params.text = { format: { type: 'json_schema', ...format } };

  return {
    params,
    emulatedStopSequences: [...request.stop_sequences],
    dropped: prepared.dropped,
    repairs: prepared.repairs,
  };
}

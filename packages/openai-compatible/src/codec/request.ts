import type { AdapterCapabilities, CanonicalRequest, Logger, ToolIdRules } from '@yourtool/core';
import { silentLogger, type ToolIdMap } from '@yourtool/core';
import type { HistoryMemo } from '@yourtool/core/adapter';
import { type OpenAIChatEncoding, toOpenAIChatParams } from '@yourtool/openai/codec';
import type { MaxTokensField, ReasoningField, RequestOrderRule } from '../options.js';
import { encodeReasoningField, keepReplayableThinking, reasoningWriteField } from './reasoning.js';
import { applyRequestOrderRules } from './request-order.js';
import { fillRequiredReasoning } from './required-reasoning.js';

/** What the compatible request codec needs besides the request. */
export interface ToCompatibleOptions {
  /** Provider key (tool id map, log entries). */
  provider: string;
  /** The model name the adapter resolved (before any Azure deployment mapping). */
  wireName: string;
  /** What goes in the body's `model` (an Azure deployment name; default `wireName`). */
  bodyModel?: string;
  capabilities: AdapterCapabilities;
  toolIdMap: ToolIdMap;
  logger?: Logger;
  /** The adapter's `HistoryMemo` for `prepareHistory` (decision 0165); none: prepared afresh. */
  historyMemo?: HistoryMemo;
  maxTokensField: MaxTokensField;
  /** Tool call id rules (default OpenAI's). */
  toolIdRules?: ToolIdRules;
  stopSequences?: 'sent' | 'emulated';
  /** Why `temperature` must be left out, or `null` to send it. */
  temperatureRefusal?: string | null;
  reasoningField: ReasoningField;
  /** Whether the same model's unsigned thinking goes back in the reasoning field. */
  reasoningReplay: boolean;
  /**
   * Whether, when reasoning is replayed to a thinking model, every assistant message with tool
   * calls carries the reasoning field (`""` when it has none of that model's). Default false.
   */
  reasoningRequiredWithToolCalls?: boolean;
  /** Message-order rules the server enforces (see `applyRequestOrderRules`). */
  requestOrder?: readonly RequestOrderRule[];
  /** Top-level request fields the server refuses (left out with a WARN). */
  unsupportedParameters?: readonly string[];
  /** Fields merged into the body. */
  extraBody?: Record<string, unknown>;
}

/** The encoding, plus the body fields the SDK types do not know and the usage request. */
export interface CompatibleRequestEncoding extends OpenAIChatEncoding {
  extraBody: Record<string, unknown>;
}

/**
 * Encodes a canonical request for an OpenAI-compatible server with the `@yourtool/openai`
 * codec and the deployment's quirks: the output limit under `max_tokens` or
 * `max_completion_tokens`; tool call ids satisfying the server's rules (derived, paired and
 * stable through the session's map); thinking dropped with a WARN unless the deployment replays
 * reasoning, and then only the same model's unsigned thinking, in its reasoning field; `stop`
 * emulated or `temperature` left out where the server refuses them; refused fields left out
 * with a WARN (`parameter_dropped`); `extra_body` merged. Then the server's message-order rules
 * are satisfied (`applyRequestOrderRules`), and, where a thinking model requires it, every
 * assistant message with tool calls carries the reasoning field (`fillRequiredReasoning`).
 */
export function toCompatibleParams(
  request: CanonicalRequest,
  options: ToCompatibleOptions,
): CompatibleRequestEncoding {
  const logger = options.logger ?? silentLogger;
  const unsupported = new Set(options.unsupportedParameters ?? []);
  const writeField = options.reasoningReplay ? reasoningWriteField(options.reasoningField) : null;
  const replays = writeField !== null && options.capabilities.supports_thinking;
  const temperatureRefusal =
    options.temperatureRefusal ??
    (unsupported.has('temperature') ? 'the server does not accept it' : null);
  const encoding = toOpenAIChatParams(request, {
    provider: options.provider,
    wireName: options.wireName,
    capabilities: options.capabilities,
    toolIdMap: options.toolIdMap,
    logger,
    maxTokensParam: options.maxTokensField,
    temperatureRefusal,
    stopSequences: unsupported.has('stop') ? 'emulated' : (options.stopSequences ?? 'sent'),
    keepThinking: replays
      ? (block, message) => keepReplayableThinking(block, message, request.model)
      : () => false,
    ...(replays && writeField ? { encodeReasoning: encodeReasoningField(writeField) } : {}),
    ...(options.toolIdRules ? { toolIdRules: options.toolIdRules } : {}),
    ...(options.historyMemo ? { historyMemo: options.historyMemo } : {}),
  });
  const repairContext = { adapter: options.provider, request_id: request.request_id, logger };
  let messages = applyRequestOrderRules(
    encoding.params.messages,
    options.requestOrder ?? [],
    repairContext,
  );
  if (replays && writeField && options.reasoningRequiredWithToolCalls) {
    messages = fillRequiredReasoning(messages, writeField, repairContext);
  }
  encoding.params.messages = messages;
  const params = encoding.params as unknown as Record<string, unknown>;
  if (options.bodyModel) params.model = options.bodyModel;
  for (const name of unsupported) {
    if (name === 'temperature' || name === 'stop' || !(name in params)) continue;
    delete params[name];
    logger.warn(
      {
        event: 'parameter_dropped',
        adapter: options.provider,
        request_id: request.request_id,
        parameter: name,
      },
      `${name} was not sent: the server does not accept it`,
    );
  }
  return { ...encoding, extraBody: { ...options.extraBody } };
}

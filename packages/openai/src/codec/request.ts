import {
  type AdapterCapabilities,
  type CanonicalRequest,
  type ImageBlock,
  type Logger,
  type Message,
  OPENAI_TOOL_ID_RULES,
  type RedactedThinkingBlock,
  silentLogger,
  type ThinkingBlock,
  type ToolIdMap,
  type ToolIdRules,
  type ToolResultBlock,
} from '@yourtool/core';
import {
  createToolNamer,
  type DroppedBlock,
  type HistoryMemo,
  type HistoryRepair,
  type PreparedHistory,
  type PrepareHistoryOptions,
  prepareHistory,
  reportDroppedBlock,
  STRICT_TOOL_NAME_RULES,
  type ToolNameRules,
} from '@yourtool/core/adapter';
import type OpenAI from 'openai';
import { nothingToSendError } from './nothing-to-send.js';
import { jsonSchemaFormat } from './output-format.js';
import { chatToolsParams } from './tools-param.js';

/** The adapter name, which is also the provider key of OpenAI models. */
export const OPENAI = 'openai';

/**
 * What a tool result marked `is_error` starts with on the wire. Chat Completions tool messages
 * have no error flag, so the error is stated in the text the model reads (decision 0040).
 */
export const OPENAI_TOOL_ERROR_PREFIX = '[tool error] ';

/** Text of a tool message whose result had no text (only images, or nothing). */
export const OPENAI_EMPTY_TOOL_RESULT_TEXT = '(no text output)';

/** Chat Completions parameters without `stream` (set by the caller). */
export type OpenAIChatParams = Omit<OpenAI.ChatCompletionCreateParamsNonStreaming, 'stream'>;

/** A wire message of Chat Completions. */
export type OpenAIChatMessage = OpenAI.ChatCompletionMessageParam;

/** Reasoning blocks a codec may put back on an assistant message (OpenRouter does). */
export type ReasoningBlock = ThinkingBlock | RedactedThinkingBlock;

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

/** Encodes an image as a Chat Completions `image_url` part (base64 becomes a data URL). */
export function encodeOpenAIImage(image: ImageBlock): OpenAI.ChatCompletionContentPartImage {
  const url =
    image.source.kind === 'base64'
      ? `data:${image.media_type};base64,${image.source.data}`
      : image.source.data;
  return { type: 'image_url', image_url: { url } };
}

/** The text a tool result puts in its `role: tool` message. */
export function toolResultText(block: ToolResultBlock): string {
  const text = block.content
    .flatMap((inner) => (inner.type === 'text' ? [inner.text] : []))
    .join('\n');
  const body = text === '' ? OPENAI_EMPTY_TOOL_RESULT_TEXT : text;
  return block.is_error ? `${OPENAI_TOOL_ERROR_PREFIX}${body}` : body;
}

/** What encoding the messages of one request shares. */
export interface OpenAIMessageEncodeContext {
  /** Provider key for the tool id map and log entries. */
  provider: string;
  toolIdMap: ToolIdMap;
  logger: Logger;
  /** See {@link OpenAIChatEncodeOptions.encodeReasoning}. */
  encodeReasoning: OpenAIChatEncodeOptions['encodeReasoning'];
  /** Collects the blocks dropped while encoding. */
  dropped: DroppedBlock[];
  /** See {@link OpenAIChatEncodeOptions.toolIdRules}. Default `OPENAI_TOOL_ID_RULES`. */
  toolIdRules?: ToolIdRules;
  /**
   * The name a canonical tool name goes out under (see core's `createToolNamer`). Default: the
   * canonical name as it is.
   */
  toolName?: (name: string) => string;
}

const providerToolId = (context: OpenAIMessageEncodeContext, canonicalId: string) =>
  context.toolIdMap.toProviderId(
    context.provider,
    canonicalId,
    context.toolIdRules ?? OPENAI_TOOL_ID_RULES,
  );

function encodeUser(message: Message): OpenAI.ChatCompletionUserMessageParam {
  const parts: OpenAI.ChatCompletionContentPart[] = [];
  for (const block of message.content) {
    if (block.type === 'text') parts.push({ type: 'text', text: block.text });
    else if (block.type === 'image') parts.push(encodeOpenAIImage(block));
  }
  const [only] = parts;
  if (parts.length === 1 && only?.type === 'text') return { role: 'user', content: only.text };
  return { role: 'user', content: parts };
}

function encodeAssistant(
  message: Message,
  context: OpenAIMessageEncodeContext,
): OpenAI.ChatCompletionAssistantMessageParam | null {
  const texts: string[] = [];
  const toolCalls: OpenAI.ChatCompletionMessageFunctionToolCall[] = [];
  const reasoning: ReasoningBlock[] = [];
  message.content.forEach((block, index) => {
    switch (block.type) {
      case 'text':
        texts.push(block.text);
        return;
      case 'tool_use':
        toolCalls.push({
          id: providerToolId(context, block.id),
          type: 'function',
          function: {
            name: context.toolName ? context.toolName(block.name) : block.name,
            arguments: JSON.stringify(block.input),
          },
        });
        return;
      case 'thinking':
      case 'redacted_thinking':
        if (context.encodeReasoning) reasoning.push(block);
        else {
          context.dropped.push(
            reportDroppedBlock(context.logger, message, {
              block_type: block.type,
              adapter: context.provider,
              reason: 'Chat Completions has no field for reasoning in an assistant message',
              block_index: index,
            }),
          );
        }
        return;
      default:
        // prepareHistory keeps only text, tool_use and thinking in assistant messages
        return;
    }
  });
  const content = texts.join('\n\n');
  if (content === '' && toolCalls.length === 0) {
    reasoning.forEach((block) => {
      context.dropped.push(
        reportDroppedBlock(context.logger, message, {
          block_type: block.type,
          adapter: context.provider,
          reason: 'an assistant turn holding only reasoning cannot be sent',
        }),
      );
    });
    return null;
  }
  return {
    role: 'assistant',
    content: content === '' ? null : content,
    ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
    ...(reasoning.length > 0 && context.encodeReasoning
      ? context.encodeReasoning(reasoning, message)
      : {}),
  };
}

/**
 * Turns prepared canonical messages (as `prepareHistory` leaves them) into Chat Completions
 * messages: the system text as a leading `role: system` message; USER as `user` (images as
 * `image_url` parts); ASSISTANT as `assistant` with `tool_calls[]` whose `arguments` are JSON
 * strings; each TOOL message as a `role: tool` message answering its call's provider id. Images
 * inside tool results cannot go in a tool message, so they follow the run of tool messages in
 * one user message, each group introduced by the call id it belongs to.
 */
export function encodeOpenAIMessages(
  system: string | null,
  messages: readonly Message[],
  context: OpenAIMessageEncodeContext,
): OpenAIChatMessage[] {
  const out: OpenAIChatMessage[] = [];
  if (system !== null) out.push({ role: 'system', content: system });
  let pendingImages: OpenAI.ChatCompletionContentPart[] = [];
  const flushImages = () => {
    if (pendingImages.length > 0) out.push({ role: 'user', content: pendingImages });
    pendingImages = [];
  };
  for (const message of messages) {
    if (message.role !== 'tool') flushImages();
    switch (message.role) {
      case 'user':
        out.push(encodeUser(message));
        break;
      case 'assistant': {
        const encoded = encodeAssistant(message, context);
        if (encoded) out.push(encoded);
        break;
      }
      case 'tool':
        for (const block of message.content) {
          if (block.type !== 'tool_result') continue;
          const id = providerToolId(context, block.tool_use_id);
          out.push({ role: 'tool', tool_call_id: id, content: toolResultText(block) });
          const images = block.content.filter((inner) => inner.type === 'image');
          if (images.length > 0) {
            pendingImages.push({
              type: 'text',
              text: `Image output of tool call ${id}:`,
            });
            for (const image of images) pendingImages.push(encodeOpenAIImage(image));
          }
        }
        break;
      case 'system':
        // hoisted by prepareHistory
        break;
    }
  }
  flushImages();
  return out;
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
  const messages = encodeOpenAIMessages(prepared.system, prepared.messages, {
    provider,
    toolIdMap: options.toolIdMap,
    logger,
    encodeReasoning: options.encodeReasoning,
    dropped: prepared.dropped,
    toolName,
    ...(options.toolIdRules ? { toolIdRules: options.toolIdRules } : {}),
  });
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

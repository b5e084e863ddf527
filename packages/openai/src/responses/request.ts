import {
  type AdapterCapabilities,
  type CanonicalRequest,
  type DroppedBlock,
  type HistoryRepair,
  type ImageBlock,
  type Logger,
  type Message,
  prepareHistory,
  reportDroppedBlock,
  silentLogger,
  type ToolIdMap,
  type ToolIdRules,
  type ToolResultBlock,
} from '@yourtool/core';
import type OpenAI from 'openai';
import {
  jsonSchemaFormat,
  OPENAI,
  OPENAI_EMPTY_TOOL_RESULT_TEXT,
  OPENAI_TOOL_ERROR_PREFIX,
} from '../codec/request.js';
import type { OpenAIReasoningSummary } from '../models.js';

/**
 * Tool call ids of the Responses API (`call_id`): at most 64 characters of `[a-zA-Z0-9_-]`.
 * Canonical `tu_<ulid>` ids conform; foreign ids are derived by core's `ToolIdMap`.
 */
export const OPENAI_RESPONSES_TOOL_ID_RULES: ToolIdRules = {
  pattern: /^[a-zA-Z0-9_-]+$/,
  maxLength: 64,
};

/** The smallest `max_output_tokens` the Responses API accepts (a smaller value is a 400). */
export const OPENAI_RESPONSES_MIN_OUTPUT_TOKENS = 16;

/** What the Responses API returns reasoning items with when asked (stateless replay). */
export const OPENAI_ENCRYPTED_REASONING_INCLUDE = 'reasoning.encrypted_content';

/** A user turn: its text, or text and images as input parts. */
export interface ResponsesUserMessageItem {
  /** Not sent: an input message without `type` is a message. */
  type?: 'message';
  role: 'user';
  content: string | Array<OpenAI.Responses.ResponseInputText | ResponsesInputImagePart>;
}

/** An image input part (`detail` left to the model: `auto`). */
export interface ResponsesInputImagePart {
  type: 'input_image';
  image_url: string;
  detail: 'auto';
}

/** Text the assistant said earlier, as an output message without its server id. */
export interface ResponsesAssistantMessageItem {
  type: 'message';
  role: 'assistant';
  content: Array<{ type: 'output_text'; text: string }>;
}

/**
 * A reasoning item replayed statelessly: its summary and its encrypted content, without the
 * item id (with `store: false` nothing can be looked up by id; decision 0127).
 */
export interface ResponsesReasoningItem {
  type: 'reasoning';
  summary: Array<{ type: 'summary_text'; text: string }>;
  encrypted_content: string;
}

/** A function call the model made earlier, without its server item id. */
export interface ResponsesFunctionCallItem {
  type: 'function_call';
  call_id: string;
  name: string;
  /** The input as a JSON string. */
  arguments: string;
}

/** The result of a function call: its text, or text and images. */
export interface ResponsesFunctionCallOutputItem {
  type: 'function_call_output';
  call_id: string;
  output: string | Array<OpenAI.Responses.ResponseInputText | ResponsesInputImagePart>;
}

/** One item of the `input` list the adapter sends. */
export type ResponsesInputItem =
  | ResponsesUserMessageItem
  | ResponsesAssistantMessageItem
  | ResponsesReasoningItem
  | ResponsesFunctionCallItem
  | ResponsesFunctionCallOutputItem;

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
}

/** The wire parameters for a request, and what was changed to make them valid. */
export interface OpenAIResponsesEncoding {
  params: OpenAIResponsesParams;
  /** Stop sequences the decoder applies itself (the Responses API has no `stop`). */
  emulatedStopSequences: string[];
  dropped: DroppedBlock[];
  repairs: HistoryRepair[];
}

/** What encoding the items of one request shares. */
export interface ResponsesItemEncodeContext {
  /** Provider key for the tool id map and log entries. */
  provider: string;
  toolIdMap: ToolIdMap;
  logger: Logger;
  /** Collects the blocks dropped while encoding. */
  dropped: DroppedBlock[];
  /** Tool call id rules. Default {@link OPENAI_RESPONSES_TOOL_ID_RULES}. */
  toolIdRules?: ToolIdRules;
}

/** An image as a Responses `input_image` part (base64 becomes a data URL). */
export function encodeResponsesImage(image: ImageBlock): ResponsesInputImagePart {
  const url =
    image.source.kind === 'base64'
      ? `data:${image.media_type};base64,${image.source.data}`
      : image.source.data;
  return { type: 'input_image', image_url: url, detail: 'auto' };
}

const callId = (context: ResponsesItemEncodeContext, canonicalId: string) =>
  context.toolIdMap.toProviderId(
    context.provider,
    canonicalId,
    context.toolIdRules ?? OPENAI_RESPONSES_TOOL_ID_RULES,
  );

function encodeUser(message: Message): ResponsesUserMessageItem {
  const parts: ResponsesUserMessageItem['content'] = [];
  for (const block of message.content) {
    if (block.type === 'text') parts.push({ type: 'input_text', text: block.text });
    else if (block.type === 'image') parts.push(encodeResponsesImage(block));
  }
  const [only] = parts;
  if (parts.length === 1 && only?.type === 'input_text')
    return { role: 'user', content: only.text };
  return { role: 'user', content: parts };
}

/**
 * The output of a function call: the result's text (an error marked with the documented
 * `[tool error] ` prefix: the API has no error flag, decision 0040), and its images as
 * `input_image` parts of the same output.
 */
export function encodeFunctionCallOutput(
  block: ToolResultBlock,
  callIdOnWire: string,
): ResponsesFunctionCallOutputItem {
  const text = block.content
    .flatMap((inner) => (inner.type === 'text' ? [inner.text] : []))
    .join('\n');
  const images = block.content.filter((inner) => inner.type === 'image');
  if (images.length === 0) {
    const body = text === '' ? OPENAI_EMPTY_TOOL_RESULT_TEXT : text;
    return {
      type: 'function_call_output',
      call_id: callIdOnWire,
      output: block.is_error ? `${OPENAI_TOOL_ERROR_PREFIX}${body}` : body,
    };
  }
  const parts: ResponsesFunctionCallOutputItem['output'] = [];
  if (text !== '' || block.is_error) {
    parts.push({
      type: 'input_text',
      text: block.is_error ? `${OPENAI_TOOL_ERROR_PREFIX}${text}` : text,
    });
  }
  for (const image of images) parts.push(encodeResponsesImage(image));
  return { type: 'function_call_output', call_id: callIdOnWire, output: parts };
}

/**
 * Turns one assistant message into Responses items, in the order of its blocks: text as an
 * output message (consecutive texts joined with a blank line), a signed thinking block or a
 * redacted one as a reasoning item carrying its encrypted content (the summary text goes back
 * as one `summary_text`), each tool use as a `function_call` with its mapped `call_id`.
 * Thinking without encrypted content cannot be replayed statelessly, and reasoning that no
 * output follows is refused by the API: both are dropped with a WARN.
 */
export function encodeAssistantItems(
  message: Message,
  context: ResponsesItemEncodeContext,
): ResponsesInputItem[] {
  const items: ResponsesInputItem[] = [];
  const pendingReasoning: Array<{ item: ResponsesReasoningItem; index: number; type: string }> = [];
  let texts: string[] = [];
  const drop = (block_type: string, block_index: number, reason: string) => {
    context.dropped.push(
      reportDroppedBlock(context.logger, message, {
        block_type,
        adapter: context.provider,
        reason,
        block_index,
      }),
    );
  };
  const flushReasoning = () => {
    for (const { item } of pendingReasoning.splice(0)) items.push(item);
  };
  const flushText = () => {
    if (texts.length === 0) return;
    flushReasoning();
    items.push({
      type: 'message',
      role: 'assistant',
      content: [{ type: 'output_text', text: texts.join('\n\n') }],
    });
    texts = [];
  };
  message.content.forEach((block, index) => {
    switch (block.type) {
      case 'text':
        texts.push(block.text);
        return;
      case 'thinking':
        flushText();
        if (!block.signature) {
          drop(
            'thinking',
            index,
            'reasoning without its encrypted content cannot be replayed with store: false',
          );
          return;
        }
        pendingReasoning.push({
          item: {
            type: 'reasoning',
            summary: block.text === '' ? [] : [{ type: 'summary_text', text: block.text }],
            encrypted_content: block.signature,
          },
          index,
          type: 'thinking',
        });
        return;
      case 'redacted_thinking':
        flushText();
        pendingReasoning.push({
          item: { type: 'reasoning', summary: [], encrypted_content: block.data },
          index,
          type: 'redacted_thinking',
        });
        return;
      case 'tool_use':
        flushText();
        flushReasoning();
        items.push({
          type: 'function_call',
          call_id: callId(context, block.id),
          name: block.name,
          arguments: JSON.stringify(block.input),
        });
        return;
      default:
        // prepareHistory keeps only text, tool_use and thinking in assistant messages
        return;
    }
  });
  flushText();
  for (const { index, type } of pendingReasoning) {
    drop(type, index, 'reasoning that no message or function call follows cannot be sent');
  }
  return items;
}

/**
 * Turns prepared canonical messages (as `prepareHistory` leaves them) into the Responses
 * `input` list: USER as a user message (images as `input_image` parts), ASSISTANT as reasoning,
 * message and `function_call` items in the order of its blocks, each TOOL message as a
 * `function_call_output` answering its call's `call_id` (images in the same output).
 */
export function encodeResponsesInput(
  messages: readonly Message[],
  context: ResponsesItemEncodeContext,
): ResponsesInputItem[] {
  const input: ResponsesInputItem[] = [];
  for (const message of messages) {
    switch (message.role) {
      case 'user':
        input.push(encodeUser(message));
        break;
      case 'assistant':
        input.push(...encodeAssistantItems(message, context));
        break;
      case 'tool':
        for (const block of message.content) {
          if (block.type !== 'tool_result') continue;
          input.push(encodeFunctionCallOutput(block, callId(context, block.tool_use_id)));
        }
        break;
      case 'system':
        // hoisted by prepareHistory into `instructions`
        break;
    }
  }
  return input;
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

  const prepared = prepareHistory(
    request.messages,
    { adapter: provider, model: request.model, capabilities: options.capabilities },
    { system_prompt: request.system_prompt ?? null, logger },
  );
  const input = encodeResponsesInput(prepared.messages, {
    provider,
    toolIdMap: options.toolIdMap,
    logger,
    dropped: prepared.dropped,
    ...(options.toolIdRules ? { toolIdRules: options.toolIdRules } : {}),
  });

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

  if (request.tools.length > 0 && options.capabilities.supports_tools) {
    params.tools = request.tools.map(
      (tool): OpenAI.Responses.FunctionTool => ({
        type: 'function',
        name: tool.name,
        description: tool.description,
        parameters: tool.input_schema,
        strict: false,
      }),
    );
  } else if (request.tools.length > 0) {
    warn('parameter_dropped', `${options.wireName} does not support tools; tools were not sent`, {
      parameter: 'tools',
    });
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

  const format = jsonSchemaFormat(request, options, warn);
  if (format) params.text = { format: { type: 'json_schema', ...format } };

  return {
    params,
    emulatedStopSequences: [...request.stop_sequences],
    dropped: prepared.dropped,
    repairs: prepared.repairs,
  };
}

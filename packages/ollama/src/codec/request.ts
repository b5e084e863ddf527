import { type AdapterCapabilities, type CanonicalRequest, type ContentBlock, type ImageBlock, type Logger, type Message, parseModelId, silentLogger, type ToolIdMap, type ToolIdRules } from '@yourtool/core';
import {
  type DroppedBlock,
  type HistoryRepair,
  prepareHistory,
  reportDroppedBlock,
  wireToolName,
} from '@yourtool/core/adapter';
import type { Options } from 'ollama';
import { OLLAMA_TOOL_NAME_RULES, ollamaToolNamer } from './tool-names.js';

/** The adapter name, which is also the provider key of Ollama models (`ollama:qwen3:8b`). */
export const OLLAMA = 'ollama';

/**
 * Rules for the tool call ids the adapter puts on the wire. Ollama's documented `/api/chat`
 * format has no tool call ids (results are matched by order and `tool_name`); the adapter still
 * sends the canonical id as `id` / `tool_call_id`, which newer servers read and older ones
 * ignore, so it keeps them to a conservative shape.
 */
export const OLLAMA_TOOL_ID_RULES: ToolIdRules = { pattern: /^[a-zA-Z0-9_-]+$/, maxLength: 64 };

/**
 * Put before the text of a tool result marked `is_error`: Ollama's `role: tool` messages have no
 * error flag, so the failure is said in words the model reads.
 */
export const TOOL_ERROR_PREFIX = '[tool error] ';

/** Sent as the content of a tool result that holds no text, so no empty message goes out. */
export const EMPTY_TOOL_RESULT_TEXT = '(the tool returned no output)';

/** How `think` is requested: on/off, or a level for models that take one (gpt-oss). */
export type OllamaThinkOption = boolean | 'low' | 'medium' | 'high';

/** A tool call on the wire (the ollama client's `ToolCall`, plus the fields newer servers add). */
export interface OllamaWireToolCall {
  /** The call's id: sent by the adapter, returned by newer servers, absent on older ones. */
  id?: string;
  type?: 'function';
  function: {
    index?: number;
    name: string;
    arguments: Record<string, unknown>;
  };
}

/** A tool definition on the wire. */
export interface OllamaWireTool {
  type: 'function';
  function: {
    name: string;
    description: string;
    /** The tool's input JSON schema. */
    parameters: Record<string, unknown>;
  };
}

/** A chat message on the wire (the documented `/api/chat` message). */
export interface OllamaWireMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string;
  /** Base64 images (no data: prefix), for vision models. */
  images?: string[];
  /** The model's thinking, sent back only to the model that produced it. */
  thinking?: string;
  tool_calls?: OllamaWireToolCall[];
  /** On `role: tool`: the name of the tool that produced the result. */
  tool_name?: string;
  /** On `role: tool`: the id of the call it answers (read by newer servers). */
  tool_call_id?: string;
}

/** `/api/chat` parameters without `stream` (set by the caller). */
export interface OllamaChatParams {
  /** The model's name on the server (`qwen3:8b`). */
  model: string;
  /** The conversation, system text first. */
  messages: OllamaWireMessage[];
  /** Tools the model may call. */
  tools?: OllamaWireTool[];
  /** A JSON schema: the server constrains the reply to it. */
  format?: Record<string, unknown>;
  /** Thinking on, off or at a level (sent only to thinking models). */
  think?: OllamaThinkOption;
  /** How long the server keeps the model loaded after the call. */
  keep_alive?: string | number;
  /**
   * `false`: the server refuses a prompt longer than `num_ctx` instead of silently dropping
   * the oldest messages (servers older than the field ignore it and truncate).
   */
  truncate?: boolean;
  /** `false`: generation stops at the end of the window instead of shifting old context out. */
  shift?: boolean;
  /** Model options: `num_ctx` (always), `num_predict`, `stop`, `temperature`, and any others. */
  options: Partial<Options> & Record<string, unknown>;
}

/** Ollama-specific settings of one request, resolved by the adapter. */
export interface OllamaRequestOptions {
  /** Wire model name, when it differs from the name in the canonical id. */
  wireName?: string;
  /** The context window to ask for; always sent as `options.num_ctx`. */
  numCtx: number;
  /** Thinking on or off (sent only to models that support thinking). Default off. */
  think?: OllamaThinkOption;
  /** How long the server keeps the model loaded after the call (`"5m"`, seconds, `-1`). */
  keepAlive?: string | number;
  /** Let the server drop old messages to fit the window. Default false (refuse instead). */
  truncate?: boolean;
  /** Let the server shift old context out while generating. Default false (stop instead). */
  shift?: boolean;
  /**
   * The model's own stop strings (its Modelfile's, from `/api/show`). Sent after the request's
   * stop sequences when it has any, because a request's `stop` replaces the model's on the
   * server and the model would then run past its end-of-turn marker.
   */
  modelStop?: readonly string[];
  /**
   * Further model options (`top_p`, `seed`, `repeat_penalty`, ...). The canonical request owns
   * `num_ctx`, `num_predict`, `stop` and `temperature`; those keys here are overwritten.
   */
  modelOptions?: Record<string, unknown>;
}

/** What the request codec needs besides the request. */
export interface ToOllamaContext {
  toolIdMap: ToolIdMap;
  /** The target model's capabilities (from `/api/show`, configuration or the defaults). */
  capabilities: AdapterCapabilities;
  options: OllamaRequestOptions;
  logger?: Logger;
}

/** The `/api/chat` parameters for a request, and what was changed to make them valid. */
export interface OllamaRequestEncoding {
  params: OllamaChatParams;
  dropped: DroppedBlock[];
  repairs: HistoryRepair[];
}

function textOf(blocks: readonly ContentBlock[], separator: string): string {
  return blocks.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join(separator);
}

/**
 * Images a message can carry on the wire: base64 data only. A URL image is dropped with a WARN
 * (or fails the request when the message is critical): Ollama takes no URLs and the adapter
 * does not fetch them (see decision 0052).
 */
function wireImages(
  message: Message,
  images: ReadonlyArray<{ image: ImageBlock; index: number }>,
  logger: Logger,
  dropped: DroppedBlock[],
): string[] {
  const out: string[] = [];
  for (const { image, index } of images) {
    if (image.source.kind === 'base64') {
      out.push(image.source.data);
      continue;
    }
    dropped.push(
      reportDroppedBlock(logger, message, {
        block_type: 'image',
        adapter: OLLAMA,
        reason:
          image.source.kind === 'url'
            ? 'Ollama takes base64 images only; fetch URL images yourself and send their bytes'
            : 'file_ref images must be resolved to base64 first',
        block_index: index,
      }),
    );
  }
  return out;
}

/**
 * Turns prepared canonical messages into `/api/chat` messages. An assistant message becomes one
 * wire message: its text joined, its thinking in `thinking`, its tool uses as `tool_calls` (with
 * arguments as objects). Each tool result becomes a `role: tool` message with `tool_name` (the
 * name of the call it answers, which Ollama uses to match results, together with their order)
 * and the canonical id as `tool_call_id`; an error result is prefixed with
 * {@link TOOL_ERROR_PREFIX}. Images go on their message as base64. Tool names (calls and
 * `tool_name`) go out as `toolName` gives them (default: core's `wireToolName` under
 * {@link OLLAMA_TOOL_NAME_RULES}, decision 0140).
 */
export function encodeOllamaMessages(
  messages: readonly Message[],
  toolIdMap: ToolIdMap,
  logger: Logger = silentLogger,
  dropped: DroppedBlock[] = [],
  toolName: (name: string) => string = (name) => wireToolName(name, OLLAMA_TOOL_NAME_RULES),
): OllamaWireMessage[] {
  const out: OllamaWireMessage[] = [];
  const toolNames = new Map<string, string>();
  const providerId = (canonicalId: string) =>
    toolIdMap.toProviderId(OLLAMA, canonicalId, OLLAMA_TOOL_ID_RULES);
  for (const message of messages) {
    switch (message.role) {
      case 'system':
        out.push({ role: 'system', content: textOf(message.content, '\n\n') });
        break;
      case 'user': {
        const images = message.content.flatMap((block, index) =>
          block.type === 'image' ? [{ image: block, index }] : [],
        );
        const wire: OllamaWireMessage = { role: 'user', content: textOf(message.content, '\n\n') };
        const encoded = wireImages(message, images, logger, dropped);
        if (encoded.length > 0) wire.images = encoded;
        if (wire.content !== '' || encoded.length > 0) out.push(wire);
        break;
      }
      case 'assistant': {
        const wire: OllamaWireMessage = {
          role: 'assistant',
          content: textOf(message.content, '\n\n'),
        };
        const thinking = message.content
          .flatMap((b) => (b.type === 'thinking' ? [b.text] : []))
          .join('\n\n');
        if (thinking !== '') wire.thinking = thinking;
        const calls = message.content.flatMap((block): OllamaWireToolCall[] => {
          if (block.type !== 'tool_use') return [];
          const name = toolName(block.name);
          toolNames.set(block.id, name);
          return [
            {
              id: providerId(block.id),
              type: 'function',
              function: { name, arguments: block.input },
            },
          ];
        });
        if (calls.length > 0) wire.tool_calls = calls;
        if (wire.content !== '' || wire.thinking !== undefined || calls.length > 0) out.push(wire);
        break;
      }
      case 'tool':
        for (const block of message.content) {
          if (block.type !== 'tool_result') continue;
          const text = textOf(block.content, '\n');
          const body = text === '' ? EMPTY_TOOL_RESULT_TEXT : text;
          const images = block.content.flatMap((inner, index) =>
            inner.type === 'image' ? [{ image: inner, index }] : [],
          );
          const wire: OllamaWireMessage = {
            role: 'tool',
            content: block.is_error ? `${TOOL_ERROR_PREFIX}${body}` : body,
            tool_call_id: providerId(block.tool_use_id),
          };
          const name = toolNames.get(block.tool_use_id);
          if (name) wire.tool_name = name;
          const encoded = wireImages(message, images, logger, dropped);
          if (encoded.length > 0) wire.images = encoded;
          out.push(wire);
        }
        break;
    }
  }
  return out;
}

/**
 * Encodes a canonical request as `/api/chat` parameters (without `stream`): history normalized
 * by core's `prepareHistory` (system text hoisted into one leading system message, thinking only
 * back to the model that produced it, tools and images only where the model supports them,
 * unanswered tool uses repaired, nothing empty), tool names made function-name-like (decision
 * 0140, each rename a `tool_name_mapped` WARN), tool definitions, `format` for structured
 * output, `think` for thinking models, and the model options: `num_ctx` (always),
 * `num_predict` from `max_output_tokens`, `stop`, `temperature`.
 */
export function toOllamaChatRequest(
  request: CanonicalRequest,
  context: ToOllamaContext,
): OllamaRequestEncoding {
  const logger = context.logger ?? silentLogger;
  const options = context.options;
  const caps = context.capabilities;
  const wireName = options.wireName ?? parseModelId(request.model).name;
  const warn = (event: string, reason: string, extra: Record<string, unknown> = {}) =>
    logger.warn({ event, adapter: OLLAMA, request_id: request.request_id, ...extra }, reason);

  const prepared = prepareHistory(
    request.messages,
    { adapter: OLLAMA, model: request.model, capabilities: caps },
    {
      system_prompt: request.system_prompt ?? null,
      logger,
      // Ollama thinking has no signature and no redacted form: a model's own thinking text goes
      // back to that model only (decision 0053).
      keepThinking: (block, message) =>
        block.type === 'thinking' &&
        caps.supports_thinking &&
        message.metadata.model === request.model,
    },
  );
  const dropped = [...prepared.dropped];
  const toolName = ollamaToolNamer(logger, request.request_id);
  const messages = encodeOllamaMessages(
    prepared.messages,
    context.toolIdMap,
    logger,
    dropped,
    toolName,
  );
  if (prepared.system !== null) messages.unshift({ role: 'system', content: prepared.system });

  const params: OllamaChatParams = {
    model: wireName,
    messages,
    options: modelOptions(request, options),
    truncate: options.truncate ?? false,
    shift: options.shift ?? false,
  };
  if (request.tools.length > 0) {
    if (caps.supports_tools) {
      params.tools = request.tools.map(
        (tool): OllamaWireTool => ({
          type: 'function',
          function: {
            name: toolName(tool.name),
            description: tool.description,
            parameters: tool.input_schema,
          },
        }),
      );
    } else {
      warn(
        'parameter_dropped',
        `tools were not sent: ${wireName} does not support tools (detect its capabilities, or declare supports_tools in capabilityOverrides)`,
        { parameter: 'tools', tools: request.tools.map((t) => t.name) },
      );
    }
  }
  if (request.output_schema) params.format = request.output_schema;
  if (caps.supports_thinking) {
    params.think = options.think ?? false;
  } else if (options.think !== undefined && options.think !== false) {
    warn('thinking_skipped', `thinking was not requested: ${wireName} does not support thinking`);
  }
  if (options.keepAlive !== undefined) params.keep_alive = options.keepAlive;

  return { params, dropped, repairs: prepared.repairs };
}

/**
 * The model options: the configured ones, then what the canonical request owns: `num_ctx`,
 * `num_predict`, `stop` (the request's, then the model's own markers) and `temperature`.
 */
function modelOptions(
  request: CanonicalRequest,
  options: OllamaRequestOptions,
): OllamaChatParams['options'] {
  const out: OllamaChatParams['options'] = {
    ...options.modelOptions,
    num_ctx: options.numCtx,
    num_predict: request.max_output_tokens,
  };
  if (request.stop_sequences.length > 0) {
    const stop = [...request.stop_sequences];
    for (const marker of options.modelStop ?? []) if (!stop.includes(marker)) stop.push(marker);
    out.stop = stop;
  } else {
    delete out.stop;
  }
  if (request.temperature !== null && request.temperature !== undefined) {
    out.temperature = request.temperature;
  } else {
    delete out.temperature;
  }
  return out;
}

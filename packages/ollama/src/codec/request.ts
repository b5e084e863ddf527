import {
  type AdapterCapabilities,
  type CanonicalRequest,
  type Logger,
  type Message,
  parseModelId,
  silentLogger,
  type ToolIdMap,
} from '@yourtool/core';
import {
  type DroppedBlock,
  type HistoryMemo,
  type HistoryRepair,
  prepareHistory,
} from '@yourtool/core/adapter';
import type { Options } from 'ollama';
import { COMMA, utf8 } from './json-bytes.js';
import { encodeOllamaMessages, type OllamaMessagesOptions } from './messages.js';
import { encodeRememberedMessages } from './remembered-messages.js';
import { ollamaOfferedTools } from './tool-choice.js';
import { ollamaToolNamer } from './tool-names.js';
import {
  OLLAMA,
  type OllamaThinkOption,
  type OllamaWireMessage,
  type OllamaWireTool,
} from './wire.js';
import type { OllamaWireMemory } from './wire-memory.js';

export { ollamaChatRequestBody } from './body.js';
export { encodeOllamaMessages, type OllamaMessagesOptions } from './messages.js';
export * from './wire.js';
export { OllamaWireMemory } from './wire-memory.js';

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
  /** The adapter's `HistoryMemo` for `prepareHistory` (decision 0165); none: prepared afresh. */
  historyMemo?: HistoryMemo;
  /**
   * The adapter's wire memory (decision 0195): sealed messages' forms, and the JSON of the
   * `messages` array for `ollamaChatRequestBody`. None: every message encoded afresh.
   */
  wireMemory?: OllamaWireMemory;
}

/** The `/api/chat` parameters for a request, and what was changed to make them valid. */
export interface OllamaRequestEncoding {
  params: OllamaChatParams;
  dropped: DroppedBlock[];
  repairs: HistoryRepair[];
}

/**
 * Encodes a canonical request as `/api/chat` parameters (without `stream`): history normalized
 * by core's `prepareHistory` (system text hoisted into one leading system message, thinking only
 * back to the model that produced it, tools and images only where the model supports them,
 * unanswered tool uses repaired, nothing empty), tool names made function-name-like (each
 * rename a `tool_name_mapped` WARN), tool definitions, `format` for structured
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
      // back to that model only (another model would read it as its own).
      keepThinking: (block, message) =>
        block.type === 'thinking' &&
        caps.supports_thinking &&
        message.metadata.model === request.model,
    },
    context.historyMemo,
  );
  const dropped = [...prepared.dropped];
  const toolName = ollamaToolNamer(logger, request.request_id);
  const messages = encodeHistory(prepared, context, { logger, dropped, toolName });

  const params: OllamaChatParams = {
    model: wireName,
    messages,
    options: modelOptions(request, options),
    truncate: options.truncate ?? false,
    shift: options.shift ?? false,
  };
  const offered = ollamaOfferedTools(request, { logger, adapter: OLLAMA });
  if (offered.length > 0) {
    if (caps.supports_tools) {
      params.tools = offered.map(
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

const OPEN_LIST = utf8('[');
const CLOSE_LIST = utf8(']');

/**
 * The wire messages of a prepared history, its system text first: remembered in the context's
 * wire memory when there is one, which then also records the array's JSON for the body.
 */
function encodeHistory(
  prepared: { messages: readonly Message[]; system: string | null },
  context: ToOllamaContext,
  options: OllamaMessagesOptions,
): OllamaWireMessage[] {
  const memory = context.wireMemory;
  if (memory === undefined) {
    const messages = encodeOllamaMessages(prepared.messages, context.toolIdMap, options);
    if (prepared.system !== null) messages.unshift({ role: 'system', content: prepared.system });
    return messages;
  }
  const { wire, head, tail } = encodeRememberedMessages(
    prepared.messages,
    context.toolIdMap,
    options,
    memory,
  );
  // the array's UTF-8 JSON: `[`, the system message, the run's bytes, the rest, `]`
  const json: Uint8Array[] = [];
  const add = (part: Uint8Array) => {
    if (part.length === 0) return;
    if (json.length > 0) json.push(COMMA);
    json.push(part);
  };
  const messages = wire;
  if (prepared.system !== null) {
    const system: OllamaWireMessage = { role: 'system', content: prepared.system };
    messages.unshift(system);
    add(utf8(JSON.stringify(system)));
  }
  add(head);
  add(utf8(tail));
  memory.markMessages(messages, [OPEN_LIST, ...json, CLOSE_LIST]);
  return messages;
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

import type Anthropic from '@anthropic-ai/sdk';
import {
  type ContentBlock,
  type Logger,
  parseModelId,
  type StopReason,
  silentLogger,
  type TokenUsage,
  type ToolIdMap,
} from '@yourtool/core';
import { canonicalToolName } from '@yourtool/core/adapter';
import { ANTHROPIC } from './request.js';
import { ANTHROPIC_TOOL_NAME_RULES } from './tool-names.js';

/**
 * A tool name from a reply, read back as canonical: the name of the request's tools or history
 * tool uses (`toolNames`) it was derived from, else as it came, so the caller only ever sees canonical names.
 */
export function anthropicCanonicalToolName(
  wireName: string,
  toolNames: ReadonlySet<string> | undefined,
): string {
  return toolNames ? canonicalToolName(wireName, toolNames, ANTHROPIC_TOOL_NAME_RULES) : wireName;
}

/**
 * Maps a Messages API stop reason to the canonical one. `refusal` (a safety classifier stepped
 * in) is `refusal`; `pause_turn` ends the turn (the raw value is kept in `provider_raw`);
 * running out of context ends like running out of output tokens.
 */
export function mapAnthropicStopReason(reason: string | null | undefined): StopReason {
  switch (reason) {
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'max_tokens';
    case 'stop_sequence':
      return 'stop_sequence';
    case 'tool_use':
      return 'tool_use';
    case 'refusal':
      return 'refusal';
    default:
      return 'end_turn';
  }
}

/**
 * The canonical id of the model that answered: the provider key of the requested canonical id
 * (`requestModel`), then the name the reply reports. `undefined` when the reply names none.
 */
export function anthropicServedModel(
  requestModel: string,
  reported: string | null | undefined,
): string | undefined {
  return reported ? `${parseModelId(requestModel).provider}:${reported}` : undefined;
}

/**
 * The provider key tool ids are linked under: the requested model's (`vertex-anthropic` for
 * Claude on Vertex AI), else `anthropic`.
 */
export function anthropicProviderKey(requestModel: string | undefined): string {
  return requestModel === undefined ? ANTHROPIC : parseModelId(requestModel).provider;
}

/** The usage counters of a Messages API usage object (or a `message_delta` usage). */
export interface AnthropicUsageLike {
  input_tokens?: number | null;
  output_tokens?: number | null;
  cache_read_input_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
}

/**
 * Maps Messages API usage to canonical token counts: `cache_read_input_tokens` →
 * `cached_input_tokens`, `cache_creation_input_tokens` → `cache_creation_input_tokens`.
 * Anthropic's `input_tokens` already excludes both, as the canonical count does.
 */
export function mapAnthropicUsage(usage: AnthropicUsageLike): TokenUsage {
  return {
    input_tokens: usage.input_tokens ?? 0,
    output_tokens: usage.output_tokens ?? 0,
    cached_input_tokens: usage.cache_read_input_tokens ?? 0,
    cache_creation_input_tokens: usage.cache_creation_input_tokens ?? 0,
  };
}

/**
 * Round-trip data the adapter keeps in `provider_raw` for a reply. A refusal's `stop_details`
 * (policy category and Anthropic's explanation) is kept here when sent: it describes the
 * refusal rather than being something the assistant said, so it is not `response.refusal`.
 */
export function anthropicProviderRaw(message: {
  id?: string | null;
  model?: string | null;
  stop_reason?: string | null;
  stop_sequence?: string | null;
  stop_details?: Anthropic.RefusalStopDetails | null;
}): Record<string, unknown> {
  return {
    anthropic: {
      id: message.id ?? null,
      model: message.model ?? null,
      stop_reason: message.stop_reason ?? null,
      stop_sequence: message.stop_sequence ?? null,
      ...(message.stop_details ? { stop_details: message.stop_details } : {}),
    },
  };
}

/** A decoded Messages API reply. */
export interface AnthropicResponseDecoding {
  content: ContentBlock[];
  stop_reason: StopReason;
  usage: TokenUsage;
  provider_raw: Record<string, unknown>;
  /** The reply's id (`msg_...`), when it has one. */
  provider_response_id?: string;
  /** The canonical id of the model the reply names (see {@link anthropicServedModel}). */
  served_model?: string;
}

/**
 * Decodes the content blocks of a reply: text, thinking (with its signature), redacted
 * thinking, and tool uses (provider ids linked to canonical `tu_` ids in the map, names read
 * back as canonical against `toolNames`, the request's tool names). Empty text is dropped;
 * server-side tool blocks, which the canonical format has no block for, are dropped with a WARN.
 */
export function decodeAnthropicContent(
  blocks: readonly Anthropic.ContentBlock[],
  toolIdMap: ToolIdMap,
  logger: Logger = silentLogger,
  toolNames?: ReadonlySet<string>,
): ContentBlock[] {
  return decodeContentFor(blocks, toolIdMap, { logger, toolNames, provider: ANTHROPIC });
}

/** {@link decodeAnthropicContent} with tool ids linked under `provider` (the requested model's). */
function decodeContentFor(
  blocks: readonly Anthropic.ContentBlock[],
  toolIdMap: ToolIdMap,
  {
    logger,
    toolNames,
    provider,
  }: { logger: Logger; toolNames: ReadonlySet<string> | undefined; provider: string },
): ContentBlock[] {
  const content: ContentBlock[] = [];
  for (const block of blocks) {
    switch (block.type) {
      case 'text':
        if (block.text !== '') content.push({ type: 'text', text: block.text });
        break;
      case 'thinking':
        content.push({ type: 'thinking', text: block.thinking, signature: block.signature });
        break;
      case 'redacted_thinking':
        content.push({ type: 'redacted_thinking', data: block.data });
        break;
      case 'tool_use':
        content.push({
          type: 'tool_use',
          id: toolIdMap.toCanonical(provider, block.id),
          name: anthropicCanonicalToolName(block.name, toolNames),
          input: (block.input ?? {}) as Record<string, unknown>,
        });
        break;
      default:
        logger.warn(
          {
            event: 'block_dropped',
            adapter: provider,
            block_type: block.type,
            reason: 'no canonical block for it',
          },
          `dropped a ${block.type} block from the reply: the canonical format has no such block`,
        );
    }
  }
  return content;
}

/** What {@link fromAnthropicMessage} may know about the request besides the tool id map. */
export interface AnthropicDecodeOptions {
  /** Where dropped blocks are reported. */
  logger?: Logger;
  /** The requested canonical id: with it, the model the reply names becomes `served_model`. */
  requestModel?: string;
  /** The request's tool names (core's `requestToolNames`): derived names are read back as them. */
  toolNames?: ReadonlySet<string>;
}

/**
 * Decodes a whole Messages API reply. With `options.requestModel` (the requested canonical id),
 * the model the reply names becomes `served_model`; with `options.toolNames` (core's
 * `requestToolNames`), a tool name derived from one of them is read back as it.
 */
export function fromAnthropicMessage(
  message: Anthropic.Message,
  toolIdMap: ToolIdMap,
  options?: AnthropicDecodeOptions,
): AnthropicResponseDecoding;
/** @deprecated Pass `{ logger, requestModel, toolNames }` as the third argument. */
export function fromAnthropicMessage(
  message: Anthropic.Message,
  toolIdMap: ToolIdMap,
  logger?: Logger,
  requestModel?: string,
  toolNames?: ReadonlySet<string>,
): AnthropicResponseDecoding;
export function fromAnthropicMessage(
  message: Anthropic.Message,
  toolIdMap: ToolIdMap,
  ...rest: [AnthropicDecodeOptions?] | [Logger?, string?, ReadonlySet<string>?]
): AnthropicResponseDecoding {
  const options = decodeOptions(rest);
  const logger = options.logger ?? silentLogger;
  const served =
    options.requestModel === undefined
      ? undefined
      : anthropicServedModel(options.requestModel, message.model);
  return {
    content: decodeContentFor(message.content, toolIdMap, {
      logger,
      toolNames: options.toolNames,
      provider: anthropicProviderKey(options.requestModel),
    }),
    stop_reason: mapAnthropicStopReason(message.stop_reason),
    usage: mapAnthropicUsage(message.usage),
    provider_raw: anthropicProviderRaw(message),
    ...(message.id ? { provider_response_id: message.id } : {}),
    ...(served ? { served_model: served } : {}),
  };
}

/** The options object, from it or from the deprecated positional form. */
function decodeOptions(
  rest: [AnthropicDecodeOptions?] | [Logger?, string?, ReadonlySet<string>?],
): AnthropicDecodeOptions {
  const [first] = rest;
  const positional = rest.length > 1 || typeof (first as Partial<Logger>)?.warn === 'function';
  if (!positional) return (first as AnthropicDecodeOptions | undefined) ?? {};
  const [logger, requestModel, toolNames] = rest as [Logger?, string?, ReadonlySet<string>?];
  return {
    ...(logger === undefined ? {} : { logger }),
    ...(requestModel === undefined ? {} : { requestModel }),
    ...(toolNames === undefined ? {} : { toolNames }),
  };
}

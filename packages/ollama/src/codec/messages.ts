import {
  type ContentBlock,
  type ImageBlock,
  type Logger,
  type Message,
  silentLogger,
  type ToolIdMap,
} from '@yourtool/core';
import { type DroppedBlock, reportDroppedBlock, wireToolName } from '@yourtool/core/adapter';
import { OLLAMA_TOOL_NAME_RULES } from './tool-names.js';
import {
  EMPTY_TOOL_RESULT_TEXT,
  OLLAMA,
  OLLAMA_TOOL_ID_RULES,
  type OllamaWireMessage,
  type OllamaWireToolCall,
  TOOL_ERROR_PREFIX,
} from './wire.js';

function textOf(blocks: readonly ContentBlock[], separator: string): string {
  return blocks.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join(separator);
}

/**
 * Images a message can carry on the wire: base64 data only. A URL image is dropped with a WARN
 * (or fails the request when the message is critical): Ollama takes no URLs and the adapter
 * does not fetch them (a fetch from the adapter would reach any URL a history holds).
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

/** What {@link encodeOllamaMessages} may be given besides the messages and the tool id map. */
export interface OllamaMessagesOptions {
  /** Where dropped images are reported. */
  logger?: Logger;
  /** Collects the blocks that could not be sent. */
  dropped?: DroppedBlock[];
  /** The wire name of a canonical tool name (default: core's `wireToolName`, Ollama's rule). */
  toolName?: (name: string) => string;
}

/** The options object, from it or from the deprecated positional form. */
function messagesOptions(
  rest: [OllamaMessagesOptions?] | [Logger?, DroppedBlock[]?, ((name: string) => string)?],
): OllamaMessagesOptions {
  const [first] = rest;
  const positional = rest.length > 1 || typeof (first as Partial<Logger>)?.warn === 'function';
  if (!positional) return (first as OllamaMessagesOptions | undefined) ?? {};
  const [logger, dropped, toolName] = rest as [Logger?, DroppedBlock[]?, ((n: string) => string)?];
  return {
    ...(logger === undefined ? {} : { logger }),
    ...(dropped === undefined ? {} : { dropped }),
    ...(toolName === undefined ? {} : { toolName }),
  };
}

/**
 * Turns prepared canonical messages into `/api/chat` messages. An assistant message becomes one
 * wire message: its text joined, its thinking in `thinking`, its tool uses as `tool_calls` (with
 * arguments as objects). Each tool result becomes a `role: tool` message with `tool_name` (the
 * name of the call it answers, which Ollama uses to match results, together with their order)
 * and the canonical id as `tool_call_id`; an error result is prefixed with
 * {@link TOOL_ERROR_PREFIX}. Images go on their message as base64. Tool names (calls and
 * `tool_name`) go out as `toolName` gives them (default: core's `wireToolName` under
 * {@link OLLAMA_TOOL_NAME_RULES}: stable, and read back as canonical).
 */
export function encodeOllamaMessages(
  messages: readonly Message[],
  toolIdMap: ToolIdMap,
  options?: OllamaMessagesOptions,
): OllamaWireMessage[];
/** @deprecated Pass `{ logger, dropped, toolName }` as the third argument. */
export function encodeOllamaMessages(
  messages: readonly Message[],
  toolIdMap: ToolIdMap,
  logger?: Logger,
  dropped?: DroppedBlock[],
  toolName?: (name: string) => string,
): OllamaWireMessage[];
export function encodeOllamaMessages(
  messages: readonly Message[],
  toolIdMap: ToolIdMap,
  ...rest: [OllamaMessagesOptions?] | [Logger?, DroppedBlock[]?, ((name: string) => string)?]
): OllamaWireMessage[] {
  const encoder = ollamaMessageEncoder(toolIdMap, messagesOptions(rest));
  const out: OllamaWireMessage[] = [];
  for (const message of messages) encodeOllamaMessage(message, encoder, out);
  return out;
}

/** The wire names of a request's tool uses seen so far, by canonical tool use id. */
export interface OllamaToolNames {
  /** The wire name the tool use `toolUseId` went out with, if one was encoded before. */
  get(toolUseId: string): string | undefined;
  /** Records the wire name of the tool use `toolUseId` (a later one replaces it). */
  set(toolUseId: string, name: string): void;
}

/**
 * What encoding one message reads and writes besides the message: one request's state, shared
 * by its messages in order (a tool result's `tool_name` is the name its tool use went out with).
 */
export interface OllamaMessageEncoder {
  /** Where dropped images are reported. */
  logger: Logger;
  /** Collects the blocks that could not be sent. */
  dropped: DroppedBlock[];
  /** The wire name of a canonical tool name. */
  toolName: (name: string) => string;
  /** The wire id of a canonical tool use id (recorded in the request's `ToolIdMap`). */
  providerId: (canonicalId: string) => string;
  /** The wire names of the tool uses encoded so far in this request. */
  toolNames: OllamaToolNames;
}

/** A request's encoder state under `toolIdMap`, from {@link OllamaMessagesOptions}' defaults. */
export function ollamaMessageEncoder(
  toolIdMap: ToolIdMap,
  options: OllamaMessagesOptions = {},
): OllamaMessageEncoder {
  const {
    logger = silentLogger,
    dropped = [],
    toolName = (name: string) => wireToolName(name, OLLAMA_TOOL_NAME_RULES),
  } = options;
  return {
    logger,
    dropped,
    toolName,
    providerId: (canonicalId) => toolIdMap.toProviderId(OLLAMA, canonicalId, OLLAMA_TOOL_ID_RULES),
    toolNames: new Map<string, string>(),
  };
}

/**
 * Appends the wire messages of one prepared canonical message to `out`, reading and setting the
 * request's tool names in `encoder` (see {@link encodeOllamaMessages}).
 */
export function encodeOllamaMessage(
  message: Message,
  encoder: OllamaMessageEncoder,
  out: OllamaWireMessage[],
): void {
  const { logger, dropped, toolName, toolNames, providerId } = encoder;
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

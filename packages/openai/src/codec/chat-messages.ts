import {
  type ImageBlock,
  type Logger,
  type Message,
  OPENAI_TOOL_ID_RULES,
  type RedactedThinkingBlock,
  type ThinkingBlock,
  type ToolIdMap,
  type ToolIdRules,
  type ToolResultBlock,
} from '@yourtool/core';
import { type DroppedBlock, reportDroppedBlock } from '@yourtool/core/adapter';
import type OpenAI from 'openai';

/**
 * What a tool result marked `is_error` starts with on the wire. Chat Completions tool messages
 * have no error flag, so the error is stated in the text the model reads (decision 0040).
 */
export const OPENAI_TOOL_ERROR_PREFIX = '[tool error] ';

/** Text of a tool message whose result had no text (only images, or nothing). */
export const OPENAI_EMPTY_TOOL_RESULT_TEXT = '(no text output)';

/** A wire message of Chat Completions. */
export type OpenAIChatMessage = OpenAI.ChatCompletionMessageParam;

/** Reasoning blocks a codec may put back on an assistant message (OpenRouter does). */
export type ReasoningBlock = ThinkingBlock | RedactedThinkingBlock;

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
  /**
   * Turns the thinking blocks kept on an assistant message into provider fields of that wire
   * message (OpenRouter's `reasoning_details`). Without it, kept thinking is dropped with a WARN.
   */
  encodeReasoning:
    | ((blocks: ReasoningBlock[], message: Message) => Record<string, unknown>)
    | undefined;
  /** Collects the blocks dropped while encoding. */
  dropped: DroppedBlock[];
  /** The rules tool call ids must satisfy on the wire. Default `OPENAI_TOOL_ID_RULES`. */
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

/** What one canonical message becomes on the wire (see {@link encodeOpenAIMessages}). */
export interface ChatMessageParts {
  /** Its wire messages: none for a system message or an assistant message with nothing left. */
  messages: OpenAIChatMessage[];
  /** Image parts of its tool results, for the user message after the run of tool messages. */
  images: OpenAI.ChatCompletionContentPart[];
}

/** One canonical message's wire messages and tool-result images. */
export function encodeChatMessageParts(
  message: Message,
  context: OpenAIMessageEncodeContext,
): ChatMessageParts {
  const messages: OpenAIChatMessage[] = [];
  const images: OpenAI.ChatCompletionContentPart[] = [];
  switch (message.role) {
    case 'user':
      messages.push(encodeUser(message));
      break;
    case 'assistant': {
      const encoded = encodeAssistant(message, context);
      if (encoded) messages.push(encoded);
      break;
    }
    case 'tool':
      for (const block of message.content) {
        if (block.type !== 'tool_result') continue;
        const id = providerToolId(context, block.tool_use_id);
        messages.push({ role: 'tool', tool_call_id: id, content: toolResultText(block) });
        const shown = block.content.filter((inner) => inner.type === 'image');
        if (shown.length > 0) {
          images.push({ type: 'text', text: `Image output of tool call ${id}:` });
          for (const image of shown) images.push(encodeOpenAIImage(image));
        }
      }
      break;
    case 'system':
      // hoisted by prepareHistory
      break;
  }
  return { messages, images };
}

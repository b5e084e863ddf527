import type {
  ImageBlock,
  Logger,
  Message,
  RedactedThinkingBlock,
  ThinkingBlock,
  ToolIdMap,
  ToolIdRules,
  ToolResultBlock,
} from '@yourtool/core';
import { type DroppedBlock, reportDroppedBlock } from '@yourtool/core/adapter';
import type OpenAI from 'openai';
import { OPENAI_EMPTY_TOOL_RESULT_TEXT, OPENAI_TOOL_ERROR_PREFIX } from '../codec/chat-messages.js';

/**
 * Tool call ids of the Responses API (`call_id`): at most 64 characters of `[a-zA-Z0-9_-]`.
 * Canonical `tu_<ulid>` ids conform; foreign ids are derived by core's `ToolIdMap`.
 */
export const OPENAI_RESPONSES_TOOL_ID_RULES: ToolIdRules = {
  pattern: /^[a-zA-Z0-9_-]+$/,
  maxLength: 64,
};

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
  /** The name a canonical tool name goes out under. Default: the canonical name as it is. */
  toolName?: (name: string) => string;
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
      case 'redacted_thinking': {
        flushText();
        const item = reasoningItem(block);
        if (item) pendingReasoning.push({ item, index, type: block.type });
        else {
          drop(
            'thinking',
            index,
            'reasoning without its encrypted content cannot be replayed with store: false',
          );
        }
        return;
      }
      case 'tool_use':
        flushText();
        flushReasoning();
        items.push({
          type: 'function_call',
          call_id: callId(context, block.id),
          name: context.toolName ? context.toolName(block.name) : block.name,
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
 * A thinking block as the reasoning item it replays as, carrying its encrypted content (the
 * summary text as one `summary_text`); `null` for thinking without it, which cannot be replayed.
 */
function reasoningItem(
  block: ThinkingBlock | RedactedThinkingBlock,
): ResponsesReasoningItem | null {
  if (block.type === 'redacted_thinking') {
    return { type: 'reasoning', summary: [], encrypted_content: block.data };
  }
  if (!block.signature) return null;
  return {
    type: 'reasoning',
    summary: block.text === '' ? [] : [{ type: 'summary_text', text: block.text }],
    encrypted_content: block.signature,
  };
}

/**
 * One prepared canonical message as Responses input items: USER as a user message (images as
 * `input_image` parts), ASSISTANT as reasoning, message and `function_call` items in the order
 * of its blocks, TOOL as a `function_call_output` per tool result answering its call's
 * `call_id` (images in the same output); SYSTEM as nothing (hoisted into `instructions`).
 */
export function encodeResponsesItems(
  message: Message,
  context: ResponsesItemEncodeContext,
): ResponsesInputItem[] {
  switch (message.role) {
    case 'user':
      return [encodeUser(message)];
    case 'assistant':
      return encodeAssistantItems(message, context);
    case 'tool': {
      const items: ResponsesInputItem[] = [];
      for (const block of message.content) {
        if (block.type !== 'tool_result') continue;
        items.push(encodeFunctionCallOutput(block, callId(context, block.tool_use_id)));
      }
      return items;
    }
    case 'system':
      // hoisted by prepareHistory into `instructions`
      return [];
  }
}

/**
 * Turns prepared canonical messages (as `prepareHistory` leaves them) into the Responses
 * `input` list, each message as {@link encodeResponsesItems} encodes it.
 */
export function encodeResponsesInput(
  messages: readonly Message[],
  context: ResponsesItemEncodeContext,
): ResponsesInputItem[] {
  const input: ResponsesInputItem[] = [];
  for (const message of messages) {
    for (const item of encodeResponsesItems(message, context)) input.push(item);
  }
  return input;
}

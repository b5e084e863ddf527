import { type Message, type ToolIdMap, WireRuns, type WrittenList } from '@yourtool/core';
import {
  freezeWireForm as deepFreeze,
  type EncodedWireForm,
  SealedWireForms,
  toolIdsRecorded,
} from '@yourtool/core/adapter';
import type OpenAI from 'openai';
import {
  encodeChatMessageParts,
  type OpenAIChatMessage,
  type OpenAIMessageEncodeContext,
} from './chat-messages.js';
import { type RememberedForm, rememberedForm } from './message-form.js';

/** One message's remembered Chat Completions form. */
export interface ChatMessageForm {
  /** Its wire messages (frozen when kept: every request carrying the message shares them). */
  messages: readonly OpenAI.ChatCompletionMessageParam[];
  /** Image parts of its tool results, for the user message after the run of tool messages. */
  images: readonly OpenAI.ChatCompletionContentPart[];
  /** The JSON of `messages`, joined by commas (`''` when there are none). */
  json: string;
  /** The JSON of `images`, joined by commas (`''` when there are none). */
  imagesJson: string;
}

/** How a messages array is written, and the messages it held when it was encoded. */
interface WrittenMessages {
  messages: readonly OpenAI.ChatCompletionMessageParam[];
  written: WrittenList;
}

/**
 * A message's Chat Completions form. One to keep (`kept`) must come out the same on every
 * request under the same `ToolIdMap`: it is not kept (used once) when encoding it logged
 * anything (a tool name renamed, a block dropped: each a WARN per request), when it carries
 * reasoning the provider encodes itself, or when a tool id it sent is not recorded in the map.
 */
export function encodeChatForm(
  message: Message,
  context: OpenAIMessageEncodeContext,
  kept: boolean,
): EncodedWireForm<ChatMessageForm> {
  let renamed = false;
  const namer = context.toolName;
  const watched: OpenAIMessageEncodeContext = kept
    ? {
        ...context,
        toolName: (name) => {
          const wire = namer ? namer(name) : name;
          if (wire !== name) renamed = true;
          return wire;
        },
      }
    : context;
  const droppedBefore = context.dropped.length;
  const { messages, images } = encodeChatMessageParts(message, watched);
  const form: ChatMessageForm = {
    messages,
    images,
    json: messages.map((m) => JSON.stringify(m)).join(','),
    imagesJson: images.map((part) => JSON.stringify(part)).join(','),
  };
  const reasoning =
    context.encodeReasoning !== undefined &&
    message.content.some((b) => b.type === 'thinking' || b.type === 'redacted_thinking');
  const reusable =
    kept &&
    !renamed &&
    !reasoning &&
    context.dropped.length === droppedBefore &&
    toolIdsRecorded(message, context.toolIdMap, context.provider, context.toolIdRules);
  if (reusable) deepFreeze(form);
  return { form, reusable };
}

/**
 * Everything the Chat Completions codec remembers between requests (decisions 0165, 0191),
 * held by its owner instead of the codec's modules: OpenAI's Chat Completions adapter makes one
 * and hands it to `toOpenAIChatParams` (as `wireMemory`) and to its transport's body writer.
 * Without one, every request is encoded afresh: the same parameters and bytes, only slower
 * for a long session.
 *
 * Lifetime: the owner's. Bound: nothing held strongly by key: each sealed message's form
 * weakly by the message (one per message), each rebuilt tool message's weakly by its tool
 * result block (one per block), each encoded messages array's JSON weakly by the
 * array (so for as long as the parameters live), and per history (weakly by its first message)
 * the run of its leading messages' wire messages and their UTF-8 JSON (decision 0193). One
 * memory serves one encoder (one provider key, one tool id rule); never share it with another.
 */
export class OpenAIChatWireMemory {
  /** Each sealed message's wire form, under the `ToolIdMap` it was encoded with. */
  readonly forms = new SealedWireForms<ChatMessageForm>();
  /** Per history, the wire messages of its leading messages and their JSON (decision 0193). */
  readonly runs = new WireRuns<OpenAIChatMessage>();
  /** Forms of tool messages `prepareHistory` rebuilt, by their one (deep-frozen) tool result. */
  readonly results = new WeakMap<object, RememberedForm<ChatMessageForm>>();
  readonly #written = new WeakMap<readonly OpenAI.ChatCompletionMessageParam[], WrittenMessages>();

  /**
   * The form of `message` under `toolIdMap`, remembered for a sealed message ({@link forms}) and
   * for a tool message that `prepareHistory` rebuilt around one tool result of a sealed message:
   * such a copy is never sealed, but its form depends only on that block, which is deep-frozen,
   * so it is remembered by the block. Anything else is encoded for this request only.
   */
  form(
    message: Message,
    toolIdMap: ToolIdMap,
    encode: (message: Message, kept: boolean) => EncodedWireForm<ChatMessageForm>,
  ): ChatMessageForm {
    return rememberedForm(this, message, toolIdMap, encode);
  }

  /** Records that `messages` (a request's `messages`) is written as `written`. */
  markMessages(messages: readonly OpenAI.ChatCompletionMessageParam[], written: WrittenList): void {
    this.#written.set(messages, { messages: messages.slice(), written });
  }

  /**
   * How `messages` is written, when the codec recorded it and the array still holds the same
   * messages (a message put in or taken out since makes it unknown); else null.
   */
  messagesWritten(messages: readonly OpenAI.ChatCompletionMessageParam[]): WrittenList | null {
    const known = this.#written.get(messages);
    if (known === undefined || known.messages.length !== messages.length) return null;
    for (let i = 0; i < messages.length; i++) {
      if (messages[i] !== known.messages[i]) return null;
    }
    return known.written;
  }

  /**
   * The JSON recorded for `messages`, when the array still holds the same messages (a message
   * put in or taken out since makes it unknown); else null.
   */
  messagesJson(messages: readonly OpenAI.ChatCompletionMessageParam[]): string | null {
    const written = this.messagesWritten(messages);
    if (written === null) return null;
    const { buffer, byteOffset, byteLength } = written.prefix;
    const prefix = Buffer.from(buffer, byteOffset, byteLength).toString('utf8');
    const comma = prefix !== '' && written.rest !== '' ? ',' : '';
    return `[${prefix}${comma}${written.rest}]`;
  }
}

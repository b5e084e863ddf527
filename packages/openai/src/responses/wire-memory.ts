import { type Message, type ToolIdMap, WireRuns, type WrittenList } from '@yourtool/core';
import {
  freezeWireForm as deepFreeze,
  type EncodedWireForm,
  SealedWireForms,
  toolIdsRecorded,
} from '@yourtool/core/adapter';
import { type RememberedForm, rememberedForm } from '../codec/message-form.js';
import {
  encodeResponsesItems,
  OPENAI_RESPONSES_TOOL_ID_RULES,
  type ResponsesInputItem,
  type ResponsesItemEncodeContext,
} from './input.js';

/** One message's remembered Responses form. */
export interface ResponsesMessageForm {
  /** Its input items (frozen when kept: every request carrying the message shares them). */
  items: readonly ResponsesInputItem[];
  /** The JSON of `items`, joined by commas (`''` when there are none). */
  json: string;
}

/** How an `input` array is written, and the items it held when it was encoded. */
interface WrittenInput {
  items: readonly ResponsesInputItem[];
  written: WrittenList;
}

/**
 * A message's Responses form. One to keep (`kept`) must come out the same on every request
 * under the same `ToolIdMap`: it is not kept (used once) when encoding it logged anything (a
 * tool name renamed, a block dropped: each a WARN per request) or when a tool id it sent is not
 * recorded in the map.
 */
export function encodeResponsesForm(
  message: Message,
  context: ResponsesItemEncodeContext,
  kept: boolean,
): EncodedWireForm<ResponsesMessageForm> {
  let renamed = false;
  const namer = context.toolName;
  const watched: ResponsesItemEncodeContext = kept
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
  const items = encodeResponsesItems(message, watched);
  const form: ResponsesMessageForm = {
    items,
    json: items.map((item) => JSON.stringify(item)).join(','),
  };
  const rules = context.toolIdRules ?? OPENAI_RESPONSES_TOOL_ID_RULES;
  const reusable =
    kept &&
    !renamed &&
    context.dropped.length === droppedBefore &&
    toolIdsRecorded(message, context.toolIdMap, context.provider, rules);
  if (reusable) deepFreeze(form);
  return { form, reusable };
}

/**
 * Everything the Responses codec remembers between requests (decisions 0165, 0193), held by its
 * owner: the OpenAI Responses adapter makes one and hands it to `toOpenAIResponsesParams` (as
 * `wireMemory`) and to its transport's body writer (`responsesRequestBytes`). Without one,
 * every request is encoded afresh: the same parameters and bytes, only slower for a long
 * session.
 *
 * Lifetime: the owner's. Bound: nothing held strongly by key: each sealed message's form
 * weakly by the message, each rebuilt tool message's weakly by its tool result block, each
 * encoded `input` array's writing weakly by the array, and per history (weakly by its first
 * message) the run of its leading messages' items and their UTF-8 JSON. One memory serves one
 * encoder (one provider key, one tool id rule); never share it with another.
 */
export class OpenAIResponsesWireMemory {
  /** Each sealed message's form, under the `ToolIdMap` it was encoded with. */
  readonly forms = new SealedWireForms<ResponsesMessageForm>();
  /** Forms of tool messages `prepareHistory` rebuilt, by their one (deep-frozen) tool result. */
  readonly results = new WeakMap<object, RememberedForm<ResponsesMessageForm>>();
  /** Per history, the input items of its leading messages and their JSON. */
  readonly runs = new WireRuns<ResponsesInputItem>();
  readonly #written = new WeakMap<readonly ResponsesInputItem[], WrittenInput>();

  /** The form of `message` under `toolIdMap`: remembered when it cannot change, else encoded. */
  form(
    message: Message,
    toolIdMap: ToolIdMap,
    encode: (message: Message, kept: boolean) => EncodedWireForm<ResponsesMessageForm>,
  ): ResponsesMessageForm {
    return rememberedForm(this, message, toolIdMap, encode);
  }

  /** Records that `input` (a request's `input`) is written as `written`. */
  markInput(input: readonly ResponsesInputItem[], written: WrittenList): void {
    this.#written.set(input, { items: input.slice(), written });
  }

  /**
   * How `input` is written, when the codec recorded it and the array still holds the same items
   * (an item put in or taken out since makes it unknown); else null.
   */
  inputWritten(input: readonly unknown[]): WrittenList | null {
    const known = this.#written.get(input as readonly ResponsesInputItem[]);
    if (known === undefined || known.items.length !== input.length) return null;
    for (let i = 0; i < input.length; i++) if (input[i] !== known.items[i]) return null;
    return known.written;
  }
}

/**
 * The `input` list of prepared messages with the adapter's memory (decision 0193): the
 * remembered items of the history's leading messages first, then each further message's
 * (remembered) form; the remembered run grows to the last message while every form was kept.
 * The array and the items in it are read-only (remembered items are shared and frozen).
 */
export function encodeRememberedInput(
  messages: readonly Message[],
  context: ResponsesItemEncodeContext,
  memory: OpenAIResponsesWireMemory,
): ResponsesInputItem[] {
  const tail = memory.runs.resume(messages, context.toolIdMap, null);
  if (!tail.headDone) tail.cut(0);
  const encode = (message: Message, kept: boolean) => encodeResponsesForm(message, context, kept);
  for (let i = tail.from; i < messages.length; i++) {
    const form = memory.form(messages[i] as Message, context.toolIdMap, encode);
    // a kept form is frozen; one encoded for this request only is not
    tail.push(form.items, form.json, Object.isFrozen(form));
    tail.cut(i + 1);
  }
  memory.markInput(tail.out, tail.finish());
  return tail.out;
}

import type { Message } from '@yourtool/core';
import type OpenAI from 'openai';
import {
  encodeChatMessageParts,
  type OpenAIChatMessage,
  type OpenAIMessageEncodeContext,
} from './chat-messages.js';
import { encodeChatForm, type OpenAIChatWireMemory } from './chat-wire-memory.js';

/**
 * Turns prepared canonical messages (as `prepareHistory` leaves them) into Chat Completions
 * messages: the system text as a leading `role: system` message; USER as `user` (images as
 * `image_url` parts); ASSISTANT as `assistant` with `tool_calls[]` whose `arguments` are JSON
 * strings; each TOOL message as a `role: tool` message answering its call's provider id. Images
 * inside tool results cannot go in a tool message, so they follow the run of tool messages in
 * one user message, each group introduced by the call id it belongs to.
 *
 * With `memory` (the adapter's, decision 0165), each sealed message's wire messages and their
 * JSON are remembered per `ToolIdMap` (decision 0191), and so is the run of a history's leading
 * messages (decision 0193): a session's next request encodes only its new messages, and the
 * returned array's JSON is recorded for the request body writer. The array and the messages in
 * it are then read-only (remembered messages are shared and frozen).
 */
export function encodeOpenAIMessages(
  system: string | null,
  messages: readonly Message[],
  context: OpenAIMessageEncodeContext,
  memory?: OpenAIChatWireMemory,
): OpenAIChatMessage[] {
  if (memory) return encodeRemembered(system, messages, context, memory);
  const out: OpenAIChatMessage[] = [];
  if (system !== null) out.push({ role: 'system', content: system });
  let pendingImages: OpenAI.ChatCompletionContentPart[] = [];
  for (const message of messages) {
    if (message.role !== 'tool' && pendingImages.length > 0) {
      out.push({ role: 'user', content: pendingImages });
      pendingImages = [];
    }
    const parts = encodeChatMessageParts(message, context);
    for (const wire of parts.messages) out.push(wire);
    for (const part of parts.images) pendingImages.push(part);
  }
  if (pendingImages.length > 0) out.push({ role: 'user', content: pendingImages });
  return out;
}

/**
 * {@link encodeOpenAIMessages} with the adapter's memory: the remembered run of the history's
 * leading messages first, then each further message's (remembered) form; the run grows to the
 * last point where every form was kept and no tool result images wait for their user message.
 */
function encodeRemembered(
  system: string | null,
  messages: readonly Message[],
  context: OpenAIMessageEncodeContext,
  memory: OpenAIChatWireMemory,
): OpenAIChatMessage[] {
  const tail = memory.runs.resume(messages, context.toolIdMap, system);
  if (!tail.headDone) {
    if (system !== null) {
      const head: OpenAIChatMessage = Object.freeze({ role: 'system', content: system });
      tail.push([head], JSON.stringify(head), true);
    }
    tail.cut(0);
  }
  let pendingImages: OpenAI.ChatCompletionContentPart[] = [];
  // the JSON of the pending image parts (remembered runs of them), and whether all were kept
  let pendingJson: string[] = [];
  let pendingKept = true;
  const flushImages = () => {
    if (pendingImages.length === 0) return;
    const wire: OpenAIChatMessage = { role: 'user', content: pendingImages };
    // a message that may go into the run is shared by later requests: read-only
    if (pendingKept && tail.kept) {
      Object.freeze(pendingImages);
      Object.freeze(wire);
    }
    // exactly JSON.stringify(wire): its keys in this order, the parts' JSON in theirs
    tail.push([wire], `{"role":"user","content":[${pendingJson.join(',')}]}`, pendingKept);
    pendingImages = [];
    pendingJson = [];
    pendingKept = true;
  };
  const encode = (message: Message, kept: boolean) => encodeChatForm(message, context, kept);
  for (let i = tail.from; i < messages.length; i++) {
    const message = messages[i] as Message;
    if (message.role !== 'tool') flushImages();
    const form = memory.form(message, context.toolIdMap, encode);
    // a kept form is frozen; one encoded for this request only is not
    const kept = Object.isFrozen(form);
    tail.push(form.messages, form.json, kept);
    for (const part of form.images) pendingImages.push(part);
    if (form.imagesJson !== '') pendingJson.push(form.imagesJson);
    if (form.images.length > 0 && !kept) pendingKept = false;
    if (pendingImages.length === 0) tail.cut(i + 1);
  }
  flushImages();
  const written = tail.finish();
  memory.markMessages(tail.out, written);
  return tail.out;
}

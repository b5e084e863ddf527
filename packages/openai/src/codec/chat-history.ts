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
 * JSON are remembered per `ToolIdMap` (decision 0191): a session's next request encodes only
 * its new messages, and the returned array's JSON is recorded for the request body writer. The
 * array and the messages in it are then read-only (remembered messages are shared and frozen).
 */
export function encodeOpenAIMessages(
  system: string | null,
  messages: readonly Message[],
  context: OpenAIMessageEncodeContext,
  memory?: OpenAIChatWireMemory,
): OpenAIChatMessage[] {
  const out: OpenAIChatMessage[] = [];
  // the JSON of each wire message (or of a remembered run of them), when `memory` keeps it
  const json: string[] = [];
  const push = (wire: OpenAIChatMessage) => {
    out.push(wire);
    if (memory) json.push(JSON.stringify(wire));
  };
  if (system !== null) push({ role: 'system', content: system });
  let pendingImages: OpenAI.ChatCompletionContentPart[] = [];
  // with `memory`: the JSON of the pending image parts (remembered runs of them)
  let pendingJson: string[] = [];
  const flushImages = () => {
    if (pendingImages.length > 0) {
      const wire: OpenAIChatMessage = { role: 'user', content: pendingImages };
      out.push(wire);
      // exactly JSON.stringify(wire): its keys in this order, the parts' JSON in theirs
      if (memory) json.push(`{"role":"user","content":[${pendingJson.join(',')}]}`);
    }
    pendingImages = [];
    pendingJson = [];
  };
  const encode = (message: Message, kept: boolean) => encodeChatForm(message, context, kept);
  for (const message of messages) {
    if (message.role !== 'tool') flushImages();
    if (memory) {
      const form = memory.form(message, context.toolIdMap, encode);
      for (const wire of form.messages) out.push(wire);
      if (form.json !== '') json.push(form.json);
      for (const part of form.images) pendingImages.push(part);
      if (form.imagesJson !== '') pendingJson.push(form.imagesJson);
    } else {
      const parts = encodeChatMessageParts(message, context);
      for (const wire of parts.messages) out.push(wire);
      for (const part of parts.images) pendingImages.push(part);
    }
  }
  flushImages();
  memory?.markMessages(out, `[${json.join(',')}]`);
  return out;
}

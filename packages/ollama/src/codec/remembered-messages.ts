import { type Message, runToolUseName, type ToolIdMap } from '@yourtool/core';
import {
  type OllamaMessageEncoder,
  type OllamaMessagesOptions,
  ollamaMessageEncoder,
} from './messages.js';
import type { OllamaWireMessage } from './wire.js';
import type { OllamaWireMemory } from './wire-memory.js';

/**
 * A request's wire messages and their JSON joined by commas, in two pieces: the UTF-8 JSON of
 * the remembered run it started with (`head`, copied as it is) and that of the rest (`tail`).
 */
export interface RememberedMessages {
  /** The wire messages, in order. */
  wire: OllamaWireMessage[];
  /** The run's wire messages' UTF-8 JSON joined by commas (empty without a run). */
  head: Uint8Array;
  /** The JSON of the wire messages after the run, joined by commas (`''` when none). */
  tail: string;
}

/**
 * Encodes prepared messages as `encodeOllamaMessages` does, remembering in `memory` (decisions
 * 0195, 0201): the run of messages an earlier request started with and remembered is taken
 * whole (its wire messages copied, its JSON one piece of bytes), each further sealed message's
 * form is looked up or kept, and the run grows by the remembered messages this request starts
 * with, so a long session's request costs about its new messages.
 */
export function encodeRememberedMessages(
  messages: readonly Message[],
  toolIdMap: ToolIdMap,
  options: OllamaMessagesOptions,
  memory: OllamaWireMemory,
): RememberedMessages {
  const tail = memory.runs.resume(messages, toolIdMap, null);
  const local = new Map<string, string>();
  const encoder: OllamaMessageEncoder = {
    ...ollamaMessageEncoder(toolIdMap, options),
    // a tool use set by this request's messages comes after (so wins over) the run's
    toolNames: {
      get: (id) => local.get(id) ?? runToolUseName(messages, tail.from, id),
      set: (id, name) => local.set(id, name),
    },
  };
  for (let i = tail.from; i < messages.length; i++) {
    const { form, kept } = memory.form(messages[i] as Message, toolIdMap, encoder);
    tail.push(form.messages, form.json, kept);
    tail.cut(i + 1);
  }
  const written = tail.finish();
  return { wire: tail.out, head: written.prefix, tail: written.rest };
}

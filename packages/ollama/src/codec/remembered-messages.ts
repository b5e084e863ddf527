import type { Message, ToolIdMap } from '@yourtool/core';
import { COMMA, concat, EMPTY, utf8 } from './json-bytes.js';
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
 * Encodes prepared messages as `encodeOllamaMessages` does, remembering in `memory` (decision
 * 0195): the run of messages an earlier request started with and remembered is taken whole (its
 * wire messages copied, its JSON one string), each further sealed message's form is looked up or
 * kept, and the run is extended by the remembered messages this request starts with, so a long
 * session's request costs about its new messages.
 */
export function encodeRememberedMessages(
  messages: readonly Message[],
  toolIdMap: ToolIdMap,
  options: OllamaMessagesOptions,
  memory: OllamaWireMemory,
): RememberedMessages {
  const run = memory.run(messages, toolIdMap);
  const local = new Map<string, string>();
  const before = run?.names;
  const encoder: OllamaMessageEncoder = {
    ...ollamaMessageEncoder(toolIdMap, options),
    // a tool use set by this request's messages comes after (so wins over) the run's
    toolNames: {
      get: (id) => local.get(id) ?? before?.get(id),
      set: (id, name) => local.set(id, name),
    },
  };
  const start = run?.messages.length ?? 0;
  const wire: OllamaWireMessage[] = run ? run.wire.slice() : [];
  const head = run?.json ?? EMPTY;
  const parts: string[] = [];
  // the remembered messages right after the run, which extend it
  const grown: Message[] = [];
  const grownNames: Array<readonly [string, string]> = [];
  let keptWire = wire.length;
  let keptParts = 0;
  for (let i = start; i < messages.length; i++) {
    const message = messages[i] as Message;
    const { form, kept } = memory.form(message, toolIdMap, encoder);
    for (const m of form.messages) wire.push(m);
    if (form.json !== '') parts.push(form.json);
    if (kept && grown.length === i - start) {
      grown.push(message);
      grownNames.push(...form.setNames);
      keptWire = wire.length;
      keptParts = parts.length;
    }
  }
  if (grown.length > 0) {
    const names = new Map(run?.names);
    for (const [id, name] of grownNames) names.set(id, name);
    const added = utf8(parts.slice(0, keptParts).join(','));
    memory.rememberRun({
      toolIdMap,
      messages: run ? [...run.messages, ...grown] : grown,
      wire: Object.freeze(wire.slice(0, keptWire)),
      json: head.length === 0 ? added : added.length === 0 ? head : concat([head, COMMA, added]),
      names,
    });
  }
  return { wire, head, tail: parts.join(',') };
}

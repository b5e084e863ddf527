import type { Message, ToolIdMap } from '@yourtool/core';
import {
  type OllamaMessageEncoder,
  type OllamaMessagesOptions,
  ollamaMessageEncoder,
} from './messages.js';
import type { OllamaWireMessage } from './wire.js';
import type { OllamaWireMemory } from './wire-memory.js';

/** A request's wire messages and their JSON joined by commas. */
export interface RememberedMessages {
  wire: OllamaWireMessage[];
  json: string;
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
  const runJson = run?.json ?? '';
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
  // `+` keeps the run's (long) JSON as it is; Array.prototype.join would copy it every request
  const json = joined(runJson, parts.join(','));
  if (grown.length > 0) {
    const names = new Map(run?.names);
    for (const [id, name] of grownNames) names.set(id, name);
    memory.rememberRun({
      toolIdMap,
      messages: run ? [...run.messages, ...grown] : grown,
      wire: Object.freeze(wire.slice(0, keptWire)),
      json:
        keptParts === parts.length ? json : joined(runJson, parts.slice(0, keptParts).join(',')),
      names,
    });
  }
  return { wire, json };
}

/** Two comma-joined JSON lists as one (either may be empty). */
function joined(head: string, tail: string): string {
  if (head === '') return tail;
  return tail === '' ? head : `${head},${tail}`;
}

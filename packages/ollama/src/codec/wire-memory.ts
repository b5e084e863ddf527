import { type Message, type ToolIdMap, WireRuns } from '@yourtool/core';
import {
  freezeWireForm as deepFreeze,
  type EncodedWireForm,
  SealedWireForms,
  toolIdsRecorded,
} from '@yourtool/core/adapter';
import {
  encodeOllamaMessage,
  type OllamaMessageEncoder,
  type OllamaToolNames,
} from './messages.js';
import { OLLAMA, OLLAMA_TOOL_ID_RULES, type OllamaWireMessage } from './wire.js';

/** One message's remembered `/api/chat` form. */
export interface OllamaMessageForm {
  /** Its wire messages (frozen when kept: every request carrying the message shares them). */
  messages: readonly OllamaWireMessage[];
  /** The JSON of `messages`, joined by commas (`''` when there are none). */
  json: string;
  /** The wire names its tool uses went out with, as `[tool use id, name]`, in order. */
  setNames: ReadonlyArray<readonly [string, string]>;
  /** The tool use names its tool results read (`tool_name`), as `[tool use id, name]`. */
  readNames: ReadonlyArray<readonly [string, string | undefined]>;
}

/** What a history's remembered run covers (see {@link OllamaWireMemory.run}). */
export interface RememberedRun {
  /** The prepared messages of the run, from the history's first. */
  messages: readonly Message[];
  /** Their wire messages, in order. */
  wire: readonly OllamaWireMessage[];
}

/** A messages array's UTF-8 JSON in pieces, and the messages it held when it was written. */
interface WrittenMessages {
  messages: readonly OllamaWireMessage[];
  json: readonly Uint8Array[];
}

/** Whether every tool id the message went out with is the link the map records (so stays). */
function idsRecorded(message: Message, toolIdMap: ToolIdMap): boolean {
  return toolIdsRecorded(message, toolIdMap, OLLAMA, OLLAMA_TOOL_ID_RULES);
}

/**
 * A message's `/api/chat` form, encoded with `encoder` (whose tool names it reads and sets). One
 * to keep (`kept`) must come out the same on every request under the same `ToolIdMap` and the
 * same tool names before it: it is not kept (used once) when encoding it logged anything (a
 * tool name renamed, an image dropped: each a WARN per request) or when a tool id it sent is not
 * recorded in the map.
 */
export function encodeOllamaForm(
  message: Message,
  encoder: OllamaMessageEncoder,
  toolIdMap: ToolIdMap,
  kept: boolean,
): EncodedWireForm<OllamaMessageForm> {
  let renamed = false;
  const setNames: Array<readonly [string, string]> = [];
  const readNames: Array<readonly [string, string | undefined]> = [];
  const names = encoder.toolNames;
  const recording: OllamaToolNames = {
    get: (id) => {
      const name = names.get(id);
      readNames.push([id, name]);
      return name;
    },
    set: (id, name) => {
      setNames.push([id, name]);
      names.set(id, name);
    },
  };
  const watched: OllamaMessageEncoder = {
    ...encoder,
    toolNames: recording,
    toolName: (name) => {
      const wire = encoder.toolName(name);
      if (wire !== name) renamed = true;
      return wire;
    },
  };
  const droppedBefore = encoder.dropped.length;
  const messages: OllamaWireMessage[] = [];
  encodeOllamaMessage(message, watched, messages);
  const form: OllamaMessageForm = {
    messages,
    json: messages.map((m) => JSON.stringify(m)).join(','),
    setNames,
    readNames,
  };
  const reusable =
    kept && !renamed && encoder.dropped.length === droppedBefore && idsRecorded(message, toolIdMap);
  if (reusable) deepFreeze(form);
  return { form, reusable };
}

/**
 * Everything the Ollama codec remembers between requests (decisions 0165, 0195), held by its
 * owner instead of the codec's modules: the Ollama adapter makes one and hands it to
 * `toOllamaChatRequest` (as `wireMemory`) and to its transport's body writer. Without one,
 * every request is encoded afresh: the same parameters and bytes, only slower for a long
 * session.
 *
 * Lifetime: the owner's. Bound: nothing held strongly by key: each sealed message's form weakly
 * by the message (one per message), one remembered run per history weakly by its first message
 * (core's `WireRuns`: its wire messages and their UTF-8 JSON in one growing buffer, decision
 * 0201), and each encoded messages array's JSON weakly by the array (for as long as the
 * parameters live).
 */
export class OllamaWireMemory {
  readonly #forms = new SealedWireForms<OllamaMessageForm>();
  /** Per history, the wire messages of its leading messages and their JSON (decision 0201). */
  readonly runs = new WireRuns<OllamaWireMessage>();
  readonly #written = new WeakMap<readonly OllamaWireMessage[], WrittenMessages>();

  /**
   * The form of `message` under `toolIdMap`, and whether it is remembered. A sealed message's
   * form is kept when reusable; a remembered form whose tool results read other tool names than
   * this request's is encoded again for this request only. Either way the form's tool names are
   * set in `encoder`.
   */
  form(
    message: Message,
    toolIdMap: ToolIdMap,
    encoder: OllamaMessageEncoder,
  ): { form: OllamaMessageForm; kept: boolean } {
    const form = this.#forms.get(message, toolIdMap, (m, kept) =>
      encodeOllamaForm(m, encoder, toolIdMap, kept),
    );
    const names = encoder.toolNames;
    for (const [id, name] of form.readNames) {
      if (names.get(id) !== name) {
        return { form: encodeOllamaForm(message, encoder, toolIdMap, false).form, kept: false };
      }
    }
    for (const [id, name] of form.setNames) names.set(id, name);
    return { form, kept: this.#forms.has(message, toolIdMap) };
  }

  /**
   * What the remembered run of `messages` under `toolIdMap` covers: the leading messages a
   * request on `messages` would take whole, and their wire messages; null when it takes none.
   */
  run(messages: readonly Message[], toolIdMap: ToolIdMap): RememberedRun | null {
    const tail = this.runs.resume(messages, toolIdMap, null);
    if (!tail.headDone) return null;
    return { messages: messages.slice(0, tail.from), wire: tail.out };
  }

  /**
   * Records that `messages` (a request's `messages`) is written as `json`: its UTF-8 JSON, the
   * pieces one after another (read-only from then on).
   */
  markMessages(messages: readonly OllamaWireMessage[], json: readonly Uint8Array[]): void {
    this.#written.set(messages, { messages: messages.slice(), json });
  }

  /**
   * The UTF-8 JSON recorded for `messages` (pieces to write one after another), when the array
   * still holds the same messages (a message put in or taken out since makes it unknown); else
   * null.
   */
  messagesJson(messages: readonly OllamaWireMessage[]): readonly Uint8Array[] | null {
    const written = this.#written.get(messages);
    if (written === undefined || written.messages.length !== messages.length) return null;
    for (let i = 0; i < messages.length; i++) {
      if (messages[i] !== written.messages[i]) return null;
    }
    return written.json;
  }
}

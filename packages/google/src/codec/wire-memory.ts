import type { Content, Part } from '@google/genai';
import { type ToolIdMap, WireRuns } from '@yourtool/core';
import { SealedWireForms } from '@yourtool/core/adapter';

/** One message's share of a request's `contents`, as the contents encoder made it. */
export interface GeminiMessageForm {
  /** The role of the turn its parts join (`null`: it adds none, as a SYSTEM message). */
  role: 'user' | 'model' | null;
  /** Its parts, in order (frozen when kept: every request carrying the message shares them). */
  parts: readonly Part[];
  /** Images of its tool results, sent after the run of tool messages it belongs to. */
  trailing: readonly Part[];
  /** The wire name of each function call it makes, by canonical id (later results read them). */
  calls: ReadonlyArray<readonly [string, string]>;
  /** The wire name of the call each of its results answers, by canonical id, as it was read. */
  answers: ReadonlyArray<readonly [string, string]>;
  /**
   * The JSON of `parts` as `@google/genai` writes them, joined by commas (`''`: none): what goes
   * on the wire, written into the remembered run's bytes once (decision 0201).
   */
  json: string;
  /** The JSON of `trailing`, likewise. */
  trailingJson: string;
}

/** A contents array's JSON (UTF-8), and the contents it held when the JSON was written. */
interface WrittenContents {
  contents: readonly Content[];
  bytes: Uint8Array;
}

/**
 * Everything the Gemini codec remembers between requests (decisions 0165, 0194), held by its
 * owner instead of the codec's modules: the Gemini adapter makes one and hands it to
 * `toGeminiRequest` (as `wireMemory`) and to its transport, which sends the remembered JSON of
 * `contents` instead of letting the SDK convert and serialize every turn again. Without one,
 * every request is encoded afresh: the same parameters and bytes, only slower for a long
 * session.
 *
 * Lifetime: the owner's. Bound: each sealed message's form weakly by the message (one per
 * message), the encoding contexts weakly by `ToolIdMap` (one per distinct target the map was
 * sent to), per history (weakly by its first message) the closed turns of its leading messages
 * and their UTF-8 JSON in one growing buffer (core's `WireRuns`, decision 0201), each encoded contents array's JSON weakly by the array (so for as long as the
 * parameters live). One memory serves one encoder (one adapter); never share it.
 */
export class GeminiWireMemory {
  /** Each sealed message's form, under the context object of the target it was encoded for. */
  readonly forms = new SealedWireForms<GeminiMessageForm>();
  /** Per history, its leading messages' closed turns and their UTF-8 JSON (decision 0201). */
  readonly runs = new WireRuns<Content>();
  readonly #contexts = new WeakMap<ToolIdMap, Map<string, object>>();
  readonly #written = new WeakMap<readonly Content[], WrittenContents>();

  /**
   * The object standing for encoding under `toolIdMap` for the target `key` names (its model
   * and what it accepts): the same object for the same map and key, so a form is reused only
   * for the target it was made for.
   */
  context(toolIdMap: ToolIdMap, key: string): object {
    let byKey = this.#contexts.get(toolIdMap);
    if (byKey === undefined) {
      byKey = new Map();
      this.#contexts.set(toolIdMap, byKey);
    }
    let context = byKey.get(key);
    if (context === undefined) {
      context = Object.freeze({ key });
      byKey.set(key, context);
    }
    return context;
  }

  /** Records that `contents` (a request's `contents`) is written as `bytes` (UTF-8 JSON). */
  markContents(contents: readonly Content[], bytes: Uint8Array): void {
    this.#written.set(contents, { contents: contents.slice(), bytes });
  }

  /**
   * The JSON recorded for `contents` as UTF-8, when the array still holds the same turns (a
   * turn put in or taken out since makes it unknown); else null. Not to be changed.
   */
  contentsBytes(contents: readonly Content[]): Uint8Array | null {
    const written = this.#written.get(contents);
    if (written === undefined || written.contents.length !== contents.length) return null;
    for (let i = 0; i < contents.length; i++) {
      if (contents[i] !== written.contents[i]) return null;
    }
    return written.bytes;
  }

  /** {@link contentsBytes} as text. */
  contentsJson(contents: readonly Content[]): string | null {
    const bytes = this.contentsBytes(contents);
    return bytes === null ? null : new TextDecoder().decode(bytes);
  }
}

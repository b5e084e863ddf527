import type Anthropic from '@anthropic-ai/sdk';
import type { ToolIdMap } from '@yourtool/core';
import { HistoryMemo, SealedPrefixMemo, SealedWireForms } from '@yourtool/core/adapter';
import { type ByteRun, emptyByteRun } from './byte-run.js';
import type { MessageForm } from './message-forms.js';

/**
 * What is remembered over the sealed messages a history starts with, per `ToolIdMap`
 * (decision 0149): their forms, and the turns they make up as far as those can no longer
 * change, with those turns' JSON. A request then reads the remembered turns as a whole instead
 * of looking each message up, and its body copies their bytes in one piece.
 */
export interface TurnsPrefix {
  /** The kept forms of the first `forms.length` messages. */
  forms: MessageForm[];
  /** A message whose form may not be kept was met: nothing after it is folded. */
  stopped: boolean;
  /** The tool names the forms renamed, in order of first use (each a WARN per request). */
  renamed: string[];
  /** How many forms make up `closed` (the turns a later message of another role closed). */
  closedForms: number;
  /** The closed turns: later messages cannot merge into them. */
  closed: Anthropic.MessageParam[];
  /** The UTF-8 JSON of the closed turns, joined by commas (`bytes[0 .. length)`). */
  json: ByteRun;
}

/** The closed turns a turns array starts with, and their JSON, as the encoder handed them out. */
export interface ClosedRun {
  closed: readonly Anthropic.MessageParam[];
  bytes: Uint8Array;
  length: number;
}

function emptyPrefix(): TurnsPrefix {
  return {
    forms: [],
    stopped: false,
    renamed: [],
    closedForms: 0,
    closed: [],
    json: emptyByteRun(),
  };
}

/**
 * Everything the Anthropic codec remembers between requests (decisions 0149, 0165), held by
 * its owner instead of the codec's modules: an `AnthropicAdapter` makes one and passes it to
 * `toAnthropicParams` (as `context.memory`) and to the request body writer, so the codec's
 * functions stay pure functions of what they are given. Without one, every request is encoded
 * afresh: the same parameters and bytes, only slower for a long session.
 *
 * Lifetime: the owner's (an adapter's memory lives and dies with the adapter). Bound: nothing
 * is held strongly by key: the prepared history as core's `HistoryMemo` bounds it; each sealed
 * message's form weakly by the message (one form per message); each history's remembered
 * turns weakly by its first message (at most four `ToolIdMap`s per history); each map's key
 * weakly by the map; each encoded request's closed turns weakly by its `messages` array (so
 * for as long as the parameters live). Two adapters may share one memory, being the same
 * encoder; one memory is never shared with another encoder.
 */
export class AnthropicWireMemory {
  /** What `prepareHistory` remembers over each history's sealed prefix, per target. */
  readonly history = new HistoryMemo();
  /** Each sealed message's wire form, under the `ToolIdMap` it was encoded with. */
  readonly forms = new SealedWireForms<MessageForm>();
  /** The remembered turns of each history's sealed prefix, per `ToolIdMap` ({@link mapKey}). */
  readonly prefixes = new SealedPrefixMemo<TurnsPrefix>(emptyPrefix);
  readonly #mapKeys = new WeakMap<ToolIdMap, string>();
  #nextMapKey = 0;
  readonly #closedRuns = new WeakMap<readonly Anthropic.MessageParam[], ClosedRun>();

  /** A key per `ToolIdMap` for {@link prefixes}: the forms depend on the map's links. */
  mapKey(toolIdMap: ToolIdMap): string {
    let key = this.#mapKeys.get(toolIdMap);
    if (key === undefined) {
      key = `map ${this.#nextMapKey++}`;
      this.#mapKeys.set(toolIdMap, key);
    }
    return key;
  }

  /**
   * Records that `turns` (a request's `messages`) starts with `closed`, whose JSON is `json` (a
   * snapshot: the run may grow later, never change what it holds). The body writer checks it
   * still does before it uses the bytes.
   */
  markClosedTurns(
    turns: readonly Anthropic.MessageParam[],
    closed: readonly Anthropic.MessageParam[],
    json: ByteRun,
  ): void {
    if (closed.length > 0) {
      this.#closedRuns.set(turns, { closed, bytes: json.bytes, length: json.length });
    }
  }

  /** The remembered closed turns `turns` still starts with, and their JSON; or null. */
  closedStart(turns: readonly Anthropic.MessageParam[]): ClosedRun | null {
    const run = this.#closedRuns.get(turns);
    if (run === undefined || run.closed.length > turns.length) return null;
    // the array may have been changed since (a turn put before them): then nothing is known
    for (let i = 0; i < run.closed.length; i++) if (turns[i] !== run.closed[i]) return null;
    return run;
  }
}

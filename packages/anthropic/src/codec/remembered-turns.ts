import type Anthropic from '@anthropic-ai/sdk';
import { type Message, SealedPrefixMemo, type ToolIdMap } from '@yourtool/core';
import { rememberedTurnJson } from './body.js';
import { encodeForm, type MessageForm, mergeTurns, remembered } from './message-forms.js';

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

/** A growing byte buffer. */
export interface ByteRun {
  bytes: Uint8Array;
  length: number;
}

const COMMA = 0x2c;

function append(run: ByteRun, part: Uint8Array): void {
  const needed = run.length + part.length + 1;
  if (needed > run.bytes.length) {
    const grown = new Uint8Array(Math.max(needed, run.bytes.length * 2));
    grown.set(run.bytes.subarray(0, run.length));
    run.bytes = grown;
  }
  if (run.length > 0) run.bytes[run.length++] = COMMA;
  run.bytes.set(part, run.length);
  run.length += part.length;
}

const prefixes = new SealedPrefixMemo<TurnsPrefix>(() => ({
  forms: [],
  stopped: false,
  renamed: [],
  closedForms: 0,
  closed: [],
  json: { bytes: new Uint8Array(0), length: 0 },
}));

/** A key per map: the forms depend on the map's links. */
const mapKeys = new WeakMap<ToolIdMap, string>();
let nextMapKey = 0;

function keyOf(toolIdMap: ToolIdMap): string {
  let key = mapKeys.get(toolIdMap);
  if (key === undefined) {
    key = `map ${nextMapKey++}`;
    mapKeys.set(toolIdMap, key);
  }
  return key;
}

/** Takes one more sealed message into `state` (see {@link TurnsPrefix}). */
function fold(state: TurnsPrefix, message: Message, toolIdMap: ToolIdMap): void {
  if (state.stopped) return;
  const encode = (m: Message) => encodeForm(m, toolIdMap);
  const form = remembered.get(message, toolIdMap, encode);
  if (!remembered.has(message, toolIdMap)) {
    state.stopped = true;
    return;
  }
  const before = state.forms.at(-1);
  if (before !== undefined && before.role !== form.role) {
    // the forms since the last closed turn are one turn, which this message closes
    const [turn] = mergeTurns(state.forms.slice(state.closedForms));
    if (turn) {
      state.closed.push(turn);
      append(state.json, rememberedTurnJson(turn));
    }
    state.closedForms = state.forms.length;
  }
  state.forms.push(form);
  for (const name of form.renamed) if (!state.renamed.includes(name)) state.renamed.push(name);
}

/** The remembered turns of `messages`' sealed prefix under `toolIdMap`. */
export function turnsPrefix(messages: readonly Message[], toolIdMap: ToolIdMap): TurnsPrefix {
  return prefixes.run(
    messages,
    (state, message) => fold(state, message, toolIdMap),
    keyOf(toolIdMap),
  ).state;
}

import type { Message } from './schemas/message.js';

/** A growing byte buffer: `bytes[0 .. length)` hold what was written so far. */
interface ByteRun {
  bytes: Uint8Array;
  length: number;
}

/**
 * The remembered run of one history: the wire items of its leading messages (after an optional
 * head item, such as a system message), their JSON as UTF-8 joined by commas, and the points
 * where the run may be cut (after the head and after a message whose items are complete).
 */
interface Run<W> {
  context: object;
  head: string | null;
  /** The messages covered, in order (compared by identity). */
  messages: Message[];
  wires: W[];
  bytes: ByteRun;
  /** Per cut point, ascending: messages covered, wire items and bytes written. */
  cutMessages: number[];
  cutWires: number[];
  cutBytes: number[];
}

/** What one request adds to a run: the messages it then covers, and their items and JSON. */
interface Growth<W> {
  covered: number;
  pieces: string[];
  wires: W[];
}

/** How a request's list is written: remembered bytes in one piece, then the rest's JSON. */
export interface WrittenList {
  /** The UTF-8 JSON of the list's first members, joined by commas (a view: never change it). */
  prefix: Uint8Array;
  /** The JSON of the members after them, joined by commas (`''` when there are none). */
  rest: string;
}

const COMMA = 0x2c;
const encoder = new TextEncoder();

/** Appends `,` (unless the run is empty) and `text` as UTF-8, growing the buffer when needed. */
function append(run: ByteRun, text: string): void {
  // UTF-8 takes at most three bytes per UTF-16 code unit
  const needed = run.length + 1 + text.length * 3;
  if (needed > run.bytes.length) {
    // a new buffer: views of the old one handed out for a body stay as they were
    const grown = new Uint8Array(Math.max(needed, run.bytes.length * 2));
    grown.set(run.bytes.subarray(0, run.length));
    run.bytes = grown;
  }
  if (run.length > 0) run.bytes[run.length++] = COMMA;
  run.length += encoder.encodeInto(text, run.bytes.subarray(run.length)).written;
}

/**
 * One request's encoding of a list (a request's messages, input items or contents) on top of a
 * remembered run: starts with the run's items for the leading messages the history still has,
 * takes the items of the rest as they are encoded, and at the end grows the run by what was
 * encoded up to the last cut point while every item was kept (see {@link WireRuns.resume}).
 */
export class RunTail<W> {
  /** The request's list: the remembered items, then each one pushed (a fresh array). */
  readonly out: W[];
  /** The first message to encode (those before it are in {@link RunTail.out} already). */
  readonly from: number;
  /** Whether the head item is in {@link RunTail.out} already. */
  readonly headDone: boolean;
  readonly #runs: WireRuns<W>;
  readonly #messages: readonly Message[];
  readonly #run: Run<W>;
  /** The run's cut point resumed from (-1: none, the run starts empty). */
  readonly #resumed: number;
  /** JSON pieces pushed since the resumed cut. */
  readonly #pieces: string[] = [];
  #kept = true;
  /** The last cut while everything was kept: messages covered, pieces and items written. */
  #cutMessages: number;
  #cutPieces = 0;
  #cutWires: number;

  /** Internal: made by {@link WireRuns.resume}. */
  constructor(runs: WireRuns<W>, messages: readonly Message[], run: Run<W>, resumed: number) {
    this.#runs = runs;
    this.#messages = messages;
    this.#run = run;
    this.#resumed = resumed;
    this.headDone = resumed >= 0;
    this.from = resumed < 0 ? 0 : (run.cutMessages[resumed] as number);
    this.out = resumed < 0 ? [] : run.wires.slice(0, run.cutWires[resumed]);
    this.#cutMessages = resumed < 0 ? -1 : this.from;
    this.#cutWires = this.out.length;
  }

  /** Whether every item pushed so far was kept (so may still go into the run: freeze it). */
  get kept(): boolean {
    return this.#kept;
  }

  /** Appends encoded items and their JSON (joined by commas); `kept`: they never change. */
  push(wires: readonly W[], json: string, kept: boolean): void {
    for (const wire of wires) this.out.push(wire);
    if (!kept) this.#kept = false;
    if (json !== '') this.#pieces.push(json);
  }

  /** Marks that the head's items and the first `covered` messages' are all in `out`. */
  cut(covered: number): void {
    if (!this.#kept) return;
    this.#cutMessages = covered;
    this.#cutPieces = this.#pieces.length;
    this.#cutWires = this.out.length;
  }

  /** Grows the remembered run to the last cut; returns how the list is written. */
  finish(): WrittenList {
    const start = this.#resumed < 0 ? 0 : (this.#run.cutWires[this.#resumed] as number);
    const prefix = this.#runs.extend(this.#messages, this.#run, this.#resumed, {
      covered: this.#cutMessages,
      pieces: this.#pieces.slice(0, this.#cutPieces),
      wires: this.out.slice(start, this.#cutWires),
    });
    if (prefix === null) return { prefix: new Uint8Array(0), rest: this.#pieces.join(',') };
    return { prefix, rest: this.#pieces.slice(this.#cutPieces).join(',') };
  }
}

/**
 * The remembered runs of one encoder (decisions 0193, 0201): per history, weakly by its first
 * message, the wire items `W` of the longest run of leading messages whose forms were all kept,
 * and their JSON as UTF-8 in one growing buffer. A request on a history that grew costs one
 * identity comparison per remembered message, one array copy and the encoding of its new
 * messages; its body copies the remembered bytes in one piece. A history cut back (or forked)
 * gets a copy of the shared part, so a body written earlier never changes.
 *
 * Lifetime: its owner's (an adapter's wire memory). Bound: nothing held strongly by key; one run
 * per history, dropped with the history's first message. Never share one between encoders.
 */
export class WireRuns<W> {
  readonly #runs = new WeakMap<Message, Run<W>>();

  /**
   * Starts a request's list on `messages` (the prepared history) under `context` (what the
   * forms depend on, such as the `ToolIdMap`) with `head` (the text of a head item, or null):
   * the remembered items of its leading messages that are still the same objects, as far as
   * the last cut point among them and within the first `upTo` messages (an encoder whose items
   * may join across messages asks again with less when the next message would join the last).
   */
  resume(
    messages: readonly Message[],
    context: object,
    head: string | null,
    upTo: number = messages.length,
  ): RunTail<W> {
    const first = messages[0];
    const run = first === undefined ? undefined : this.#runs.get(first);
    if (run !== undefined && run.context === context && run.head === head) {
      const known = run.messages;
      const limit = Math.min(known.length, messages.length, upTo);
      let same = 0;
      while (same < limit && known[same] === messages[same]) same++;
      let cut = run.cutMessages.length - 1;
      while (cut >= 0 && (run.cutMessages[cut] as number) > same) cut--;
      if (cut >= 0) return new RunTail(this, messages, run, cut);
    }
    // a new run, which replaces the history's remembered one if this request makes any
    const fresh: Run<W> = {
      context,
      head,
      messages: [],
      wires: [],
      bytes: { bytes: new Uint8Array(0), length: 0 },
      cutMessages: [],
      cutWires: [],
      cutBytes: [],
    };
    return new RunTail(this, messages, fresh, -1);
  }

  /**
   * Internal (called by {@link RunTail.finish}): grows `run` (cut back to its cut point
   * `resumed` first, -1: a new run) by `growth`; returns the bytes of the items it then covers
   * (a view), or null when it covers nothing.
   */
  extend(
    messages: readonly Message[],
    run: Run<W>,
    resumed: number,
    growth: Growth<W>,
  ): Uint8Array | null {
    const first = messages[0];
    if (growth.covered < 0 || first === undefined) return null;
    const known = resumed < 0 ? 0 : (run.cutMessages[resumed] as number);
    if (resumed >= 0 && growth.covered === known) {
      return run.bytes.bytes.subarray(0, run.cutBytes[resumed]);
    }
    let grown = run;
    if (resumed < 0) this.#runs.set(first, grown);
    else if (resumed < run.cutMessages.length - 1) {
      grown = cutBack(run, resumed);
      this.#runs.set(first, grown);
    }
    for (let i = known; i < growth.covered; i++) grown.messages.push(messages[i] as Message);
    for (const wire of growth.wires) grown.wires.push(wire);
    for (const piece of growth.pieces) append(grown.bytes, piece);
    grown.cutMessages.push(growth.covered);
    grown.cutWires.push(grown.wires.length);
    grown.cutBytes.push(grown.bytes.length);
    return grown.bytes.bytes.subarray(0, grown.bytes.length);
  }
}

/** `run` as far as its cut point `cut`, copied: bodies written from its bytes stay as they were. */
function cutBack<W>(run: Run<W>, cut: number): Run<W> {
  const length = run.cutBytes[cut] as number;
  const keep = cut + 1;
  return {
    ...run,
    messages: run.messages.slice(0, run.cutMessages[cut]),
    wires: run.wires.slice(0, run.cutWires[cut]),
    bytes: { bytes: run.bytes.bytes.slice(0, length), length },
    cutMessages: run.cutMessages.slice(0, keep),
    cutWires: run.cutWires.slice(0, keep),
    cutBytes: run.cutBytes.slice(0, keep),
  };
}

/**
 * The name of the latest tool use of `id` among `messages[0 .. end)`, or undefined. An encoder
 * resumed on a run reads here the wire name a run's tool use went out with: a kept form's tool
 * use goes out under its own name (a renamed one logs a WARN, so is never kept).
 */
export function runToolUseName(
  messages: readonly Message[],
  end: number,
  id: string,
): string | undefined {
  // a tool result answers a recent tool use, so the search backwards stops early
  for (let i = end - 1; i >= 0; i--) {
    const message = messages[i] as Message;
    if (message.role !== 'assistant') continue;
    for (let j = message.content.length - 1; j >= 0; j--) {
      const block = message.content[j];
      if (block?.type === 'tool_use' && block.id === id) return block.name;
    }
  }
  return undefined;
}

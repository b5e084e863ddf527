import type Anthropic from '@anthropic-ai/sdk';
import type { ByteRun } from './remembered-turns.js';

const utf8 = (text: string): Uint8Array => Buffer.from(text, 'utf8');

/** The UTF-8 JSON of a turn that is remembered (written once, kept by the remembered prefix). */
export function rememberedTurnJson(turn: Anthropic.MessageParam): Uint8Array {
  return utf8(JSON.stringify(turn));
}

/** The closed turns a turns array starts with, and their JSON, as the encoder handed them out. */
interface ClosedRun {
  closed: readonly Anthropic.MessageParam[];
  bytes: Uint8Array;
  length: number;
}

const closedRuns = new WeakMap<readonly Anthropic.MessageParam[], ClosedRun>();

/**
 * Records that `turns` starts with `closed`, whose JSON is `json` (a snapshot: the run may grow
 * later, never change what it holds). The body checks it still does before it uses the bytes.
 */
export function markClosedTurns(
  turns: readonly Anthropic.MessageParam[],
  closed: readonly Anthropic.MessageParam[],
  json: ByteRun,
): void {
  if (closed.length > 0) closedRuns.set(turns, { closed, bytes: json.bytes, length: json.length });
}

/** How many of `turns` are the remembered closed turns with known JSON, and that JSON. */
function closedStart(turns: readonly Anthropic.MessageParam[]): ClosedRun | null {
  const run = closedRuns.get(turns);
  if (run === undefined || run.closed.length > turns.length) return null;
  // the array may have been changed since (a turn put before them): then nothing is known
  for (let i = 0; i < run.closed.length; i++) if (turns[i] !== run.closed[i]) return null;
  return run;
}

const OPEN = utf8('{');
const COMMA = utf8(',');
const CLOSE = utf8('}');
const OPEN_LIST = utf8('[');
const CLOSE_LIST = utf8(']');

/** The parts of a `messages` array's JSON: remembered bytes in one piece, the rest written now. */
function messagesParts(turns: readonly Anthropic.MessageParam[], parts: Uint8Array[]): void {
  parts.push(OPEN_LIST);
  const run = closedStart(turns);
  let from = 0;
  if (run !== null) {
    parts.push(run.bytes.subarray(0, run.length));
    from = run.closed.length;
  }
  for (let i = from; i < turns.length; i++) {
    if (i > 0) parts.push(COMMA);
    parts.push(utf8(JSON.stringify(turns[i])));
  }
  parts.push(CLOSE_LIST);
}

/**
 * A Messages API request body as UTF-8 JSON: exactly the bytes of `JSON.stringify(body)`, with
 * the remembered turns a session's history starts with copied in one piece (decision 0149). A
 * long session's body then costs its new turns and one copy, instead of serializing, measuring
 * and encoding the whole history again on every request.
 */
export function anthropicRequestBody(
  body: Readonly<Anthropic.MessageCreateParams> | Readonly<Record<string, unknown>>,
): Uint8Array {
  const parts: Uint8Array[] = [];
  for (const [key, value] of Object.entries(body)) {
    // what JSON.stringify leaves out of an object
    if (value === undefined || typeof value === 'function' || typeof value === 'symbol') continue;
    parts.push(parts.length === 0 ? OPEN : COMMA, utf8(`${JSON.stringify(key)}:`));
    if (key === 'messages' && Array.isArray(value)) {
      messagesParts(value as Anthropic.MessageParam[], parts);
    } else {
      parts.push(utf8(JSON.stringify(value)));
    }
  }
  if (parts.length === 0) parts.push(OPEN);
  parts.push(CLOSE);
  return Buffer.concat(parts);
}

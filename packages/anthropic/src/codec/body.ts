import type Anthropic from '@anthropic-ai/sdk';
import { utf8 } from './byte-run.js';
import type { AnthropicWireMemory } from './wire-memory.js';

const OPEN = utf8('{');
const COMMA = utf8(',');
const CLOSE = utf8('}');
const OPEN_LIST = utf8('[');
const CLOSE_LIST = utf8(']');

/** The parts of a `messages` array's JSON: remembered bytes in one piece, the rest written now. */
function messagesParts(
  turns: readonly Anthropic.MessageParam[],
  parts: Uint8Array[],
  memory: AnthropicWireMemory | undefined,
): void {
  parts.push(OPEN_LIST);
  const run = memory?.closedStart(turns) ?? null;
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
 * and encoding the whole history again on every request. The turns are looked up in `memory`
 * (the one the parameters were encoded with) by the `messages` array; without it, or for an
 * array it did not hand out, every turn is written now.
 */
export function anthropicRequestBody(
  body: Readonly<Anthropic.MessageCreateParams> | Readonly<Record<string, unknown>>,
  memory?: AnthropicWireMemory,
): Uint8Array {
  const parts: Uint8Array[] = [];
  for (const [key, value] of Object.entries(body)) {
    // what JSON.stringify leaves out of an object
    if (value === undefined || typeof value === 'function' || typeof value === 'symbol') continue;
    parts.push(parts.length === 0 ? OPEN : COMMA, utf8(`${JSON.stringify(key)}:`));
    if (key === 'messages' && Array.isArray(value)) {
      messagesParts(value as Anthropic.MessageParam[], parts, memory);
    } else {
      parts.push(utf8(JSON.stringify(value)));
    }
  }
  if (parts.length === 0) parts.push(OPEN);
  parts.push(CLOSE);
  return Buffer.concat(parts);
}

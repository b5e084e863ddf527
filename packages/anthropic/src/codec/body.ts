import type Anthropic from '@anthropic-ai/sdk';

/**
 * The UTF-8 JSON of each remembered turn (a sealed message's wire form as a turn of its own,
 * decision 0149), written the first time a request body holds it. The turns are frozen and
 * only ever replaced, never changed, so their bytes stay right.
 */
const turnBytes = new WeakMap<object, { bytes: Uint8Array | null }>();

/** Marks a frozen turn whose JSON bytes may be kept for later request bodies. */
export function rememberTurn(turn: Readonly<Anthropic.MessageParam>): void {
  turnBytes.set(turn, { bytes: null });
}

const utf8 = (text: string): Uint8Array => Buffer.from(text, 'utf8');

/** The JSON bytes of one turn: remembered for a remembered turn, else written now. */
function turnJson(turn: Anthropic.MessageParam): Uint8Array {
  const known = turnBytes.get(turn);
  if (known === undefined) return utf8(JSON.stringify(turn));
  known.bytes ??= utf8(JSON.stringify(turn));
  return known.bytes;
}

const OPEN = utf8('{');
const COMMA = utf8(',');
const CLOSE = utf8('}');
const OPEN_LIST = utf8('[');
const CLOSE_LIST = utf8(']');

/**
 * A Messages API request body as UTF-8 JSON: exactly the bytes of `JSON.stringify(body)`, with
 * each remembered turn's bytes written once and reused by every later request that carries it.
 * A long session's body then costs its new turns and one copy, instead of serializing, measuring
 * and encoding the whole history again on every request (decision 0149).
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
      parts.push(OPEN_LIST);
      for (let i = 0; i < value.length; i++) {
        if (i > 0) parts.push(COMMA);
        parts.push(turnJson(value[i] as Anthropic.MessageParam));
      }
      parts.push(CLOSE_LIST);
    } else {
      parts.push(utf8(JSON.stringify(value)));
    }
  }
  if (parts.length === 0) parts.push(OPEN);
  parts.push(CLOSE);
  return Buffer.concat(parts);
}

import { COMMA, concat, utf8 } from './json-bytes.js';
import type { OllamaWireMemory } from './wire-memory.js';

const OPEN = utf8('{');
const CLOSE = utf8('}');

/**
 * An `/api/chat` request body as UTF-8 JSON: exactly the bytes of `JSON.stringify(body)`, with
 * the `messages` array's JSON taken from `memory` when the codec recorded it (decision 0195):
 * a long session's remembered messages are copied in one piece instead of being serialized
 * and encoded again on every request. Without `memory`, or for an array it did not record,
 * every field is serialized now.
 */
export function ollamaChatRequestBody(body: object, memory?: OllamaWireMemory): Uint8Array {
  const parts: Uint8Array[] = [OPEN];
  for (const key of Object.keys(body)) {
    const value: unknown = (body as Record<string, unknown>)[key];
    // what JSON.stringify leaves out of an object
    if (value === undefined || typeof value === 'function' || typeof value === 'symbol') continue;
    if (parts.length > 1) parts.push(COMMA);
    parts.push(utf8(`${JSON.stringify(key)}:`));
    const known =
      key === 'messages' && Array.isArray(value) && memory ? memory.messagesJson(value) : null;
    if (known === null) parts.push(utf8(JSON.stringify(value)));
    else parts.push(...known);
  }
  parts.push(CLOSE);
  return concat(parts);
}

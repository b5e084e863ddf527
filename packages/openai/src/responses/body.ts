import { jsonBodyBytes } from '../codec/json-body.js';
import type { OpenAIResponsesWireMemory } from './wire-memory.js';

/**
 * A Responses request body as UTF-8 JSON: exactly the bytes of `JSON.stringify(body)`, with the
 * remembered run of the `input` array copied in one piece (decision 0193), so a long session's
 * body costs its new items and one copy. Without `memory`, or for an array it did not record,
 * every field is serialized now.
 */
export function responsesRequestBytes(
  body: Readonly<Record<string, unknown>>,
  memory?: OpenAIResponsesWireMemory,
): Uint8Array {
  return jsonBodyBytes(body, 'input', (list) => memory?.inputWritten(list) ?? null);
}

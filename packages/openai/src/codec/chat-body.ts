import type { OpenAIChatMessage } from './chat-messages.js';
import type { OpenAIChatWireMemory } from './chat-wire-memory.js';
import { jsonBodyBytes } from './json-body.js';

/**
 * A Chat Completions request body as JSON text: exactly `JSON.stringify(body)`, with the
 * `messages` array's JSON taken from `memory` when the codec recorded it (decision 0191), so a
 * long session's remembered messages are not serialized again on every request. Without
 * `memory`, or for an array it did not record, every field is serialized now.
 */
export function chatRequestBody(
  body: Readonly<Record<string, unknown>>,
  memory?: OpenAIChatWireMemory,
): string {
  let text = '{';
  for (const key of Object.keys(body)) {
    const value = body[key];
    // what JSON.stringify leaves out of an object
    if (value === undefined || typeof value === 'function' || typeof value === 'symbol') continue;
    if (text.length > 1) text += ',';
    const known =
      key === 'messages' && Array.isArray(value) && memory ? memory.messagesJson(value) : null;
    text += `${JSON.stringify(key)}:${known ?? JSON.stringify(value)}`;
  }
  return `${text}}`;
}

/**
 * A Chat Completions request body as UTF-8 JSON: exactly the bytes of `JSON.stringify(body)`,
 * with the remembered run of the `messages` array copied in one piece (decision 0193), so a long
 * session's body costs its new messages and one copy. Without `memory`, or for an array it did
 * not record, every field is serialized now.
 */
export function chatRequestBytes(
  body: Readonly<Record<string, unknown>>,
  memory?: OpenAIChatWireMemory,
): Uint8Array {
  // an array the memory did not record is unknown to it, whatever its members are
  const written = (list: readonly unknown[]) =>
    memory?.messagesWritten(list as readonly OpenAIChatMessage[]) ?? null;
  return jsonBodyBytes(body, 'messages', written);
}

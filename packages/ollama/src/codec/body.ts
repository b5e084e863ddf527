import type { OllamaWireMemory } from './wire-memory.js';

/**
 * An `/api/chat` request body as JSON text: exactly `JSON.stringify(body)`, with the `messages`
 * array's JSON taken from `memory` when the codec recorded it (decision 0195), so a long
 * session's remembered messages are not serialized again on every request. Without `memory`,
 * or for an array it did not record, every field is serialized now.
 */
export function ollamaChatRequestBody(body: object, memory?: OllamaWireMemory): string {
  let text = '{';
  for (const key of Object.keys(body)) {
    const value: unknown = (body as Record<string, unknown>)[key];
    // what JSON.stringify leaves out of an object
    if (value === undefined || typeof value === 'function' || typeof value === 'symbol') continue;
    if (text.length > 1) text += ',';
    const known =
      key === 'messages' && Array.isArray(value) && memory ? memory.messagesJson(value) : null;
    text += `${JSON.stringify(key)}:${known ?? JSON.stringify(value)}`;
  }
  return `${text}}`;
}

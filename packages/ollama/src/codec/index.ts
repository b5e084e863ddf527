/**
 * The Ollama codec: pure functions between the canonical format and the `/api/chat` wire
 * format, usable without HTTP.
 *
 * @packageDocumentation
 */
import { type ContentBlock, createMessage, type ToolIdMap } from '@yourtool/core';
import { encodeOllamaMessages, type OllamaWireMessage } from './request.js';
import { decodeOllamaMessage } from './response.js';

export * from './errors.js';
export * from './request.js';
export * from './response.js';
export * from './stream.js';
export * from './tool-names.js';

/**
 * Encodes assistant content as it goes on the wire, then decodes the wire message as a reply:
 * the codec's round trip, used by the conformance property test. Tool call ids survive because
 * the adapter sends the canonical id as the call's `id`.
 */
export function roundTripOllamaContent(
  content: ContentBlock[],
  toolIdMap: ToolIdMap,
): ContentBlock[] {
  const message = createMessage({ session_id: 'sess_roundtrip', role: 'assistant', content });
  const [wire] = encodeOllamaMessages([message], toolIdMap);
  const decoded = JSON.parse(JSON.stringify(wire ?? {})) as OllamaWireMessage;
  return decodeOllamaMessage(decoded, toolIdMap);
}

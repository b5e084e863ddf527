/**
 * The Gemini codec: pure functions between the canonical format and the `generateContent`
 * wire format, usable without HTTP.
 *
 * @packageDocumentation
 */
import { type Content, FinishReason } from '@google/genai';
import { type ContentBlock, createMessage, type ToolIdMap } from '@yourtool/core';
import { encodeGeminiContents } from './request.js';
import { fromGeminiResponse } from './response.js';

export * from './errors.js';
export * from './finish.js';
export * from './request.js';
export * from './response.js';
export * from './signatures.js';
export * from './stream.js';
export * from './tool-names.js';
export {
  type AnsweredCall,
  type EncodedToolResult,
  encodeToolResult,
  FUNCTION_RESPONSE_IMAGE_MEDIA_TYPES,
} from './tool-results.js';
export * from './usage.js';
export { geminiPartJson } from './wire-json.js';
export { type GeminiMessageForm, GeminiWireMemory } from './wire-memory.js';

/**
 * Encodes assistant content as it goes on the wire, then decodes the wire turn as a reply:
 * the codec's round trip, used by the conformance property test. Tool use ids survive because
 * the adapter always sends the mapped id as the function call's `id`.
 */
export function roundTripGeminiContent(
  content: ContentBlock[],
  toolIdMap: ToolIdMap,
): ContentBlock[] {
  const message = createMessage({ session_id: 'sess_roundtrip', role: 'assistant', content });
  const [turn] = encodeGeminiContents([message], { toolIdMap });
  const wire = JSON.parse(JSON.stringify(turn ?? { role: 'model', parts: [] })) as Content;
  return fromGeminiResponse(
    { candidates: [{ content: wire, finishReason: FinishReason.STOP }] },
    toolIdMap,
  ).content;
}

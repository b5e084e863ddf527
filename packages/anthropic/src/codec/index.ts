/**
 * The Anthropic codec: pure functions between the canonical format and the Messages API wire
 * format, usable without HTTP. What they remember between requests is passed in by its owner
 * (`AnthropicWireMemory`, which the adapter holds; decision 0165).
 *
 * @packageDocumentation
 */
import type Anthropic from '@anthropic-ai/sdk';
import { type ContentBlock, createMessage, type ToolIdMap } from '@yourtool/core';
import { encodeAnthropicMessages } from './request.js';
import { decodeAnthropicContent } from './response.js';

export * from './errors.js';
export * from './request.js';
export * from './response.js';
export * from './stream.js';
export * from './tool-names.js';

/**
 * Encodes assistant content as it goes on the wire, then decodes the wire blocks as a reply:
 * the codec's round trip, used by the conformance property test.
 */
export function roundTripAnthropicContent(
  content: ContentBlock[],
  toolIdMap: ToolIdMap,
): ContentBlock[] {
  const message = createMessage({ session_id: 'sess_roundtrip', role: 'assistant', content });
  const [turn] = encodeAnthropicMessages([message], toolIdMap);
  const wire = JSON.parse(JSON.stringify(turn?.content ?? [])) as Anthropic.ContentBlock[];
  return decodeAnthropicContent(wire, toolIdMap);
}

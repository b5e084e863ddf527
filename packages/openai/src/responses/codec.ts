/**
 * The OpenAI Responses API codec: pure functions between the canonical format and the Responses
 * wire format, usable without HTTP (exported from `@yourtool/openai/codec` too).
 *
 * @packageDocumentation
 */
import { type ContentBlock, createMessage, type ToolIdMap } from '@yourtool/core';
import type OpenAI from 'openai';
import { OPENAI } from '../codec/request.js';
import { encodeAssistantItems } from './input.js';
import { decodeOpenAIResponsesOutput } from './response.js';

export * from './body.js';
export * from './errors.js';
export * from './input.js';
export * from './request.js';
export * from './response.js';
export * from './stream.js';
export * from './wire-memory.js';

/**
 * Encodes assistant content as it goes into the Responses `input` list, then decodes those items
 * as a reply's `output`: the codec's round trip, used by the conformance property test.
 */
export function roundTripOpenAIResponsesContent(
  content: ContentBlock[],
  toolIdMap: ToolIdMap,
  provider = OPENAI,
): ContentBlock[] {
  const message = createMessage({ session_id: 'sess_roundtrip', role: 'assistant', content });
  const items = encodeAssistantItems(message, {
    provider,
    toolIdMap,
    logger: { warn() {} },
    dropped: [],
  });
  const sent = JSON.parse(JSON.stringify(items)) as OpenAI.Responses.ResponseOutputItem[];
  return decodeOpenAIResponsesOutput(sent, toolIdMap, { provider }).content;
}

/**
 * The Bedrock Converse codec: pure functions between the canonical format and Converse
 * requests, replies and stream events, usable without HTTP or the SDK's client.
 *
 * @packageDocumentation
 */
import type { ContentBlock as ConverseBlock } from '@aws-sdk/client-bedrock-runtime';
import { type ContentBlock, createMessage, silentLogger, type ToolIdMap } from '@yourtool/core';
import { createToolNamer, STRICT_TOOL_NAME_RULES } from '@yourtool/core/adapter';
import { BEDROCK_FAMILIES, type BedrockFamily } from '../families.js';
import { BEDROCK } from '../provider.js';
import { encodeMessageBlocks } from './content.js';
import { decodeBedrockContent } from './response.js';

export * from './content.js';
export * from './messages.js';
export * from './request.js';
export * from './response.js';
export * from './stream.js';
export * from './thinking.js';
export * from './tools.js';

/**
 * Encodes assistant content as it goes on the wire for `family` (default Claude's rules), then
 * decodes the wire blocks as a reply: the codec's round trip, for the conformance property test.
 */
export function roundTripBedrockContent(
  content: ContentBlock[],
  toolIdMap: ToolIdMap,
  family: BedrockFamily = BEDROCK_FAMILIES.claude,
): ContentBlock[] {
  const message = createMessage({ session_id: 'sess_roundtrip', role: 'assistant', content });
  const logger = silentLogger;
  const toolName = createToolNamer({ rules: STRICT_TOOL_NAME_RULES, adapter: BEDROCK, logger });
  const wire = encodeMessageBlocks(message, { family, toolIdMap, toolName, logger });
  return decodeBedrockContent(wire.map(asSent), { toolIdMap, family });
}

/**
 * A block as it comes back from the wire: tool input through JSON (as the SDK sends a
 * document), everything else copied (bytes stay bytes), so nothing is shared with the input.
 */
function asSent(block: ConverseBlock): ConverseBlock {
  if (block.toolUse === undefined) return structuredClone(block);
  const input = JSON.parse(JSON.stringify(block.toolUse.input ?? {})) as typeof block.toolUse.input;
  return { toolUse: { ...block.toolUse, input } };
}

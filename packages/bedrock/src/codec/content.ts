import type {
  ContentBlock as ConverseBlock,
  ToolResultContentBlock as ConverseToolResultContent,
} from '@aws-sdk/client-bedrock-runtime';
import type {
  ContentBlock,
  ImageBlock,
  Logger,
  Message,
  ToolIdMap,
  ToolResultBlock,
} from '@yourtool/core';
import { reportDroppedBlock } from '@yourtool/core/adapter';
import {
  BEDROCK_IMAGE_FORMATS,
  type BedrockFamily,
  type BedrockImageMediaType,
} from '../families.js';
import { BEDROCK } from '../provider.js';

/** What encoding one message's blocks needs besides the message. */
export interface BlockEncoding {
  /** The target model's family (tool id rule, image formats). */
  family: BedrockFamily;
  /** The session's tool id map. */
  toolIdMap: ToolIdMap;
  /** The wire name of a canonical tool name (core's tool namer under Converse's rule). */
  toolName: (name: string) => string;
  /** Where dropped blocks are reported. */
  logger: Logger;
}

/** The text a tool result with nothing left to send carries (Converse refuses an empty one). */
export const EMPTY_TOOL_RESULT_TEXT = '(the tool returned no content)';

const isBlank = (text: string) => text.trim() === '';

/** Why an image cannot go to this family as bytes, or null when it can. */
function imageProblem(image: ImageBlock, family: BedrockFamily): string | null {
  if (image.source.kind !== 'base64') {
    return `Converse takes images as bytes only; a ${image.source.kind} image is not fetched by the adapter`;
  }
  if (!family.imageMediaTypes.includes(image.media_type as BedrockImageMediaType)) {
    return `the ${family.name} family on Bedrock takes ${family.imageMediaTypes.join(', ') || 'no images'}, not ${image.media_type}`;
  }
  return null;
}

/** An image as Converse bytes, or null after reporting why it was dropped. */
function encodeImage(
  image: ImageBlock,
  message: Message,
  index: number,
  encoding: BlockEncoding,
): { image: { format: 'png' | 'jpeg' | 'gif' | 'webp'; source: { bytes: Uint8Array } } } | null {
  const problem = imageProblem(image, encoding.family);
  if (problem !== null) {
    reportDroppedBlock(encoding.logger, message, {
      block_type: 'image',
      adapter: BEDROCK,
      reason: problem,
      block_index: index,
    });
    return null;
  }
  const format = BEDROCK_IMAGE_FORMATS[image.media_type as BedrockImageMediaType];
  return {
    image: { format, source: { bytes: new Uint8Array(Buffer.from(image.source.data, 'base64')) } },
  };
}

/** A tool result: blank text left out, images as bytes, `status: error` for `is_error`. */
function encodeToolResult(
  block: ToolResultBlock,
  message: Message,
  index: number,
  encoding: BlockEncoding,
): ConverseBlock {
  const content: ConverseToolResultContent[] = [];
  for (const inner of block.content) {
    if (inner.type === 'text') {
      if (!isBlank(inner.text)) content.push({ text: inner.text });
      continue;
    }
    const image = encodeImage(inner, message, index, encoding);
    if (image !== null) content.push(image);
  }
  if (content.length === 0) content.push({ text: EMPTY_TOOL_RESULT_TEXT });
  const { family, toolIdMap } = encoding;
  return {
    toolResult: {
      toolUseId: toolIdMap.toProviderId(
        family.toolIdProvider,
        block.tool_use_id,
        family.toolIdRules,
      ),
      content,
      ...(block.is_error ? { status: 'error' as const } : {}),
    },
  };
}

/** Reasoning as Converse takes it back, or null after reporting an unsigned block dropped. */
function encodeReasoning(
  block: Extract<ContentBlock, { type: 'thinking' | 'redacted_thinking' }>,
  message: Message,
  index: number,
  logger: Logger,
): ConverseBlock | null {
  if (block.type === 'redacted_thinking') {
    const bytes = new Uint8Array(Buffer.from(block.data, 'base64'));
    return { reasoningContent: { redactedContent: bytes } };
  }
  if (!block.signature) {
    reportDroppedBlock(logger, message, {
      block_type: 'thinking',
      adapter: BEDROCK,
      reason: 'Bedrock refuses reasoning sent back without its signature',
      block_index: index,
    });
    return null;
  }
  // the signature covers the exact text: sent back byte-identical, never trimmed
  return { reasoningContent: { reasoningText: { text: block.text, signature: block.signature } } };
}

/** One canonical block as a Converse block, or null when it is left out (and reported). */
function encodeBlock(
  block: ContentBlock,
  message: Message,
  index: number,
  encoding: BlockEncoding,
): ConverseBlock | null {
  const { family, toolIdMap } = encoding;
  switch (block.type) {
    case 'text':
      return isBlank(block.text) ? null : { text: block.text };
    case 'image':
      return encodeImage(block, message, index, encoding);
    case 'tool_use':
      return {
        toolUse: {
          toolUseId: toolIdMap.toProviderId(family.toolIdProvider, block.id, family.toolIdRules),
          name: encoding.toolName(block.name),
          input: block.input as Record<string, never>,
        },
      };
    case 'tool_result':
      return encodeToolResult(block, message, index, encoding);
    case 'thinking':
    case 'redacted_thinking':
      return encodeReasoning(block, message, index, encoding.logger);
  }
}

/**
 * A prepared message's blocks as Converse content blocks: blank text left out, images as bytes
 * in the formats the family takes (others dropped with a WARN), tool ids through the map under
 * the family's rule, reasoning as signed text or redacted bytes (unsigned dropped with a WARN).
 */
export function encodeMessageBlocks(message: Message, encoding: BlockEncoding): ConverseBlock[] {
  const out: ConverseBlock[] = [];
  message.content.forEach((block, index) => {
    const encoded = encodeBlock(block, message, index, encoding);
    if (encoded !== null) out.push(encoded);
  });
  return out;
}

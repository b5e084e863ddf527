import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import {
  type Logger,
  type ToolResultContentBlock,
  validateToolInput,
  YourtoolError,
} from '@yourtool/core';

/** Which call a result answers: named in every WARN about it. */
export interface ResultSource {
  server: string;
  /** The tool's MCP name. */
  tool: string;
  session_id: string;
  tool_use_id: string;
  /** The tool's `outputSchema`, when it declared one. */
  outputSchema?: Record<string, unknown> | undefined;
}

/** A failed MCP tool call, which the session hands the model as an `is_error` result. */
export class McpToolCallError extends YourtoolError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('mcp_tool_failed', message, options);
  }
}

type McpBlock = CallToolResult['content'][number];

const MEDIA_TYPE = /^[a-z]+\/[a-z0-9.+-]+$/;

function lossy(logger: Logger, source: ResultSource, blockType: string, reason: string): void {
  logger.warn(
    {
      event: 'mcp_lossy_projection',
      server: source.server,
      tool: source.tool,
      session_id: source.session_id,
      tool_use_id: source.tool_use_id,
      block_type: blockType,
      reason,
    },
    `MCP server "${source.server}" tool "${source.tool}": ${blockType} result ${reason}`,
  );
}

function byteCount(base64: string): number {
  return Math.floor((base64.replace(/=+$/, '').length * 3) / 4);
}

function imageBlock(data: string, mimeType: string): ToolResultContentBlock | null {
  const media = mimeType.toLowerCase();
  if (!media.startsWith('image/') || !MEDIA_TYPE.test(media) || data.length === 0) return null;
  return { type: 'image', source: { kind: 'base64', data }, media_type: media };
}

/** One MCP content block as canonical blocks; what has no canonical form is said in text. */
function projectBlock(
  block: McpBlock,
  logger: Logger,
  source: ResultSource,
): ToolResultContentBlock {
  switch (block.type) {
    case 'text':
      return { type: 'text', text: block.text };
    case 'image': {
      const image = imageBlock(block.data, block.mimeType);
      if (image) return image;
      lossy(
        logger,
        source,
        'image',
        `of type "${block.mimeType}" is not an image type; replaced by a note`,
      );
      return {
        type: 'text',
        text: `[image: ${block.mimeType}, ${byteCount(block.data)} bytes omitted]`,
      };
    }
    case 'audio':
      lossy(logger, source, 'audio', 'has no canonical form; replaced by a note');
      return {
        type: 'text',
        text: `[audio: ${block.mimeType}, ${byteCount(block.data)} bytes omitted]`,
      };
    case 'resource_link': {
      lossy(logger, source, 'resource_link', 'is given as text; the model cannot open it');
      const about = block.description ? ` - ${block.description}` : '';
      return { type: 'text', text: `[resource: ${block.name} <${block.uri}>${about}]` };
    }
    case 'resource':
      return projectResource(block.resource, logger, source);
    default:
      lossy(
        logger,
        source,
        'unknown',
        'is of a type this client does not know; replaced by a note',
      );
      return {
        type: 'text',
        text: `[unsupported MCP content: ${(block as { type: string }).type}]`,
      };
  }
}

function projectResource(
  resource: Extract<McpBlock, { type: 'resource' }>['resource'],
  logger: Logger,
  source: ResultSource,
): ToolResultContentBlock {
  if ('text' in resource && typeof resource.text === 'string') {
    lossy(logger, source, 'resource', 'is given as text with its URI');
    return { type: 'text', text: `[resource <${resource.uri}>]\n${resource.text}` };
  }
  const blob = 'blob' in resource && typeof resource.blob === 'string' ? resource.blob : '';
  const image = resource.mimeType ? imageBlock(blob, resource.mimeType) : null;
  if (image) {
    lossy(logger, source, 'resource', `is given as an image; its URI ${resource.uri} is dropped`);
    return image;
  }
  lossy(logger, source, 'resource', 'is binary with no canonical form; replaced by a note');
  return {
    type: 'text',
    text: `[resource <${resource.uri}>: ${resource.mimeType ?? 'binary'}, ${byteCount(blob)} bytes omitted]`,
  };
}

function sameJson(text: string, value: unknown): boolean {
  try {
    return JSON.stringify(JSON.parse(text)) === JSON.stringify(value);
  } catch {
    return false;
  }
}

/** The text of a result, for an error message. */
function resultText(blocks: readonly ToolResultContentBlock[]): string {
  return blocks
    .map((b) => (b.type === 'text' ? b.text : `[image ${b.media_type}]`))
    .join('\n')
    .trim();
}

/**
 * An MCP `tools/call` result as the canonical blocks a tool returns: text and images as they
 * are, audio, resource links and embedded resources projected with a `mcp_lossy_projection`
 * WARN, `structuredContent` as JSON text (unless a text block already carries it, as the spec
 * asks servers to) after checking it against the tool's `outputSchema`. An `isError` result or
 * structured content that breaks the schema throws {@link McpToolCallError}, which the session
 * hands the model as an `is_error` result.
 */
export function toToolResult(
  result: CallToolResult,
  logger: Logger,
  source: ResultSource,
): ToolResultContentBlock[] {
  const blocks = (result.content ?? []).map((block) => projectBlock(block, logger, source));
  if (result.isError === true) {
    throw new McpToolCallError(resultText(blocks) || `tool "${source.tool}" reported an error`);
  }
  const structured = result.structuredContent;
  if (structured !== undefined) {
    if (source.outputSchema) {
      const checked = validateToolInput({ input_schema: source.outputSchema }, structured);
      if (!checked.ok) {
        const issues = checked.issues.map(
          (i) => `${i.path.replace(/^input/, 'output')} ${i.message}`,
        );
        throw new McpToolCallError(
          `tool "${source.tool}" returned structured content that breaks its output schema: ${issues.join('; ')}`,
        );
      }
    }
    const carried = blocks.some((b) => b.type === 'text' && sameJson(b.text, structured));
    if (!carried) blocks.push({ type: 'text', text: JSON.stringify(structured) });
  } else if (source.outputSchema) {
    throw new McpToolCallError(
      `tool "${source.tool}" declares an output schema but returned no structured content`,
    );
  }
  return blocks;
}

import type { CanonicalRequest, ContentBlock, Logger } from '@yourtool/core';
import {
  canonicalToolName,
  createToolNamer,
  requestToolNames,
  STRICT_TOOL_NAME_RULES,
  type ToolNameRules,
} from '@yourtool/core/adapter';

/**
 * Maps canonical tool names to the names sent on the wire for one request (decision 0140).
 * @deprecated Use `createToolNamer` from `@yourtool/core/adapter`, which this calls (one
 * `tool_name_mapped` WARN per distinct renamed name).
 */
export function createToolNameEncoder(
  logger: Logger,
  context: { adapter: string; request_id?: string },
  rules: ToolNameRules = STRICT_TOOL_NAME_RULES,
): (name: string) => string {
  return createToolNamer({
    rules,
    adapter: context.adapter,
    logger,
    ...(context.request_id ? { requestId: context.request_id } : {}),
  });
}

/**
 * Reads the tool names of a reply back as canonical (decision 0140): a name derived from one of
 * the names the request carried (its tools and its history's tool uses) becomes that name again.
 */
export function createToolNameDecoder(
  request: Pick<CanonicalRequest, 'tools' | 'messages'>,
  rules: ToolNameRules = STRICT_TOOL_NAME_RULES,
): (wireName: string) => string {
  const names = requestToolNames(request);
  return (wireName) => canonicalToolName(wireName, names, rules);
}

/** Decoded content with each tool use's name read back through `decodeName`. */
export function withCanonicalToolNames(
  content: ContentBlock[],
  decodeName: (wireName: string) => string,
): ContentBlock[] {
  return content.map((block) =>
    block.type === 'tool_use' ? { ...block, name: decodeName(block.name) } : block,
  );
}

import type { Tool, ToolConfiguration } from '@aws-sdk/client-bedrock-runtime';
import { InvalidRequestError, type ToolDefinition } from '@yourtool/core';
import { BEDROCK } from '../provider.js';

/** The input schema a tool declared only because the history uses it gets: any object. */
const ANY_OBJECT = { type: 'object', properties: {} } as const;

/**
 * A tool's input schema with the root Converse requires (`type: "object"`): a schema without a
 * `type` gets it; one with another root type is refused, naming the tool.
 */
export function objectRootSchema(
  tool: Pick<ToolDefinition, 'name' | 'input_schema'>,
  requestId: string,
): Record<string, unknown> {
  const schema = tool.input_schema;
  if (schema.type === undefined) return { ...schema, type: 'object' };
  if (schema.type === 'object') return schema;
  throw new InvalidRequestError(
    `invalid canonical request: tools[name=${tool.name}].input_schema.type: Bedrock requires "object" at the root, got ${JSON.stringify(schema.type)}`,
    { request_id: requestId, provider: BEDROCK, retryable: false },
  );
}

/** One tool definition as a Converse `toolSpec` (an empty description falls back to the name). */
function toolSpec(name: string, description: string, schema: Record<string, unknown>): Tool {
  return {
    toolSpec: {
      name,
      // Converse refuses an empty description
      description: description.trim() === '' ? name : description,
      inputSchema: { json: schema as Record<string, never> },
    },
  };
}

/** What {@link converseToolConfig} needs. */
export interface ToolConfigInput {
  /** The request's tool definitions. */
  tools: readonly ToolDefinition[];
  /** The wire names of the tools the history uses (each declared if not offered). */
  historyNames: readonly string[];
  /** The wire name of a canonical tool name. */
  toolName: (name: string) => string;
  /** Whether a cache point goes after the tool definitions. */
  cachePoint: boolean;
  /** For the error naming a tool whose schema root is not an object. */
  requestId: string;
}

/**
 * The request's `toolConfig`, or undefined when it offers no tools and the history holds no
 * tool blocks. Converse refuses a history with tool blocks and no `toolConfig`, so a tool the
 * history used but the call does not offer is declared with a schema that takes any object.
 */
export function converseToolConfig(input: ToolConfigInput): ToolConfiguration | undefined {
  const tools: Tool[] = [];
  const declared = new Set<string>();
  for (const tool of input.tools) {
    const name = input.toolName(tool.name);
    declared.add(name);
    tools.push(toolSpec(name, tool.description, objectRootSchema(tool, input.requestId)));
  }
  for (const name of input.historyNames) {
    if (declared.has(name)) continue;
    declared.add(name);
    tools.push(toolSpec(name, name, ANY_OBJECT));
  }
  if (tools.length === 0) return undefined;
  if (input.cachePoint) tools.push({ cachePoint: { type: 'default' } });
  return { tools };
}

import { ErrorCode, McpError, type Tool } from '@modelcontextprotocol/sdk/types.js';
import type { Logger, ToolCallContext, ToolHandler, ToolResultContentBlock } from '@yourtool/core';
import { DEFAULT_TOOL_TIMEOUT_MS } from './config.js';
import type { ServerConnection } from './connection.js';
import { McpToolCallError, toToolResult } from './results.js';
import { toolSideEffects } from './side-effects.js';

/** What a handler needs to make one MCP tool callable from a session. */
export interface McpToolSpec {
  connection: ServerConnection;
  tool: Tool;
  /** The name the session registers (decision 0171). */
  name: string;
  /** The input schema in the subset (decision 0172). */
  inputSchema: Record<string, unknown>;
  logger: Logger;
}

function describe(spec: McpToolSpec): string {
  const { tool, connection } = spec;
  const text = tool.description?.trim() || tool.annotations?.title || tool.title;
  return text || `Tool "${tool.name}" of the MCP server "${connection.name}".`;
}

/** The message the model reads for a call that failed before the server answered it. */
function callFailure(error: unknown, spec: McpToolSpec, timeout: number): McpToolCallError {
  const { tool, connection } = spec;
  if (error instanceof McpError) {
    if (error.code === ErrorCode.InvalidParams) {
      return new McpToolCallError(`invalid arguments for "${tool.name}": ${error.message}`, {
        cause: error,
      });
    }
    if (error.code === ErrorCode.RequestTimeout) {
      return new McpToolCallError(
        `tool "${tool.name}" of MCP server "${connection.name}" did not answer within ${timeout / 1000} s`,
        { cause: error },
      );
    }
  }
  const message = error instanceof Error ? error.message : String(error);
  spec.logger.warn(
    { event: 'mcp_call_failed', server: connection.name, tool: tool.name, error: message },
    `MCP server "${connection.name}" tool "${tool.name}" failed: ${message}`,
  );
  return new McpToolCallError(
    `MCP server "${connection.name}" failed to run "${tool.name}": ${message}`,
    { cause: error },
  );
}

async function runTool(
  spec: McpToolSpec,
  input: Record<string, unknown>,
  context: ToolCallContext,
): Promise<ToolResultContentBlock[]> {
  const { connection, tool } = spec;
  const config = connection.config;
  const timeout =
    config.tools?.[tool.name]?.timeout_ms ?? config.timeout_ms ?? DEFAULT_TOOL_TIMEOUT_MS;
  let result: Awaited<ReturnType<ServerConnection['call']>>;
  try {
    result = await connection.call(tool.name, input, {
      signal: context.signal,
      timeout,
      resetTimeoutOnProgress: config.progress_extends_deadline === true,
      ...(config.max_total_timeout_ms ? { maxTotalTimeout: config.max_total_timeout_ms } : {}),
      onprogress: ({ progress, total, message }) =>
        context.progress({
          progress,
          ...(total === undefined ? {} : { total }),
          ...(message === undefined ? {} : { message }),
        }),
    });
  } catch (error) {
    // a cancelled turn ends as a cancellation, not as a tool error the model would read
    if (context.signal.aborted) throw context.signal.reason ?? error;
    throw callFailure(error, spec, timeout);
  }
  return toToolResult(result, spec.logger, {
    server: connection.name,
    tool: tool.name,
    session_id: context.session_id,
    tool_use_id: context.tool_use_id,
    outputSchema: tool.outputSchema as Record<string, unknown> | undefined,
  });
}

/**
 * A session tool handler for one MCP tool: registered under its derived name, it calls the
 * server under the tool's own name, with the per-tool deadline (default 120 s, replacing the
 * SDK's 60 s), the turn's AbortSignal (the SDK sends `notifications/cancelled`) and progress
 * notifications passed to `progress()`. Failures reach the model as `is_error` results.
 */
export function mcpToolHandler(spec: McpToolSpec): ToolHandler {
  return {
    definition: {
      name: spec.name,
      description: describe(spec),
      input_schema: spec.inputSchema,
      side_effects: toolSideEffects(spec.connection.config, spec.tool),
      requires_workspace: false,
    },
    run: (input, context) => runTool(spec, input, context),
  };
}

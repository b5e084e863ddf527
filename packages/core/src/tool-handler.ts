/**
 * The tool handler contract: what a session runs when a model calls a tool. It lives in core so
 * packages that make tools (an MCP bridge, a plugin) need not import the session (the dependency
 * rule of ARCHITECTURE.md); `@yourtool/session` re-exports every name.
 */

import type { ToolResultContentBlock } from './schemas/content.js';
import type { SideEffects, ToolDefinitionInput } from './schemas/tool.js';

/**
 * What a tool handler may return: text, result blocks (text and images), or a JSON value (an
 * object, an array, a number, a boolean, `null`), which is sent to the model as JSON text.
 * `undefined` (a handler that returns nothing) is an empty result. Whether a value can be
 * stored is checked when the tool returns it (BigInt, functions, symbols, circular references,
 * `undefined` inside, non-finite numbers, Maps, Sets and promises are refused; see
 * docs/decisions/0154).
 */
export type ToolOutput =
  | string
  | number
  | boolean
  | null
  | undefined
  | readonly ToolResultContentBlock[]
  | readonly unknown[]
  | object;

/** What a tool handler is told about the call it runs. */
export interface ToolCallContext {
  session_id: string;
  /** Canonical tool use id. */
  tool_use_id: string;
  /** The session's workspace path. */
  workspace_path: string;
  /** Aborts when the turn is cancelled. */
  signal: AbortSignal;
  /**
   * Reports progress while the tool runs: each call is yielded by the turn, in order, as a
   * `session.tool_progress` event. Calls after the tool settled are dropped.
   */
  progress(update: string | Record<string, unknown>): void;
}

/**
 * A tool the model may call: its definition and the function that runs it. `run` returns the
 * result as text, as blocks (text and images), or as a JSON value (object, array, number,
 * boolean, null), which the model receives as JSON text; returning nothing is an empty result.
 * A thrown error becomes a result with `is_error: true` carrying the error's message, and so
 * does a value that cannot be stored (a BigInt, a function, a circular reference, ...), with
 * its path (docs/decisions/0154).
 */
export interface ToolHandler {
  definition: ToolDefinitionInput;
  /** Tokens of this tool's result a model receives at most; default the manager's `toolResults` (decision 0155). */
  max_result_tokens?: number;
  run(input: Record<string, unknown>, context: ToolCallContext): Promise<ToolOutput> | ToolOutput;
}

/** Side effects that need the confirmation hook before a tool runs. */
export const CONFIRMED_SIDE_EFFECTS: ReadonlySet<SideEffects> = new Set([
  'write',
  'execute',
  'network',
]);

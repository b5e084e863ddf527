import {
  freezeToolDefinition,
  type SideEffects,
  type ToolDefinition,
  type ToolDefinitionInput,
  type ToolResultContentBlock,
  validateToolDefinition,
  YourtoolError,
} from '@yourtool/core';
import { checkMaxResultTokens } from './tool-result-limit.js';

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

/** A registered tool: its validated definition (frozen) and handler. */
export interface RegisteredTool {
  definition: Readonly<ToolDefinition>;
  run: ToolHandler['run'];
  /** The handler's `max_result_tokens`, when it set one. */
  max_result_tokens?: number;
}

/** Thrown when two tools are registered under one name. */
export class DuplicateToolError extends YourtoolError {
  constructor(name: string) {
    super('duplicate_tool', `a tool named "${name}" is already registered`);
  }
}

/** Side effects that need the confirmation hook before a tool runs. */
export const CONFIRMED_SIDE_EFFECTS: ReadonlySet<SideEffects> = new Set([
  'write',
  'execute',
  'network',
]);

/**
 * The tools a session offers. Definitions are validated at registration (JSON-Schema subset,
 * snake_case names): a tool outside the subset is refused here, not at the provider.
 */
export class ToolRegistry {
  readonly #tools = new Map<string, RegisteredTool>();

  constructor(tools: readonly ToolHandler[] = []) {
    for (const tool of tools) this.register(tool);
  }

  /**
   * Adds a tool; throws `ToolDefinitionError` for an invalid definition. The registry keeps a
   * frozen copy of the definition, so its token estimate is computed once.
   */
  register(tool: ToolHandler): this {
    const definition = freezeToolDefinition(
      structuredClone(validateToolDefinition(tool.definition)),
    );
    if (this.#tools.has(definition.name)) throw new DuplicateToolError(definition.name);
    checkMaxResultTokens(definition.name, tool.max_result_tokens);
    const limit =
      tool.max_result_tokens === undefined ? {} : { max_result_tokens: tool.max_result_tokens };
    this.#tools.set(definition.name, { definition, run: tool.run, ...limit });
    return this;
  }

  /** The tool registered under `name`, if any. */
  get(name: string): RegisteredTool | undefined {
    return this.#tools.get(name);
  }

  /** Every definition, in registration order. */
  definitions(): ToolDefinition[] {
    return [...this.#tools.values()].map((t) => t.definition);
  }
}

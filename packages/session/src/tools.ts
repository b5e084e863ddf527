import {
  freezeToolDefinition,
  type ToolDefinition,
  type ToolHandler,
  validateToolDefinition,
  YourtoolError,
} from '@yourtool/core';
import { checkMaxResultTokens } from './tool-result-limit.js';

// The handler contract moved to core so tool makers need not import the session; re-exported here.
export type { ToolCallContext, ToolHandler, ToolOutput } from '@yourtool/core';
export { CONFIRMED_SIDE_EFFECTS } from '@yourtool/core';

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

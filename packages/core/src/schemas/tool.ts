import type { z } from 'zod';
import { builtSchema as built, lazySchema } from '../lazy-schema.js';

/** What running a tool may change. Drives confirmation prompts and routing constraints. */
export const SideEffectsSchema = lazySchema((z) =>
  z.enum(['none', 'read', 'write', 'execute', 'network']),
);
/** A tool's declared side effects. */
export type SideEffects = z.output<typeof SideEffectsSchema>;

/**
 * Canonical tool names: snake_case, starting with a letter, at most 64 characters, which every
 * provider accepts.
 */
export const TOOL_NAME_PATTERN = /^[a-z][a-z0-9_]{0,63}$/;

/**
 * A tool the model may call. `input_schema` must stay inside the JSON-Schema subset of
 * canonical-format §5.4; check it with `validateToolDefinition`.
 */
export const ToolDefinitionSchema = lazySchema((z) =>
  z.object({
    name: z
      .string()
      .regex(TOOL_NAME_PATTERN, 'tool names are snake_case, start with a letter, max 64 chars'),
    description: z.string(),
    input_schema: z.record(z.string(), z.unknown()),
    side_effects: built(SideEffectsSchema),
    requires_workspace: z.boolean().default(true),
  }),
);
/** A tool definition. */
export type ToolDefinition = z.output<typeof ToolDefinitionSchema>;
/** A tool definition as accepted on input (defaults not yet applied). */
export type ToolDefinitionInput = z.input<typeof ToolDefinitionSchema>;

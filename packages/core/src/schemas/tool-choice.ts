import type { z } from 'zod';
import { lazySchema } from '../lazy-schema.js';

/**
 * Whether and which tool the model must call. `auto` (the default, also when absent): the model
 * decides; `none`: it must not call a tool; `required`: it must call one of the offered tools;
 * `{ type: 'tool', name }`: it must call that tool. Where a provider cannot force a call
 * (Ollama, Anthropic with thinking on), the adapter sends `auto` and logs a
 * `tool_choice_downgraded` WARN (docs/decisions/0175).
 */
export const ToolChoiceSchema = lazySchema((z) =>
  z.union([
    z.enum(['auto', 'none', 'required']),
    z.object({ type: z.literal('tool'), name: z.string().min(1) }).strict(),
  ]),
);
/** A tool choice: `auto`, `none`, `required` or one named tool. */
export type ToolChoice = z.output<typeof ToolChoiceSchema>;

import type { z } from 'zod';
import { lazySchema } from '../lazy-schema.js';

/** Why generation stopped. */
export const StopReasonSchema = lazySchema((z) =>
  z.enum([
    'end_turn',
    'max_tokens',
    'stop_sequence',
    'tool_use',
    /** The model declined to answer (Anthropic's `refusal`, OpenAI's `refusal` field, Gemini safety stops). */
    'refusal',
    'cancelled',
    'error',
  ]),
);
/** A stop reason. */
export type StopReason = z.output<typeof StopReasonSchema>;

import type { CallOptions, ProviderAdapter } from './adapter.js';
import {
  type OutputOf,
  type OutputSchemaInput,
  type ResolvedOutputSchema,
  resolveOutputSchema,
} from './output-schema.js';
import type { CanonicalRequestInput, CanonicalResponse } from './schemas/adapter.js';
import {
  planStructuredOutput,
  type StructuredOutputPlan,
  withStructuredOutput,
} from './structured-output-plan.js';
import { readStructuredOutput } from './structured-output-read.js';

/** Options of {@link completeObject}. */
export interface CompleteObjectOptions<S extends OutputSchemaInput> extends CallOptions {
  /** The object's schema: a JSON Schema, a zod schema or another Standard Schema validator. */
  schema: S | ResolvedOutputSchema<OutputOf<S>>;
  /** How to ask; by default planned from the model's capabilities ({@link planStructuredOutput}). */
  plan?: StructuredOutputPlan;
}

/** What {@link completeObject} returns. */
export interface CompleteObjectResult<T> {
  /** The parsed, validated object, typed from the schema. */
  object: T;
  /** The adapter's response, whole. */
  response: CanonicalResponse;
}

/**
 * One plain adapter call that asks for an object: plans native structured output or the
 * forced-tool fallback from the model's capabilities, sends the call, and reads the object
 * back. Rejects with the adapter's errors, or {@link OutputValidationError} when the reply is
 * not a valid object (no repair here; the session's repair policy does that).
 */
export async function completeObject<S extends OutputSchemaInput>(
  adapter: Pick<ProviderAdapter, 'complete' | 'capabilitiesFor'>,
  request: CanonicalRequestInput,
  options: CompleteObjectOptions<S>,
): Promise<CompleteObjectResult<OutputOf<S>>> {
  const { schema: input, plan: chosen, ...callOptions } = options;
  const schema = resolveOutputSchema<S>(input);
  const plan = chosen ?? planStructuredOutput(adapter.capabilitiesFor(request.model));
  const response = await adapter.complete(withStructuredOutput(request, schema, plan), callOptions);
  return { object: readStructuredOutput(response, schema, plan).value, response };
}

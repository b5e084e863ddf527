import { InvalidRequestError } from './errors.js';
import type { ResolvedOutputSchema } from './output-schema.js';
import { wrapOutputSchema } from './output-wrapper.js';
import type { AdapterCapabilities, CanonicalRequestInput } from './schemas/adapter.js';

/**
 * How a call asks for an object: `native`, through the provider's structured-output parameter
 * (`output_schema`); `tool`, through a forced call of a tool whose input schema is the output
 * schema (for models with tools but no native structured output).
 */
export type StructuredOutputPlan = { mode: 'native' } | { mode: 'tool'; toolName: string };

/** The name of the tool that carries the output schema in `tool` mode. */
export const STRUCTURED_OUTPUT_TOOL = 'structured_output';

/**
 * Chooses how to ask a model for an object: native when it supports structured output, else a
 * forced tool when it supports tools (`prefer: 'tool'` picks the tool whenever tools work).
 * Throws `InvalidRequestError` for a model with neither.
 */
export function planStructuredOutput(
  capabilities: Pick<AdapterCapabilities, 'supports_structured_output' | 'supports_tools'>,
  options: { prefer?: 'native' | 'tool'; toolName?: string } = {},
): StructuredOutputPlan {
  const tool: StructuredOutputPlan = {
    mode: 'tool',
    toolName: options.toolName ?? STRUCTURED_OUTPUT_TOOL,
  };
  if (options.prefer === 'tool' && capabilities.supports_tools) return tool;
  if (capabilities.supports_structured_output) return { mode: 'native' };
  if (capabilities.supports_tools) return tool;
  throw new InvalidRequestError(
    'structured output needs a model with native structured output or tool calling; this model has neither',
    { retryable: false },
  );
}

/**
 * The request that asks for an object under `plan`. Native: `output_schema` set to the full
 * schema (each adapter projects it to what its provider accepts). Tool: a tool carrying the
 * schema (a non-object schema wrapped as `{ value }`) added to the request's tools, with
 * `tool_choice` naming it and no `output_schema`. Throws `InvalidRequestError` when the request
 * already has a tool of that name.
 */
export function withStructuredOutput<R extends CanonicalRequestInput>(
  request: R,
  schema: ResolvedOutputSchema,
  plan: StructuredOutputPlan,
): R & Pick<CanonicalRequestInput, 'output_schema' | 'tool_choice' | 'tools'> {
  if (plan.mode === 'native') return { ...request, output_schema: schema.jsonSchema };
  const tools = request.tools ?? [];
  if (tools.some((t) => t.name === plan.toolName)) {
    throw new InvalidRequestError(
      `tools: a tool named "${plan.toolName}" is already offered; the structured-output tool needs that name`,
      { request_id: request.request_id, retryable: false },
    );
  }
  return {
    ...request,
    output_schema: null,
    tools: [
      ...tools,
      {
        name: plan.toolName,
        description:
          'Give your final answer by calling this tool; its input is the answer, following the schema exactly.',
        input_schema: wrapOutputSchema(schema.jsonSchema),
        side_effects: 'none',
        requires_workspace: false,
      },
    ],
    tool_choice: { type: 'tool', name: plan.toolName },
  };
}

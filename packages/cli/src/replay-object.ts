import {
  type CanonicalRequestInput,
  type CanonicalResponse,
  type JsonSchemaObject,
  OutputValidationError,
  type ProviderAdapter,
  planStructuredOutput,
  readStructuredOutput,
  resolveOutputSchema,
  withStructuredOutput,
} from '@yourtool/core';

/** What `replay --schema` shows of the object a reply gave. */
export interface ReplayObject {
  value: unknown;
  valid: boolean;
  issues: string[];
}

/**
 * A replay request asking for an object of `schema` the way the model can give one (native
 * structured output, else the forced-tool fallback: core's plan), and the reader of its reply.
 */
export function objectRequest(
  request: CanonicalRequestInput,
  schema: JsonSchemaObject,
  adapter: Pick<ProviderAdapter, 'capabilitiesFor'>,
): { request: CanonicalRequestInput; read: (response: CanonicalResponse) => ReplayObject } {
  const resolved = resolveOutputSchema(schema);
  const plan = planStructuredOutput(adapter.capabilitiesFor(request.model));
  // the history's own calls of the output tool declared it already: the schema's form replaces it
  const tools = (request.tools ?? []).filter(
    (t) => plan.mode !== 'tool' || t.name !== plan.toolName,
  );
  return {
    request: withStructuredOutput({ ...request, tools }, resolved, plan),
    read(response) {
      try {
        return {
          value: readStructuredOutput(response, resolved, plan).value,
          valid: true,
          issues: [],
        };
      } catch (error) {
        if (!(error instanceof OutputValidationError)) throw error;
        const value = error.text === '' ? undefined : parsedOrText(error.text);
        const issues = error.issues.map((i) => `${i.path}: ${i.message} (${i.rule})`);
        return { value, valid: false, issues };
      }
    },
  };
}

function parsedOrText(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

import type { AdapterCapabilities, CanonicalRequest } from '@yourtool/core';
import { wrapOutputSchema } from '@yourtool/core/adapter';
import { projectStrictSchema } from './strict-projection.js';

/**
 * Whether a JSON schema meets OpenAI's strict structured-output rules as far as this codec can
 * tell: every object closes `additionalProperties` and requires all of its properties.
 */
export function isStrictCompatibleSchema(schema: unknown): boolean {
  if (schema === null || typeof schema !== 'object') return true;
  if (Array.isArray(schema)) return schema.every(isStrictCompatibleSchema);
  const node = schema as Record<string, unknown>;
  const type = node.type;
  const isObject = type === 'object' || (Array.isArray(type) && type.includes('object'));
  if (isObject) {
    if (node.additionalProperties !== false) return false;
    const properties = (node.properties ?? {}) as Record<string, unknown>;
    const required = Array.isArray(node.required) ? (node.required as unknown[]) : [];
    if (!Object.keys(properties).every((key) => required.includes(key))) return false;
  }
  for (const key of ['properties', 'items', '$defs', 'definitions']) {
    const child = node[key];
    if (child === undefined) continue;
    if (key === 'items') {
      if (!isStrictCompatibleSchema(child)) return false;
    } else if (!Object.values(child as Record<string, unknown>).every(isStrictCompatibleSchema)) {
      return false;
    }
  }
  return true;
}

/** The `name` a JSON-schema output format carries: the schema's title, cleaned, else `response`. */
function schemaName(schema: Record<string, unknown>): string {
  const title = typeof schema.title === 'string' ? schema.title : '';
  const cleaned = title.replace(/[^a-zA-Z0-9_-]/g, '_').slice(0, 64);
  return cleaned === '' ? 'response' : cleaned;
}

/** A JSON-schema output format, as both OpenAI APIs take it (placed differently by each). */
export interface OpenAIJsonSchemaFormat {
  name: string;
  schema: Record<string, unknown>;
  strict: boolean;
}

/**
 * The output format for a request's `output_schema`, shared by Chat Completions and the
 * Responses API: null when there is none, or when the model takes no structured output (a
 * `parameter_dropped` WARN). Strict by default: the schema projected onto the strict rules
 * ({@link projectStrictSchema}; each constraint left out listed in a
 * `structured_output_projected` WARN), or, when it cannot be, sent with `strict: false` (a
 * `structured_output_not_strict` WARN). `strict_structured_output: false` sends it as it is,
 * non-strict. A schema whose root is not an object is wrapped as `{ value }` (core's
 * `wrapOutputSchema`).
 */
export function jsonSchemaFormat(
  request: Pick<CanonicalRequest, 'output_schema'>,
  options: {
    capabilities: AdapterCapabilities;
    wireName: string;
    strictStructuredOutput?: boolean;
  },
  warn: (event: string, reason: string, extra?: Record<string, unknown>) => void,
): OpenAIJsonSchemaFormat | null {
  if (!request.output_schema) return null;
  // both APIs need an object root: a non-object schema goes as { value }, unwrapped on read by core
  const schema = wrapOutputSchema(request.output_schema);
  if (!options.capabilities.supports_structured_output) {
    warn(
      'parameter_dropped',
      `${options.wireName} does not support structured output; output_schema was not sent`,
      { parameter: 'output_schema' },
    );
    return null;
  }
  if (options.strictStructuredOutput === false) {
    return { name: schemaName(schema), schema, strict: false };
  }
  const projection = projectStrictSchema(schema);
  if (!projection.ok) {
    warn(
      'structured_output_not_strict',
      `output_schema cannot be projected onto strict structured output (${projection.reason}); it is sent with strict: false, as guidance the model may not follow`,
    );
    return { name: schemaName(schema), schema, strict: false };
  }
  if (projection.dropped.length > 0) {
    warn(
      'structured_output_projected',
      `strict structured output refuses some constraints; they were left out of the schema sent and are checked on the reply: ${projection.dropped
        .map((d) => `${d.path} ${d.keyword}`)
        .join(', ')}`,
      { dropped: projection.dropped },
    );
  }
  return { name: schemaName(schema), schema: projection.schema, strict: true };
}

/** The property a non-object output is wrapped in where an object root is needed. */
export const OUTPUT_WRAPPER_KEY = 'value';

/**
 * Whether an output schema must be wrapped in an object before it can be a tool's input schema
 * or a provider's object-rooted response schema: its root is not `type: "object"`.
 */
export function needsObjectWrapper(schema: Readonly<Record<string, unknown>>): boolean {
  return schema.type !== 'object';
}

/**
 * Wraps a schema whose root is not an object as `{ value: <schema> }` (required, nothing else);
 * an object schema is returned as it is. Readers undo it with {@link unwrapOutputValue}.
 */
export function wrapOutputSchema(schema: Record<string, unknown>): Record<string, unknown> {
  if (!needsObjectWrapper(schema)) return schema;
  return {
    type: 'object',
    properties: { [OUTPUT_WRAPPER_KEY]: schema },
    required: [OUTPUT_WRAPPER_KEY],
    additionalProperties: false,
  };
}

/**
 * Undoes {@link wrapOutputSchema} on a parsed reply: for a schema that needs the wrapper, an
 * object whose only key is `value` gives that value; anything else is returned as it is (a
 * provider that took the schema unwrapped answers unwrapped).
 */
export function unwrapOutputValue(
  schema: Readonly<Record<string, unknown>>,
  value: unknown,
): unknown {
  if (!needsObjectWrapper(schema)) return value;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  const keys = Object.keys(value);
  return keys.length === 1 && keys[0] === OUTPUT_WRAPPER_KEY
    ? (value as Record<string, unknown>)[OUTPUT_WRAPPER_KEY]
    : value;
}

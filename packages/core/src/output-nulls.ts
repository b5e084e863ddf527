type Schema = Record<string, unknown>;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Whether a schema accepts `null` as far as its `type`, `enum`, `const` or `anyOf` say. */
function acceptsNull(schema: unknown): boolean {
  if (!isObject(schema)) return schema === true;
  const type = schema.type;
  if (type === 'null' || (Array.isArray(type) && type.includes('null'))) return true;
  if (Array.isArray(schema.enum) && schema.enum.includes(null)) return true;
  if (schema.const === null) return true;
  const union = schema.anyOf ?? schema.oneOf;
  return Array.isArray(union) && union.some(acceptsNull);
}

/**
 * Removes, through `properties` and `items`, each `null` the full schema does not allow where
 * the property is optional: a provider whose strict mode makes every property required sends
 * an absent optional property as `null` (OpenAI's optional-to-nullable projection). Returns a
 * copy where anything changed; everything else is left for validation to judge.
 */
export function dropProjectedNulls(schema: unknown, value: unknown): unknown {
  if (!isObject(schema)) return value;
  if (Array.isArray(value) && isObject(schema.items)) {
    return value.map((item) => dropProjectedNulls(schema.items, item));
  }
  if (!isObject(value) || !isObject(schema.properties)) return value;
  const properties = schema.properties as Record<string, Schema>;
  const required = Array.isArray(schema.required) ? (schema.required as unknown[]) : [];
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    const child = properties[key];
    if (child === undefined) {
      out[key] = item;
      continue;
    }
    if (item === null && !required.includes(key) && !acceptsNull(child)) continue;
    out[key] = dropProjectedNulls(child, item);
  }
  return out;
}

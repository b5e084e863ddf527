import { setField } from './partial-json-value.js';

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
 * copy where anything changed and the value itself where nothing did; everything else is left
 * for validation to judge.
 */
export function dropProjectedNulls(schema: unknown, value: unknown): unknown {
  if (!isObject(schema) || !hasOptional(schema)) return value;
  if (Array.isArray(value) && isObject(schema.items)) {
    let out: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const item = dropProjectedNulls(schema.items, value[i]);
      if (item !== value[i] && out === undefined) out = value.slice(0, i);
      out?.push(item);
    }
    return out ?? value;
  }
  if (!isObject(value) || !isObject(schema.properties)) return value;
  const properties = schema.properties as Record<string, Schema>;
  const required = Array.isArray(schema.required) ? (schema.required as unknown[]) : [];
  // copied only from the first member that changes: a value with nothing to drop is returned as is
  let out: Record<string, unknown> | undefined;
  const keys = Object.keys(value);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i] as string;
    const item = value[key];
    const child = properties[key];
    const kept =
      child === undefined
        ? item
        : item === null && !required.includes(key) && !acceptsNull(child)
          ? DROPPED
          : dropProjectedNulls(child, item);
    if (kept !== item && out === undefined) out = copyOf(value, keys, i);
    if (out !== undefined && kept !== DROPPED) setField(out, key, kept);
  }
  return out ?? value;
}

const DROPPED: unique symbol = Symbol('dropped');

/** The first `count` members of `value`, in order, as own properties. */
function copyOf(
  value: Record<string, unknown>,
  keys: readonly string[],
  count: number,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (let i = 0; i < count; i++) setField(out, keys[i] as string, value[keys[i] as string]);
  return out;
}

/** Whether a schema has, through `properties` and `items`, an optional property; per schema. */
const optionals = new WeakMap<object, boolean>();

function hasOptional(schema: Record<string, unknown>): boolean {
  const known = optionals.get(schema);
  if (known !== undefined) return known;
  let found = isObject(schema.items) && hasOptional(schema.items);
  if (!found && isObject(schema.properties)) {
    const required = Array.isArray(schema.required) ? (schema.required as unknown[]) : [];
    for (const [key, child] of Object.entries(schema.properties)) {
      if (!required.includes(key) || (isObject(child) && hasOptional(child))) {
        found = true;
        break;
      }
    }
  }
  optionals.set(schema, found);
  return found;
}

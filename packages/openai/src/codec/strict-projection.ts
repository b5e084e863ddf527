type Schema = Record<string, unknown>;

/** A constraint the strict projection had to leave out. */
export interface DroppedConstraint {
  /** Where in the schema (`$.properties.name`). */
  path: string;
  /** The keyword left out. */
  keyword: string;
}

/** What {@link projectStrictSchema} gives: the strict schema and what it lost, or why it cannot. */
export type StrictProjection =
  | { ok: true; schema: Schema; dropped: DroppedConstraint[] }
  | { ok: false; reason: string };

/** Keywords strict mode refuses that can be left out: they only narrow what is valid. */
const DROPPABLE = new Set([
  'minLength',
  'maxLength',
  'minProperties',
  'maxProperties',
  'uniqueItems',
  'contains',
  'minContains',
  'maxContains',
  'propertyNames',
  'unevaluatedProperties',
  'unevaluatedItems',
  'dependentRequired',
]);
/** Constructs strict mode refuses that cannot be left out without changing the shape. */
const UNPROJECTABLE = new Set([
  'allOf',
  'not',
  'if',
  'then',
  'else',
  'patternProperties',
  'dependentSchemas',
  'prefixItems',
]);

function isObject(value: unknown): value is Schema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

class Unprojectable extends Error {}

/** The schema made nullable: `null` added to its type (and enum), else an anyOf with null. */
function nullable(schema: Schema): Schema {
  const type = schema.type;
  if (typeof type === 'string' || Array.isArray(type)) {
    const types = Array.isArray(type) ? type : [type];
    const out: Schema = { ...schema, type: types.includes('null') ? types : [...types, 'null'] };
    if (Array.isArray(schema.enum) && !schema.enum.includes(null))
      out.enum = [...schema.enum, null];
    return out;
  }
  return { anyOf: [schema, { type: 'null' }] };
}

function projectObject(node: Schema, at: string, dropped: DroppedConstraint[]): Schema {
  const properties = isObject(node.properties) ? node.properties : {};
  const required = new Set(Array.isArray(node.required) ? (node.required as string[]) : []);
  if (node.additionalProperties !== undefined && node.additionalProperties !== false) {
    if (isObject(node.additionalProperties)) {
      throw new Unprojectable(`${at}.additionalProperties is a schema`);
    }
    dropped.push({ path: at, keyword: 'additionalProperties' });
  }
  const out: Schema = {};
  for (const [name, child] of Object.entries(properties)) {
    const projected = project(child, `${at}.properties.${name}`, dropped);
    out[name] = required.has(name) ? projected : nullable(projected);
  }
  return { properties: out, required: Object.keys(out), additionalProperties: false };
}

function project(node: unknown, at: string, dropped: DroppedConstraint[]): Schema {
  if (!isObject(node)) throw new Unprojectable(`${at} is not a schema object`);
  const out: Schema = {};
  for (const [keyword, value] of Object.entries(node)) {
    if (UNPROJECTABLE.has(keyword)) throw new Unprojectable(`${at}.${keyword}`);
    if (DROPPABLE.has(keyword)) dropped.push({ path: at, keyword });
    else if (keyword === 'items') out.items = project(value, `${at}.items`, dropped);
    else if (keyword === 'anyOf' || keyword === 'oneOf') {
      // oneOf is read as anyOf: strict mode has no oneOf, and the full schema is checked later
      if (keyword === 'oneOf') dropped.push({ path: at, keyword: 'oneOf (sent as anyOf)' });
      out.anyOf = (value as unknown[]).map((v, i) => project(v, `${at}.${keyword}[${i}]`, dropped));
    } else if (keyword === '$defs' || keyword === 'definitions') {
      out[keyword] = Object.fromEntries(
        Object.entries(value as Schema).map(([k, v]) => [
          k,
          project(v, `${at}.${keyword}.${k}`, dropped),
        ]),
      );
    } else if (
      keyword !== 'properties' &&
      keyword !== 'required' &&
      keyword !== 'additionalProperties'
    ) {
      out[keyword] = value;
    }
  }
  const type = node.type;
  const isObjectType = type === 'object' || (Array.isArray(type) && type.includes('object'));
  return isObjectType || isObject(node.properties)
    ? { ...out, ...projectObject(node, at, dropped) }
    : out;
}

/**
 * Projects a JSON Schema onto OpenAI's strict structured-output rules: every object closed
 * (`additionalProperties: false`) with all its properties required, the optional ones made
 * nullable (core reads a null there as absent); keywords strict mode refuses and that only
 * narrow what is valid are left out and listed (`minLength`, `uniqueItems`...), `oneOf` goes as
 * `anyOf`. Constructs that cannot be left out (`allOf`, `not`, `if`, a schema-valued
 * `additionalProperties`...) make it fail, and the schema goes non-strict instead.
 */
export function projectStrictSchema(schema: Schema): StrictProjection {
  const dropped: DroppedConstraint[] = [];
  try {
    return { ok: true, schema: project(schema, '$', dropped), dropped };
  } catch (error) {
    if (error instanceof Unprojectable) return { ok: false, reason: error.message };
    throw error;
  }
}

type Schema = Record<string, unknown>;

/** Keywords Gemini's `responseJsonSchema` takes (its documented JSON Schema subset). */
const KEPT = new Set([
  '$id',
  '$ref',
  '$anchor',
  'type',
  'format',
  'title',
  'description',
  'enum',
  'minItems',
  'maxItems',
  'minimum',
  'maximum',
  'required',
  'propertyOrdering',
]);
/** Keywords holding sub-schemas, walked and kept. */
const NESTED = new Set(['properties', '$defs', 'items', 'prefixItems', 'anyOf', 'oneOf']);
/** Annotations left out without a WARN: they constrain nothing. */
const SILENT = new Set([
  '$schema',
  '$comment',
  'examples',
  'default',
  'deprecated',
  'readOnly',
  'writeOnly',
]);

/** A constraint left out of the schema Gemini receives. */
export interface GeminiDroppedConstraint {
  /** Where in the schema (`$.properties.name`). */
  path: string;
  /** The keyword left out. */
  keyword: string;
}

function isObject(value: unknown): value is Schema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function projectMap(value: unknown, at: string, dropped: GeminiDroppedConstraint[]): Schema {
  return Object.fromEntries(
    Object.entries(isObject(value) ? value : {}).map(([k, v]) => [
      k,
      project(v, `${at}.${k}`, dropped),
    ]),
  );
}

function projectNested(
  keyword: string,
  value: unknown,
  at: string,
  dropped: GeminiDroppedConstraint[],
): unknown {
  if (keyword === 'properties' || keyword === '$defs')
    return projectMap(value, `${at}.${keyword}`, dropped);
  if (Array.isArray(value))
    return value.map((v, i) => project(v, `${at}.${keyword}[${i}]`, dropped));
  return project(value, `${at}.${keyword}`, dropped);
}

function project(node: unknown, at: string, dropped: GeminiDroppedConstraint[]): unknown {
  if (!isObject(node)) return node;
  const out: Schema = {};
  for (const [keyword, value] of Object.entries(node)) {
    if (KEPT.has(keyword)) out[keyword] = value;
    else if (NESTED.has(keyword)) out[keyword] = projectNested(keyword, value, at, dropped);
    else if (keyword === 'additionalProperties') {
      out[keyword] = isObject(value)
        ? project(value, `${at}.additionalProperties`, dropped)
        : value;
    } else if (!SILENT.has(keyword)) dropped.push({ path: at, keyword });
  }
  return out;
}

/**
 * Projects an output schema onto the JSON Schema subset Gemini's `responseJsonSchema` takes:
 * keywords outside it that constrain the reply (`pattern`, `minLength`, `const`, `allOf`...) are
 * left out and listed, for a lossy-projection WARN; core checks the reply against the full
 * schema afterwards. Annotations outside it (`examples`, `default`) are left out silently.
 */
export function projectGeminiResponseSchema(schema: Schema): {
  schema: Schema;
  dropped: GeminiDroppedConstraint[];
} {
  const dropped: GeminiDroppedConstraint[] = [];
  return { schema: project(schema, '$', dropped) as Schema, dropped };
}

import { ALLOWED_SCHEMA_FORMATS, ALLOWED_SCHEMA_TYPES, checkToolInputSchema } from '@yourtool/core';

/** A construct of an MCP tool's schema that has no equivalent in the subset. */
export interface InexpressibleConstruct {
  /** The keyword at fault (`$ref`, `oneOf`, `patternProperties`, ...). */
  construct: string;
  /** Where it is, from `input_schema`. */
  path: string;
  /** Why it cannot be normalized. */
  reason: string;
}

/** What normalizing a schema gives: the schema in the subset, or the first construct that is not. */
export type NormalizedSchema =
  | { ok: true; schema: Record<string, unknown> }
  | ({ ok: false } & InexpressibleConstruct);

/** Constraints that would loosen validation if dropped, and that the subset cannot say. */
const INEXPRESSIBLE = new Set([
  'allOf',
  'not',
  'if',
  'then',
  'else',
  'patternProperties',
  'dependentSchemas',
  'dependentRequired',
  'dependencies',
  'prefixItems',
  'additionalItems',
  'contains',
  'propertyNames',
  'unevaluatedProperties',
  'unevaluatedItems',
]);

/** Keywords kept as they are (value constraints and the description the model reads). */
const KEPT = new Set([
  'description',
  'const',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minLength',
  'maxLength',
  'pattern',
  'minItems',
  'maxItems',
  'uniqueItems',
  'minProperties',
  'maxProperties',
  'default',
]);

/** Inlined references deeper than this are refused: a guard against exponential expansion. */
const MAX_DEPTH = 32;

/** Thrown inside the walk to stop at the first inexpressible construct. */
class Inexpressible extends Error {
  constructor(readonly detail: InexpressibleConstruct) {
    super(detail.reason);
  }
}

interface Walk {
  root: Record<string, unknown>;
  /** References being inlined, outermost first: one seen again is recursive. */
  refs: string[];
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function fail(construct: string, path: string, reason: string): never {
  throw new Inexpressible({ construct, path, reason });
}

/** The schema a local reference (`#/$defs/Name`, `#/definitions/Name`) points at. */
function resolveRef(ref: string, walk: Walk, path: string): unknown {
  if (!ref.startsWith('#/'))
    fail('$ref', path, `only local references can be inlined, not "${ref}"`);
  let target: unknown = walk.root;
  for (const raw of ref.slice(2).split('/')) {
    const part = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    target = isPlainObject(target) ? target[part] : undefined;
  }
  if (target === undefined) fail('$ref', path, `reference "${ref}" points at nothing`);
  return target;
}

function inlineRef(node: Record<string, unknown>, walk: Walk, path: string): unknown {
  const ref = node.$ref;
  if (typeof ref !== 'string') fail('$ref', path, '$ref must be a string');
  if (ref === '#' || walk.refs.includes(ref)) {
    fail('$ref', path, `reference "${ref}" is recursive; the subset has no references`);
  }
  if (walk.refs.length >= MAX_DEPTH) fail('$ref', path, 'references nest too deeply');
  const { $ref: _ref, ...siblings } = node;
  const target = resolveRef(ref, walk, path);
  if (!isPlainObject(target)) fail('$ref', path, `reference "${ref}" is not a schema object`);
  walk.refs.push(ref);
  try {
    // sibling keywords (a description, a default) refine the referenced schema
    return normalizeNode({ ...target, ...siblings }, walk, path);
  } finally {
    walk.refs.pop();
  }
}

function isNullSchema(branch: unknown): boolean {
  return isPlainObject(branch) && branch.type === 'null' && Object.keys(branch).length === 1;
}

function typesOf(node: Record<string, unknown>): string[] | undefined {
  if (typeof node.type === 'string') return [node.type];
  if (Array.isArray(node.type) && node.type.every((t) => typeof t === 'string')) return node.type;
  return undefined;
}

/** Adds `null` to a normalized schema's type (and enum): what an optional-by-null field means. */
function withNull(schema: Record<string, unknown>, path: string): Record<string, unknown> {
  const types = typesOf(schema);
  if (!types) fail('anyOf', path, 'a nullable branch without a type cannot be said as a type list');
  const out: Record<string, unknown> = {
    ...schema,
    type: types.includes('null') ? types : [...types, 'null'],
  };
  if (Array.isArray(schema.enum) && !schema.enum.includes(null)) out.enum = [...schema.enum, null];
  return out;
}

/**
 * A union the subset can say: `X` or null (FastMCP's `Optional[X]`) becomes `X` with `null` in
 * its type; a union of bare types becomes a type list. Anything else is refused.
 */
function collapseUnion(node: Record<string, unknown>, key: string, walk: Walk, path: string) {
  const branches = node[key];
  const at = `${path}.${key}`;
  if (!Array.isArray(branches) || branches.length === 0) fail(key, at, `${key} must list schemas`);
  const { [key]: _union, ...rest } = node;
  const others = branches.filter((b) => !isNullSchema(b));
  const nullable = others.length < branches.length;
  if (others.length === 1) {
    const merged = normalizeNode({ ...(others[0] as object), ...rest }, walk, at);
    return nullable ? withNull(merged, at) : merged;
  }
  const bare = others.every(
    (b) => isPlainObject(b) && typeof b.type === 'string' && Object.keys(b).length === 1,
  );
  if (!bare) fail(key, at, `a union of ${others.length} schemas is not in the subset`);
  const types = others.map((b) => (b as { type: string }).type);
  if (nullable) types.push('null');
  return normalizeNode({ ...rest, type: [...new Set(types)] }, walk, path);
}

function normalizeType(value: unknown, node: Record<string, unknown>, path: string) {
  const types = Array.isArray(value) ? value : [value];
  for (const t of types) {
    if (typeof t !== 'string' || !ALLOWED_SCHEMA_TYPES.includes(t)) {
      fail('type', `${path}.type`, `type ${JSON.stringify(t)} is not a JSON type`);
    }
  }
  // OpenAPI's `nullable: true` is a null in the type list
  if (node.nullable === true && !types.includes('null')) return [...types, 'null'];
  return types.length === 1 ? types[0] : [...new Set(types)];
}

function normalizeProperties(value: unknown, walk: Walk, path: string) {
  if (!isPlainObject(value)) fail('properties', path, 'properties must be an object of schemas');
  return Object.fromEntries(
    Object.entries(value).map(([name, child]) => [
      name,
      normalizeNode(child, walk, `${path}.${name}`),
    ]),
  );
}

/** One keyword of a node, normalized: `undefined` drops it. */
function normalizeKeyword(
  [key, value]: [string, unknown],
  node: Record<string, unknown>,
  walk: Walk,
  path: string,
): unknown {
  const at = `${path}.${key}`;
  if (INEXPRESSIBLE.has(key))
    fail(key, at, `"${key}" is not in the subset and would change meaning`);
  switch (key) {
    case 'type':
      return normalizeType(value, node, path);
    case 'enum':
      if (!Array.isArray(value) || value.length === 0) fail('enum', at, 'enum must list values');
      return value;
    case 'required':
      if (!Array.isArray(value) || value.some((r) => typeof r !== 'string')) {
        fail('required', at, 'required must list property names');
      }
      return value;
    case 'properties':
      return normalizeProperties(value, walk, at);
    case 'items':
      if (Array.isArray(value)) fail('items', at, 'tuple items are not in the subset');
      return normalizeNode(value, walk, at);
    case 'additionalProperties':
      // a schema for extra values is loosened to "allowed": the server still checks them
      return typeof value === 'boolean' ? value : value !== false;
    case 'format':
      // format is an annotation in JSON Schema 2020-12: an unknown one is dropped, not refused
      return typeof value === 'string' && ALLOWED_SCHEMA_FORMATS.includes(value)
        ? value
        : undefined;
    default:
      return KEPT.has(key) ? value : undefined;
  }
}

function normalizeNode(node: unknown, walk: Walk, path: string): Record<string, unknown> {
  if (node === true) return {};
  if (!isPlainObject(node)) fail('schema', path, 'a schema must be an object (or true)');
  if ('$ref' in node) return inlineRef(node, walk, path) as Record<string, unknown>;
  for (const key of ['anyOf', 'oneOf']) {
    if (key in node) return collapseUnion(node, key, walk, path) as Record<string, unknown>;
  }
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    const normalized = normalizeKeyword([key, value], node, walk, path);
    if (normalized !== undefined) out[key] = normalized;
  }
  if (node.nullable === true && out.type === undefined) {
    fail('nullable', `${path}.nullable`, 'nullable without a type cannot be said as a type list');
  }
  declareRequired(out);
  return out;
}

/** A required name with no declared property is declared as any value: the same meaning. */
function declareRequired(out: Record<string, unknown>): void {
  if (!Array.isArray(out.required) || out.required.length === 0) return;
  const properties = isPlainObject(out.properties) ? { ...out.properties } : {};
  for (const name of out.required as string[]) if (!(name in properties)) properties[name] = {};
  out.properties = properties;
}

/**
 * Brings an MCP tool's input schema into core's JSON-Schema subset without changing what it
 * accepts (decision 0172): local `$ref`s are inlined (a recursive one is refused), `$defs`,
 * `$schema`, `title` and unknown annotations are dropped, `anyOf`/`oneOf` of one schema and null
 * becomes a nullable type, a union of bare types a type list, OpenAPI `nullable` a `null` in the
 * type, an `additionalProperties` schema `true`, an unknown `format` dropped. Constructs the
 * subset cannot say (`allOf`, `not`, conditionals, pattern properties, tuples, real unions) make
 * the result name the first of them. The result passes core's `checkToolInputSchema`, which every
 * adapter (Gemini's included) applies.
 */
export function normalizeInputSchema(schema: unknown): NormalizedSchema {
  if (!isPlainObject(schema)) {
    return { ok: false, construct: 'schema', path: 'input_schema', reason: 'not an object' };
  }
  const walk: Walk = { root: schema, refs: [] };
  try {
    const root = normalizeNode(schema, walk, 'input_schema');
    if (root.type === undefined && isPlainObject(root.properties)) root.type = 'object';
    if (root.type === undefined && Object.keys(root).length === 0) root.type = 'object';
    const issue = checkToolInputSchema(root)[0];
    if (issue)
      return { ok: false, construct: issue.keyword, path: issue.path, reason: issue.message };
    return { ok: true, schema: root };
  } catch (error) {
    if (error instanceof Inexpressible) return { ok: false, ...error.detail };
    throw error;
  }
}

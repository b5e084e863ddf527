import type { ErrorObject } from 'ajv';
import { YourtoolError } from './errors.js';
import { newDraft07Ajv } from './load-ajv.js';
import { issuesFromZod, type ParseIssue } from './parse.js';
import { SchemaCompiler } from './schema-compiler.js';
import {
  type ToolDefinition,
  type ToolDefinitionInput,
  ToolDefinitionSchema,
} from './schemas/tool.js';

/** Constructs outside the subset that are refused outright (canonical-format §5.4). */
const DISALLOWED = new Map<string, string>([
  ['$ref', 'references are not in the subset; inline the schema'],
  ['$defs', 'definitions only serve $ref, which is not in the subset'],
  ['definitions', 'definitions only serve $ref, which is not in the subset'],
  ['oneOf', 'unions are not in the subset; use one object with optional properties or an enum'],
  ['anyOf', 'unions are not in the subset; use one object with optional properties or an enum'],
  ['allOf', 'composition is not in the subset; merge the schemas'],
  ['not', 'negation is not in the subset'],
  ['if', 'conditional schemas are not in the subset'],
  ['then', 'conditional schemas are not in the subset'],
  ['else', 'conditional schemas are not in the subset'],
  ['patternProperties', 'pattern properties are not in the subset; list the properties'],
  ['dependentSchemas', 'dependent schemas are not in the subset'],
  ['dependentRequired', 'dependent requirements are not in the subset'],
  ['prefixItems', 'tuple schemas are not in the subset; use "items" with one schema'],
  ['additionalItems', 'tuple schemas are not in the subset'],
  ['contains', '"contains" is not in the subset'],
  ['propertyNames', '"propertyNames" is not in the subset'],
  ['unevaluatedProperties', '"unevaluatedProperties" is not in the subset'],
  ['unevaluatedItems', '"unevaluatedItems" is not in the subset'],
]);

/** Keywords that shape data: the subset's core. */
const STRUCTURAL = new Set([
  'type',
  'enum',
  'required',
  'properties',
  'items',
  'additionalProperties',
  'format',
]);
/** Annotations and simple value constraints both providers pass to the model unchanged. */
const ANNOTATIONS = new Set([
  'description',
  'title',
  'default',
  'examples',
  '$comment',
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
]);

/** JSON types the subset allows. */
export const ALLOWED_SCHEMA_TYPES: readonly string[] = [
  'string',
  'number',
  'integer',
  'boolean',
  'null',
  'object',
  'array',
];
/** `format` values the subset treats as basic annotations. */
export const ALLOWED_SCHEMA_FORMATS: readonly string[] = [
  'date-time',
  'date',
  'time',
  'duration',
  'email',
  'hostname',
  'ipv4',
  'ipv6',
  'uri',
  'uuid',
];

/** A construct in a tool's input schema that falls outside the subset. */
export interface SchemaIssue extends ParseIssue {
  /** The keyword at fault (`oneOf`, `$ref`, `type`, ...). */
  keyword: string;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Why a scalar keyword's value is outside the subset (`type`, `enum`, `format`, ...), or null. */
function scalarKeywordProblem(keyword: string, value: unknown): string | null {
  switch (keyword) {
    case 'type': {
      const types = Array.isArray(value) ? value : [value];
      return types.length === 0 || types.some((t) => !ALLOWED_SCHEMA_TYPES.includes(t as string))
        ? `type must be one of ${ALLOWED_SCHEMA_TYPES.join(', ')} (or a list of them)`
        : null;
    }
    case 'enum':
      return !Array.isArray(value) || value.length === 0 ? 'enum must be a non-empty array' : null;
    case 'additionalProperties':
      return typeof value !== 'boolean'
        ? 'additionalProperties must be true or false; a schema there is not in the subset'
        : null;
    case 'format':
      return typeof value !== 'string' || !ALLOWED_SCHEMA_FORMATS.includes(value)
        ? `format must be one of ${ALLOWED_SCHEMA_FORMATS.join(', ')}`
        : null;
    default:
      return null;
  }
}

function checkRequired(
  value: unknown,
  node: Record<string, unknown>,
  at: string,
  issues: SchemaIssue[],
): void {
  const keyword = 'required';
  if (!Array.isArray(value) || value.some((r) => typeof r !== 'string')) {
    issues.push({ path: at, keyword, message: 'required must be an array of property names' });
    return;
  }
  const props = isPlainObject(node.properties) ? node.properties : {};
  value.forEach((name, i) => {
    if (!(name in props)) {
      issues.push({
        path: `${at}[${i}]`,
        keyword,
        message: `required property "${name}" is not declared in properties`,
      });
    }
  });
}

function checkProperties(value: unknown, at: string, issues: SchemaIssue[]): void {
  if (!isPlainObject(value)) {
    issues.push({
      path: at,
      keyword: 'properties',
      message: 'properties must be an object of schemas',
    });
    return;
  }
  for (const [name, child] of Object.entries(value)) {
    checkSchemaNode(child, `${at}.${name}`, issues, false);
  }
}

function checkItems(value: unknown, at: string, issues: SchemaIssue[]): void {
  if (Array.isArray(value)) {
    issues.push({
      path: at,
      keyword: 'items',
      message: 'tuple "items" is not in the subset; give one schema',
    });
  } else {
    checkSchemaNode(value, at, issues, false);
  }
}

function checkSchemaNode(
  node: unknown,
  path: string,
  issues: SchemaIssue[],
  isRoot: boolean,
): void {
  if (!isPlainObject(node)) {
    issues.push({ path, keyword: '', message: 'a schema must be a JSON object' });
    return;
  }
  for (const [keyword, value] of Object.entries(node)) {
    const at = `${path}.${keyword}`;
    const refused = DISALLOWED.get(keyword);
    if (refused) {
      issues.push({ path: at, keyword, message: refused });
      continue;
    }
    if (isRoot && keyword === '$schema') continue;
    if (ANNOTATIONS.has(keyword)) continue;
    if (!STRUCTURAL.has(keyword)) {
      issues.push({ path: at, keyword, message: `"${keyword}" is not in the JSON-Schema subset` });
      continue;
    }
    if (keyword === 'required') checkRequired(value, node, at, issues);
    else if (keyword === 'properties') checkProperties(value, at, issues);
    else if (keyword === 'items') checkItems(value, at, issues);
    else {
      const problem = scalarKeywordProblem(keyword, value);
      if (problem) issues.push({ path: at, keyword, message: problem });
    }
  }
}

/**
 * Lists every construct of a tool input schema outside the JSON-Schema subset of
 * canonical-format §5.4, each with its path (`input_schema.properties.when.oneOf`). The root
 * must be `type: "object"`. An empty list means the schema is accepted.
 */
export function checkToolInputSchema(schema: unknown, root = 'input_schema'): SchemaIssue[] {
  const issues: SchemaIssue[] = [];
  checkSchemaNode(schema, root, issues, true);
  if (isPlainObject(schema) && schema.type !== 'object') {
    issues.unshift({
      path: `${root}.type`,
      keyword: 'type',
      message: 'the root of a tool input schema must be type "object"',
    });
  }
  return issues;
}

/** A tool definition was refused at registration; `issues` name each offending path. */
export class ToolDefinitionError extends YourtoolError {
  /** Every problem found. */
  readonly issues: ParseIssue[];
  /** The tool's name, when readable. */
  readonly toolName: string | undefined;

  constructor(toolName: string | undefined, issues: ParseIssue[]) {
    super(
      'tool_definition_invalid',
      `tool ${toolName ? `"${toolName}"` : '(unnamed)'} is invalid: ${issues
        .map((i) => `${i.path}: ${i.message}`)
        .join('; ')}`,
    );
    this.issues = issues;
    this.toolName = toolName;
  }
}

/**
 * Validates a tool definition for registration: its shape, its snake_case name, and its input
 * schema against the JSON-Schema subset. Returns the parsed definition (defaults applied) or
 * throws {@link ToolDefinitionError} listing every problem with its path.
 */
export function validateToolDefinition(definition: ToolDefinitionInput | unknown): ToolDefinition {
  const parsed = ToolDefinitionSchema.safeParse(definition);
  const name =
    isPlainObject(definition) && typeof definition.name === 'string' ? definition.name : undefined;
  const issues: ParseIssue[] = parsed.success ? [] : issuesFromZod(parsed.error);
  if (isPlainObject(definition) && isPlainObject(definition.input_schema)) {
    issues.push(...checkToolInputSchema(definition.input_schema));
  }
  if (!parsed.success || issues.length > 0) throw new ToolDefinitionError(name, issues);
  return parsed.data;
}

/** Result of validating a tool input against its definition's schema. */
export type ToolInputValidation = { ok: true } | { ok: false; issues: ParseIssue[] };

/**
 * The compiled tool input schemas of this process (bounded; see {@link SchemaCompiler}). Its ajv
 * instance, and ajv's modules, are built on the first validation, not at import.
 */
const compiler = new SchemaCompiler(newDraft07Ajv);

function issueFromAjv(error: ErrorObject): ParseIssue {
  const pointer = error.instancePath
    .split('/')
    .slice(1)
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'));
  const path = pointer.reduce(
    (acc, part) => (/^\d+$/.test(part) ? `${acc}[${part}]` : `${acc}.${part}`),
    'input',
  );
  const params = error.params as { missingProperty?: string; additionalProperty?: string };
  const property = params.missingProperty ?? params.additionalProperty;
  return {
    path: property ? `${path}.${property}` : path,
    message: error.message ?? error.keyword,
  };
}

/**
 * Validates a tool call's input against the tool's `input_schema` (with ajv; `format` is an
 * annotation and not enforced). Compiled validators are kept per schema text, a bounded number.
 */
export function validateToolInput(
  definition: Pick<ToolDefinition, 'input_schema'>,
  input: unknown,
): ToolInputValidation {
  const validate = compiler.compile(definition.input_schema);
  if (validate(input)) return { ok: true };
  return { ok: false, issues: (validate.errors ?? []).map(issueFromAjv) };
}

import {
  formatPath,
  type ParseIssue,
  type SideEffects,
  type ToolDefinition,
  ToolDefinitionError,
  validateToolDefinition,
  validateToolInput,
  YourtoolError,
} from '@yourtool/core';
import { z } from 'zod';
import { checkMaxResultTokens } from './tool-result-limit.js';
import type { ToolCallContext, ToolHandler, ToolOutput } from './tools.js';

/** The JSON types of the tool-schema subset (canonical-format §5.4). */
export type JsonSchemaTypeName =
  | 'string'
  | 'number'
  | 'integer'
  | 'boolean'
  | 'null'
  | 'object'
  | 'array';

/**
 * A node of a tool input schema, loosely shaped: the keywords {@link FromJsonSchema} reads are
 * typed, every other keyword (descriptions, bounds, `format`) passes through. Whether a schema is
 * inside the subset is checked at run time by core's `validateToolDefinition`.
 */
export interface JsonSchemaNode {
  /** One JSON type or a list of them. */
  readonly type?: JsonSchemaTypeName | readonly JsonSchemaTypeName[];
  /** The allowed values. */
  readonly enum?: readonly unknown[];
  /** An object's properties, by name. */
  readonly properties?: { readonly [name: string]: JsonSchemaNode };
  /** The names of an object's properties that must be present. */
  readonly required?: readonly string[];
  /** The schema of every item of an array. */
  readonly items?: JsonSchemaNode;
  /** What the model is told about this value. */
  readonly description?: string;
  /** Any other keyword of the subset. */
  readonly [keyword: string]: unknown;
}

/** The root of a tool input schema: always an object. */
export interface JsonSchemaObjectRoot extends JsonSchemaNode {
  /** The root of a tool input schema must be an object. */
  readonly type: 'object';
}

/** Flattens an intersection into one object type, so hovers and type errors stay readable. */
type Simplify<T> = { [K in keyof T]: T[K] } & {};

/** The property names an object schema lists as required; none when `required` is widened. */
type RequiredKeys<S> = S extends { readonly required: readonly (infer K)[] }
  ? string extends K
    ? never
    : K & string
  : never;

/** The TS type of an object schema: required properties present, the others optional. */
type FromObjectSchema<S> = S extends { readonly properties: infer P }
  ? Simplify<
      { -readonly [K in keyof P & RequiredKeys<S>]: FromJsonSchema<P[K]> } & {
        -readonly [K in Exclude<keyof P, RequiredKeys<S>>]?: FromJsonSchema<P[K]>;
      }
    >
  : Record<string, unknown>;

/** The TS type of one JSON type name `T` of schema `S` (distributes over a union of names). */
type FromTypeName<S, T> = T extends 'string'
  ? string
  : T extends 'number' | 'integer'
    ? number
    : T extends 'boolean'
      ? boolean
      : T extends 'null'
        ? null
        : T extends 'array'
          ? S extends { readonly items: infer I }
            ? FromJsonSchema<I>[]
            : unknown[]
          : T extends 'object'
            ? FromObjectSchema<S>
            : unknown;

/**
 * The TypeScript type of the values a JSON-Schema literal (written `as const`, or passed straight
 * to {@link defineTool}) accepts, for the subset tools may use: `enum` gives the union of its
 * values, `const` its value, `string` → `string`, `number`/`integer` → `number`, `boolean`,
 * `null`, `array` with `items` → `T[]`, `object` → its `properties`, those listed in `required`
 * non-optional and the others optional. A list of types gives the union. Undeclared extra
 * properties are not typed; a schema whose keywords were widened to `string` (not `as const`)
 * gives `unknown` rather than a wrong type.
 */
export type FromJsonSchema<S> = S extends { readonly enum: readonly (infer E)[] }
  ? E
  : S extends { readonly const: infer C }
    ? C
    : S extends { readonly type: infer T }
      ? T extends readonly (infer U)[]
        ? string extends U
          ? unknown
          : FromTypeName<S, U>
        : string extends T
          ? unknown
          : FromTypeName<S, T>
      : unknown;

/**
 * What a typed tool's `run` returns, possibly asynchronously: text, blocks, or a JSON value
 * sent as JSON text (see {@link ToolOutput}).
 */
export type ToolRunResult = Promise<ToolOutput> | ToolOutput;

/** Fields both forms of {@link defineTool} share. */
interface ToolSpecBase {
  /** Snake_case tool name. */
  name: string;
  /** What the model is told the tool does. */
  description: string;
  /** What running the tool may change; drives confirmation. */
  side_effects: SideEffects;
  /** Whether the tool needs the session's workspace (default true). */
  requires_workspace?: boolean;
  /** Tokens of the tool's result a model receives at most; default the manager's `toolResults` (decision 0155). */
  max_result_tokens?: number;
}

/** A tool whose input is described by a JSON-Schema literal (`as const`). */
export interface JsonSchemaToolSpec<S extends JsonSchemaObjectRoot> extends ToolSpecBase {
  /** The input schema, inside the JSON-Schema subset, sent to providers as written. */
  input_schema: S;
  /** Not used in this form; see {@link ZodToolSpec}. */
  input?: never;
  /** Runs the tool with input already validated against `input_schema`. */
  run(input: FromJsonSchema<S>, context: ToolCallContext): ToolRunResult;
}

/** A tool whose input is described by a zod object schema. */
export interface ZodToolSpec<Z extends z.ZodObject> extends ToolSpecBase {
  /** The input schema; converted with `z.toJSONSchema` for providers. */
  input: Z;
  /** Not used in this form; see {@link JsonSchemaToolSpec}. */
  input_schema?: never;
  /** Runs the tool with the input parsed by `input` (defaults and transforms applied). */
  run(input: z.output<Z>, context: ToolCallContext): ToolRunResult;
}

/**
 * A tool made by {@link defineTool}: a {@link ToolHandler} for `new ToolRegistry([...])` whose
 * definition was already validated, and whose `run` checks its input before the typed function
 * sees it.
 */
export interface TypedToolHandler<I> extends ToolHandler {
  /** The validated definition, with the JSON schema providers receive. */
  readonly definition: ToolDefinition;
  /**
   * Phantom marker of the input type `run` was written against, for type-level use
   * (`typeof tool.inputType`); always `undefined` at run time.
   */
  readonly inputType?: I;
}

/** A tool call's input did not match the tool's schema; `issues` name each path (`input.city`). */
export class ToolInputError extends YourtoolError {
  /** Every problem found, each with its path. */
  readonly issues: ParseIssue[];
  /** The tool whose input was refused. */
  readonly toolName: string;

  constructor(toolName: string, issues: ParseIssue[]) {
    super(
      'tool_input_invalid',
      `invalid input for ${toolName}: ${issues.map((i) => `${i.path} ${i.message}`).join('; ')}`,
    );
    this.issues = issues;
    this.toolName = toolName;
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Brings zod's JSON Schema into the subset: drops `$schema`, drops the ±2^53 bounds zod adds to
 * every `.int()`, and folds a nullable `anyOf: [X, {type: "null"}]` into `X` with `"null"` added
 * to its type (and enum). Anything else outside the subset is left for `validateToolDefinition`
 * to refuse with its path.
 */
function toSubset(node: unknown, isRoot: boolean): unknown {
  if (Array.isArray(node)) return node.map((n) => toSubset(n, false));
  if (!isPlainObject(node)) return node;
  const anyOf = node.anyOf;
  if (Array.isArray(anyOf) && anyOf.length === 2) {
    const nullIndex = anyOf.findIndex(
      (b) => isPlainObject(b) && b.type === 'null' && Object.keys(b).length === 1,
    );
    const other = anyOf[1 - nullIndex];
    if (nullIndex !== -1 && isPlainObject(other) && typeof other.type === 'string') {
      const { anyOf: _dropped, ...rest } = node;
      const merged: Record<string, unknown> = { ...rest, ...other, type: [other.type, 'null'] };
      if (Array.isArray(other.enum)) merged.enum = [...other.enum, null];
      return toSubset(merged, isRoot);
    }
  }
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (isRoot && key === '$schema') continue;
    if (key === 'minimum' && value === Number.MIN_SAFE_INTEGER && node.type === 'integer') continue;
    if (key === 'maximum' && value === Number.MAX_SAFE_INTEGER && node.type === 'integer') continue;
    if (key === 'properties' && isPlainObject(value)) {
      out[key] = Object.fromEntries(
        Object.entries(value).map(([name, child]) => [name, toSubset(child, false)]),
      );
    } else {
      out[key] = toSubset(value, false);
    }
  }
  return out;
}

function zodInputSchema(name: string, schema: z.ZodObject): Record<string, unknown> {
  let json: unknown;
  try {
    json = z.toJSONSchema(schema, { io: 'input' });
  } catch (error) {
    throw new ToolDefinitionError(name, [
      {
        path: 'input',
        message: `the zod schema cannot be written as JSON Schema: ${
          error instanceof Error ? error.message : String(error)
        }`,
      },
    ]);
  }
  return toSubset(json, true) as Record<string, unknown>;
}

/**
 * Defines a tool whose `run` receives typed input, inferred from a JSON-Schema literal.
 * The definition is validated at once (throws `ToolDefinitionError` naming each path outside
 * the subset); at run time the input is checked against the schema before `run` is called, and
 * a mismatch throws {@link ToolInputError} naming the path, which the session turns into a tool
 * result with `is_error: true`.
 *
 * @example
 * const weather = defineTool({
 *   name: 'weather',
 *   description: 'Current weather for a city',
 *   side_effects: 'network',
 *   input_schema: {
 *     type: 'object',
 *     properties: { city: { type: 'string' }, unit: { enum: ['c', 'f'] } },
 *     required: ['city'],
 *   },
 *   run: ({ city, unit }) => `${city}: 21°${unit ?? 'c'}`, // city: string, unit?: 'c' | 'f'
 * });
 */
export function defineTool<const S extends JsonSchemaObjectRoot>(
  spec: JsonSchemaToolSpec<S>,
): TypedToolHandler<FromJsonSchema<S>>;
/**
 * Defines a tool whose `run` receives the input parsed by a zod object schema (`z.output` of
 * it). The JSON schema providers receive is made with `z.toJSONSchema` (input side) and brought
 * into the subset; a schema that cannot be (unions, dates, records) is refused at once with
 * `ToolDefinitionError`. At run time the input is parsed with the schema before `run` is called;
 * a parse failure throws {@link ToolInputError} naming the path.
 */
export function defineTool<Z extends z.ZodObject>(
  spec: ZodToolSpec<Z>,
): TypedToolHandler<z.output<Z>>;
export function defineTool(
  spec: JsonSchemaToolSpec<JsonSchemaObjectRoot> | ZodToolSpec<z.ZodObject>,
): TypedToolHandler<unknown> {
  const zodSchema = 'input' in spec && spec.input !== undefined ? spec.input : undefined;
  const input_schema =
    zodSchema !== undefined
      ? zodInputSchema(spec.name, zodSchema)
      : (spec as JsonSchemaToolSpec<JsonSchemaObjectRoot>).input_schema;
  const definition = validateToolDefinition({
    name: spec.name,
    description: spec.description,
    input_schema,
    side_effects: spec.side_effects,
    ...(spec.requires_workspace === undefined
      ? {}
      : { requires_workspace: spec.requires_workspace }),
  });
  const userRun = spec.run as (input: unknown, context: ToolCallContext) => ToolRunResult;
  const run = async (
    input: Record<string, unknown>,
    context: ToolCallContext,
  ): Promise<ToolOutput> => {
    if (zodSchema !== undefined) {
      const parsed = zodSchema.safeParse(input);
      if (!parsed.success) {
        throw new ToolInputError(
          definition.name,
          parsed.error.issues.map((issue) => ({
            path: formatPath(issue.path, 'input'),
            message: issue.message,
          })),
        );
      }
      return userRun(parsed.data, context);
    }
    const checked = validateToolInput(definition, input);
    if (!checked.ok) throw new ToolInputError(definition.name, checked.issues);
    return userRun(input, context);
  };
  checkMaxResultTokens(definition.name, spec.max_result_tokens);
  const limit =
    spec.max_result_tokens === undefined ? {} : { max_result_tokens: spec.max_result_tokens };
  return { definition, run, ...limit };
}

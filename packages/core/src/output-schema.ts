import type { ErrorObject } from 'ajv/dist/2020.js';
import { YourtoolError } from './errors.js';
import { newDraft2020Ajv } from './load-ajv.js';
import { formatPath } from './parse.js';
import { SchemaCompiler } from './schema-compiler.js';

/** One reason a value does not fit an output schema. */
export interface OutputIssue {
  /** Where in the value (`$`, `$.items[2].name`). */
  path: string;
  /** The rule broken: a JSON Schema keyword (`required`, `type`), `json`, `tool_call`, `refusal`. */
  rule: string;
  /** What is wrong, for people. */
  message: string;
}

/** The result of checking a value against an output schema. */
export type OutputCheck<T> = { ok: true; value: T } | { ok: false; issues: OutputIssue[] };

/** A JSON Schema document (an object; `true`/`false` schemas are not accepted). */
export type JsonSchemaObject = { readonly [keyword: string]: unknown };

/**
 * The part of a Standard Schema v1 validator (zod 4, valibot, arktype...) that core uses:
 * `validate`, plus Standard JSON Schema's `jsonSchema.input()` to send the schema to models.
 * See https://standardschema.dev.
 */
export interface StandardOutputSchema<Output = unknown> {
  /** The Standard Schema v1 properties. */
  readonly '~standard': {
    readonly version: 1;
    readonly vendor: string;
    readonly validate: (value: unknown) => StandardResult<Output> | Promise<StandardResult<Output>>;
    readonly types?: { readonly input: unknown; readonly output: Output } | undefined;
    /** Standard JSON Schema: converts the validator to a JSON Schema document. */
    readonly jsonSchema?: {
      readonly input: (options: { readonly target: string }) => Record<string, unknown>;
    };
  };
}

/** A Standard Schema v1 validation result. */
export type StandardResult<Output> =
  | { readonly value: Output; readonly issues?: undefined }
  | {
      readonly issues: ReadonlyArray<{
        readonly message: string;
        readonly path?: ReadonlyArray<PropertyKey | { readonly key: PropertyKey }> | undefined;
      }>;
    };

/**
 * What a caller may ask an object for: a JSON Schema document, or a Standard Schema validator
 * that can give one (a zod 4 schema, for one). Validation uses the validator itself; a JSON
 * Schema is validated with ajv (draft 2020-12, formats not enforced).
 */
export type OutputSchemaInput<T = unknown> = JsonSchemaObject | StandardOutputSchema<T>;

/** The TypeScript type of the objects a schema describes (`unknown` for a JSON Schema). */
export type OutputOf<S> = S extends StandardOutputSchema<infer O> ? O : unknown;

const RESOLVED: unique symbol = Symbol.for('yourtool.resolved-output-schema');

/** An output schema ready to send and to check replies with. */
export interface ResolvedOutputSchema<T = unknown> {
  /** The JSON Schema sent to the model (no `$schema` key), the full schema, before any projection. */
  readonly jsonSchema: Record<string, unknown>;
  /** Checks a parsed reply against the full schema. Never throws for a bad value. */
  validate(value: unknown): OutputCheck<T>;
  /** Brand telling a resolved schema from a JSON Schema. */
  readonly [RESOLVED]: true;
}

/** An output schema could not be used: not a JSON Schema object nor a usable validator. */
export class OutputSchemaError extends YourtoolError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('output_schema_invalid', `output schema: ${message}`, options);
  }
}

/**
 * The compiled output schemas of this process (bounded; see {@link SchemaCompiler}). Its ajv
 * instance, and ajv's modules, are built on the first compile, not at import.
 */
const compiler = new SchemaCompiler(newDraft2020Ajv);

function pathOfPointer(pointer: string): string {
  const parts = pointer
    .split('/')
    .slice(1)
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((part) => (/^\d+$/.test(part) ? Number(part) : part));
  return formatPath(parts, '$');
}

function issueOfAjv(error: ErrorObject): OutputIssue {
  const params = error.params as { missingProperty?: string; additionalProperty?: string };
  const property = params.missingProperty ?? params.additionalProperty;
  const path = pathOfPointer(error.instancePath);
  return {
    path: property ? `${path}.${property}` : path,
    rule: error.keyword,
    message: error.message ?? error.keyword,
  };
}

function withoutDialect(schema: Record<string, unknown>): Record<string, unknown> {
  const { $schema: _dialect, ...rest } = schema;
  return rest;
}

function resolveJsonSchema(input: JsonSchemaObject): ResolvedOutputSchema {
  const jsonSchema = withoutDialect(structuredClone(input) as Record<string, unknown>);
  let check: ReturnType<typeof compiler.compile>;
  try {
    check = compiler.compile(jsonSchema);
  } catch (error) {
    throw new OutputSchemaError(`not a valid JSON Schema: ${(error as Error).message}`, {
      cause: error,
    });
  }
  return {
    jsonSchema,
    validate: (value) =>
      check(value)
        ? { ok: true, value }
        : { ok: false, issues: (check.errors ?? []).map(issueOfAjv) },
    [RESOLVED]: true,
  };
}

function pathOfStandard(
  path: ReadonlyArray<PropertyKey | { readonly key: PropertyKey }> | undefined,
): string {
  const keys = (path ?? []).map((p) => (typeof p === 'object' ? p.key : p));
  return formatPath(
    keys.map((k) => (typeof k === 'symbol' ? String(k) : k)),
    '$',
  );
}

/** A Standard Schema issue's rule: zod's `code` (`invalid_type`), else the vendor's name. */
function ruleOf(issue: object, vendor: string): string {
  const code = (issue as { code?: unknown }).code;
  return typeof code === 'string' ? code : vendor;
}

function resolveStandard<T>(input: StandardOutputSchema<T>): ResolvedOutputSchema<T> {
  const standard = input['~standard'];
  if (!standard.jsonSchema) {
    throw new OutputSchemaError(
      `the ${standard.vendor} validator cannot give a JSON Schema (Standard JSON Schema's jsonSchema.input); pass a JSON Schema instead`,
    );
  }
  let raw: Record<string, unknown>;
  try {
    raw = standard.jsonSchema.input({ target: 'draft-2020-12' });
  } catch (error) {
    throw new OutputSchemaError(
      `the ${standard.vendor} schema has no JSON Schema form: ${(error as Error).message}`,
      { cause: error },
    );
  }
  return {
    jsonSchema: withoutDialect(raw),
    validate(value) {
      const result = standard.validate(value);
      if (result instanceof Promise) {
        throw new OutputSchemaError(
          `the ${standard.vendor} validator is asynchronous; use a synchronous one`,
        );
      }
      if (result.issues === undefined) return { ok: true, value: result.value };
      return {
        ok: false,
        issues: result.issues.map((issue) => ({
          path: pathOfStandard(issue.path),
          rule: ruleOf(issue, standard.vendor),
          message: issue.message,
        })),
      };
    },
    [RESOLVED]: true,
  };
}

/** Whether a value is an already resolved output schema. */
export function isResolvedOutputSchema(value: unknown): value is ResolvedOutputSchema {
  return typeof value === 'object' && value !== null && RESOLVED in value;
}

const cache = new WeakMap<object, ResolvedOutputSchema>();

/**
 * Turns a JSON Schema or a Standard Schema validator into `{ jsonSchema, validate }`. Throws
 * {@link OutputSchemaError} when the schema cannot be compiled or converted. Results are cached
 * per schema object; a resolved schema is returned as it is.
 */
export function resolveOutputSchema<S extends OutputSchemaInput>(
  input: S | ResolvedOutputSchema<OutputOf<S>>,
): ResolvedOutputSchema<OutputOf<S>> {
  if (isResolvedOutputSchema(input)) return input as ResolvedOutputSchema<OutputOf<S>>;
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw new OutputSchemaError('expected a JSON Schema object or a Standard Schema validator');
  }
  const known = cache.get(input);
  if (known) return known as ResolvedOutputSchema<OutputOf<S>>;
  const resolved =
    '~standard' in input
      ? resolveStandard(input as StandardOutputSchema)
      : resolveJsonSchema(input as JsonSchemaObject);
  cache.set(input, resolved);
  return resolved as ResolvedOutputSchema<OutputOf<S>>;
}

import type { z } from 'zod';
import { AdapterOptionError, InvalidRequestError } from './errors.js';
import { emptyOutputOf } from './lazy-schema.js';
import { loadZod } from './load-zod.js';
import { unknownNameMessage } from './nearest-name.js';
import { formatPath } from './parse.js';

/**
 * Checks an adapter's configured `options` against its schema (a zod `strictObject`).
 * @param label - The adapter named in the error (`anthropic`, `mistral`).
 * @throws AdapterOptionError naming the first offending field (`options.<path>`) and, for an
 * unknown key, the nearest known one; never quoting the value (it may be a key).
 */
export function parseAdapterOptions<S extends z.ZodType>(
  schema: S,
  options: unknown,
  label: string,
): z.output<S> {
  const empty = isEmptyOptions(options) ? emptyOutputOf(schema) : undefined;
  if (empty) return empty();
  const parsed = schema.safeParse(options ?? {}, { error: unknownOptionNames });
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0] as z.core.$ZodIssue;
  throw new AdapterOptionError(label, formatPath(issue.path, 'options'), optionProblem(issue));
}

/**
 * Checks one call's `providerOptions[provider]` against the adapter's per-call schema.
 * @throws InvalidRequestError (not retryable) naming `providerOptions.<provider>.<path>`, before
 * anything is sent.
 */
export function parseProviderCallOptions<S extends z.ZodType>(
  schema: S,
  options: unknown,
  provider: string,
): z.output<S> {
  const empty = isEmptyOptions(options) ? emptyOutputOf(schema) : undefined;
  if (empty) return empty();
  const parsed = schema.safeParse(options ?? {}, { error: unknownOptionNames });
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0] as z.core.$ZodIssue;
  const path = formatPath(issue.path, `providerOptions.${provider}`);
  throw new InvalidRequestError(`${path}: ${optionProblem(issue)}`, { provider });
}

/** Options nobody set: absent, or a plain object with no keys (what `{}` parses to, the schema knows). */
function isEmptyOptions(options: unknown): boolean {
  if (options === undefined || options === null) return true;
  if (typeof options !== 'object' || Object.getPrototypeOf(options) !== Object.prototype)
    return false;
  return Reflect.ownKeys(options).length === 0;
}

/**
 * The message of an unknown option: each key with the nearest one its object knows
 * (`unknown option "reasoning_efort"; did you mean "reasoning_effort"?`). An error map, since
 * only it sees the object schema that refused the key.
 */
const unknownOptionNames: z.core.$ZodErrorMap = (issue) => {
  if (issue.code !== 'unrecognized_keys') return undefined;
  const known =
    issue.inst instanceof loadZod().core.$ZodObject ? Object.keys(issue.inst._zod.def.shape) : [];
  return unknownNameMessage('option', issue.keys, known);
};

/** An option issue for people: what was expected, never the value itself (it may be a key). */
function optionProblem(issue: z.core.$ZodIssue): string {
  if (issue.code === 'invalid_type') return `expected ${issue.expected}`;
  return issue.message;
}

import { formatPath } from '@yourtool/core';
import { parse as parseYaml } from 'yaml';
import type { z } from 'zod';
import { RouterConfigError } from './errors.js';

/**
 * Parses a YAML document (or takes an already-parsed value) and validates it with `schema`;
 * throws {@link RouterConfigError} naming `source` and every offending path.
 */
export function parseYamlDocument<S extends z.ZodType>(
  schema: S,
  input: string | unknown,
  source: string,
): z.output<S> {
  let value = input;
  if (typeof input === 'string') {
    try {
      value = parseYaml(input);
    } catch (error) {
      throw new RouterConfigError(source, [
        { path: '$', message: `not valid YAML: ${(error as Error).message}` },
      ]);
    }
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    throw new RouterConfigError(
      source,
      parsed.error.issues.map((issue) => ({
        path: formatPath(issue.path),
        message: issue.message,
      })),
    );
  }
  return parsed.data;
}

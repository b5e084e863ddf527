import { formatPath } from '@yourtool/core';
import { parseDocument } from 'yaml';
import type { z } from 'zod';
import { RouterConfigError } from './errors.js';
import { secretsInText, secretsInValue } from './secrets.js';

/**
 * Parses a YAML document (or takes an already-parsed value) and validates it with `schema`;
 * throws {@link RouterConfigError} naming `source` and every offending path. The error never
 * quotes a secret of the document (see {@link RouterConfigError}); parser warnings are not
 * printed.
 */
export function parseYamlDocument<S extends z.ZodType>(
  schema: S,
  input: string | unknown,
  source: string,
): z.output<S> {
  let value = input;
  const secrets: string[] = [];
  if (typeof input === 'string') {
    // found without parsing: a document with a syntax error still has its keys known
    secrets.push(...secretsInText(input));
    const syntax = (message: string) =>
      new RouterConfigError(source, [{ path: '$', message: `not valid YAML: ${message}` }], {
        secrets,
      });
    const document = parseDocument(input, { prettyErrors: true });
    if (document.errors.length > 0) {
      throw new RouterConfigError(
        source,
        document.errors.map((error) => ({
          path: '$',
          message: `not valid YAML: ${error.message.trimEnd()}`,
        })),
        { secrets },
      );
    }
    try {
      value = document.toJS();
    } catch (error) {
      // e.g. too many aliases: the message names the limit, the cause is not kept
      throw syntax((error as Error).message);
    }
  }
  secretsInValue(value, secrets);
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    throw new RouterConfigError(
      source,
      parsed.error.issues.map((issue) => ({
        path: formatPath(issue.path),
        message: issue.message,
      })),
      { secrets },
    );
  }
  return parsed.data;
}

import { formatPath, unknownNameMessage } from '@yourtool/core';
import { parseDocument } from 'yaml';
import { z } from 'zod';
import { RouterConfigError } from './errors.js';
import { secretsInText, secretsInValue } from './secrets.js';

/**
 * The message of an unknown field: each key with the nearest one its object knows
 * (`unknown field "wire_nam"; did you mean "wire_name"?`). An error map, since only it sees the
 * object schema that refused the key.
 */
const unknownFieldNames: z.core.$ZodErrorMap = (issue) => {
  if (issue.code !== 'unrecognized_keys') return undefined;
  const known =
    issue.inst instanceof z.core.$ZodObject ? Object.keys(issue.inst._zod.def.shape) : [];
  return unknownNameMessage('field', issue.keys, known);
};

/**
 * Parses a YAML document (or takes an already-parsed value) and validates it with `schema`;
 * throws {@link RouterConfigError} naming `source` and every offending path (an unknown field
 * with the nearest known one, when one is close). The error never quotes a secret of the
 * document (see {@link RouterConfigError}); parser warnings are not printed.
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
  const parsed = schema.safeParse(value, { error: unknownFieldNames });
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

import { transformJSONSchema } from '@anthropic-ai/sdk/lib/transform-json-schema';
import { wrapOutputSchema } from '@yourtool/core/adapter';

type Schema = Record<string, unknown>;
type Warn = (event: string, reason: string, extra?: Record<string, unknown>) => void;

/** A constraint structured output does not enforce, moved into the description by the SDK. */
export interface AnthropicDroppedConstraint {
  /** Where in the schema (`$.properties.age`). */
  path: string;
  /** The keyword moved out (`minimum`, `maxLength`...). */
  keyword: string;
}

function isObject(value: unknown): value is Schema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Keywords that never constrain, or that the SDK rewrites rather than drops. */
const NOT_CONSTRAINTS = new Set([
  '$schema',
  'type',
  'oneOf',
  'additionalProperties',
  'description',
]);

/** The keywords of `original` that `sent` lacks, through properties, items, unions and $defs. */
function droppedBetween(
  original: unknown,
  sent: unknown,
  at: string,
): AnthropicDroppedConstraint[] {
  if (!isObject(original) || !isObject(sent)) return [];
  const out: AnthropicDroppedConstraint[] = [];
  for (const keyword of Object.keys(original)) {
    if (!(keyword in sent) && !NOT_CONSTRAINTS.has(keyword)) out.push({ path: at, keyword });
  }
  for (const key of ['properties', '$defs'] as const) {
    const from = original[key];
    const to = sent[key];
    if (!isObject(from) || !isObject(to)) continue;
    for (const name of Object.keys(from)) {
      out.push(...droppedBetween(from[name], to[name], `${at}.${key}.${name}`));
    }
  }
  out.push(...droppedBetween(original.items, sent.items, `${at}.items`));
  const union = (original.anyOf ?? original.oneOf) as unknown;
  if (Array.isArray(union) && Array.isArray(sent.anyOf)) {
    union.forEach((v, i) => {
      out.push(...droppedBetween(v, (sent.anyOf as unknown[])[i], `${at}.anyOf[${i}]`));
    });
  }
  return out;
}

/**
 * The output schema as the Messages API's structured output takes it: wrapped as `{ value }`
 * when its root is not an object, then projected by the SDK's own `transformJSONSchema`
 * (objects closed; constraints the API does not enforce, such as `minimum` or `maxLength`, moved
 * into the description), each one moved named in a `structured_output_projected` WARN. A schema
 * the SDK cannot project goes as it is, for the API to judge.
 */
export function anthropicOutputSchema(schema: Schema, warn: Warn): Schema {
  const wrapped = wrapOutputSchema(schema);
  let projected: Schema;
  try {
    projected = transformJSONSchema(wrapped);
  } catch {
    // the SDK refuses a node without a type and without a union or literal: the API would too
    return wrapped;
  }
  const dropped = droppedBetween(wrapped, projected, '$');
  if (dropped.length > 0) {
    warn(
      'structured_output_projected',
      `structured output does not enforce some constraints; they went into the schema's descriptions and are checked on the reply: ${dropped
        .map((d) => `${d.path} ${d.keyword}`)
        .join(', ')}`,
      { dropped },
    );
  }
  return projected;
}

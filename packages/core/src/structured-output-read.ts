import { dropProjectedNulls } from './output-nulls.js';
import type { OutputIssue, ResolvedOutputSchema } from './output-schema.js';
import { OutputValidationError } from './output-validation-error.js';
import { unwrapOutputValue } from './output-wrapper.js';
import type { CanonicalResponse } from './schemas/adapter.js';
import type { StructuredOutputPlan } from './structured-output-plan.js';

/**
 * The reply's JSON already parsed while it streamed (a {@link PartialJsonParser} fed every text
 * delta of the reply, which read it whole): reading a native reply uses `value` instead of
 * parsing the reply's text again when that text has `length` characters. (A tool call's input
 * is parsed by the adapter already.)
 */
export interface ParsedOutputText {
  /** How many characters of JSON text the parser read. */
  length: number;
  /** What it read: equal to `JSON.parse` of that text. */
  value: unknown;
}

/** An object read from a reply, with the JSON text it came from. */
export interface StructuredOutputRead<T> {
  /** The parsed, validated object. */
  value: T;
  /** The JSON text it was read from: the reply text (native) or the tool call's input (tool). */
  text: string;
}

type Source =
  | { ok: true; raw: unknown; text: string }
  | { ok: false; issue: OutputIssue; text: string };

function replyText(response: Pick<CanonicalResponse, 'content'>): string {
  return response.content
    .filter((block) => block.type === 'text')
    .map((block) => block.text)
    .join('');
}

function nativeSource(
  response: Pick<CanonicalResponse, 'content'>,
  parsed: ParsedOutputText | undefined,
): Source {
  const text = replyText(response);
  // the reply's text is the deltas the parser read, joined: its length is the check, since
  // comparing the two texts would first copy each out of its many pieces
  if (parsed !== undefined && parsed.length === text.length) {
    return { ok: true, raw: parsed.value, text };
  }
  if (text.trim() === '') {
    return {
      ok: false,
      text,
      issue: { path: '$', rule: 'json', message: 'the reply has no text' },
    };
  }
  try {
    return { ok: true, raw: JSON.parse(text), text };
  } catch (error) {
    return {
      ok: false,
      text,
      issue: { path: '$', rule: 'json', message: `not JSON: ${(error as Error).message}` },
    };
  }
}

function toolSource(response: Pick<CanonicalResponse, 'content'>, toolName: string): Source {
  const call = response.content.find((b) => b.type === 'tool_use' && b.name === toolName);
  if (call?.type !== 'tool_use') {
    return {
      ok: false,
      text: replyText(response),
      issue: { path: '$', rule: 'tool_call', message: `the model did not call ${toolName}` },
    };
  }
  return { ok: true, raw: call.input, text: JSON.stringify(call.input) };
}

/**
 * Reads the object a reply gives under `plan` and checks it against the full schema. Returns
 * `{ value, text }`, or throws {@link OutputValidationError}: for a refusal (stop reason
 * `refusal` or the provider's refusal field, reported as `refusal`), for text that is not JSON,
 * a missing tool call, or a value that breaks the schema (each issue with its path and rule;
 * `cut` when the reply stopped at max_tokens). A non-object schema's `{ value }` wrapper is
 * removed first, and a `null` sent for an optional property that does not take null (a strict
 * projection's optional-to-nullable) is read as absent. `parsed`, the reply's JSON as a stream
 * parser read it, spares parsing the text again.
 */
export function readStructuredOutput<T>(
  response: Pick<CanonicalResponse, 'content' | 'stop_reason' | 'refusal' | 'request_id'>,
  schema: ResolvedOutputSchema<T>,
  plan: StructuredOutputPlan,
  parsed?: ParsedOutputText,
): StructuredOutputRead<T> {
  const base = { stop_reason: response.stop_reason, request_id: response.request_id };
  if (response.stop_reason === 'refusal' || (response.refusal ?? '') !== '') {
    const refusal = response.refusal || replyText(response) || 'no reason given';
    throw new OutputValidationError({
      ...base,
      text: replyText(response),
      refusal,
      issues: [{ path: '$', rule: 'refusal', message: `the model refused: ${refusal}` }],
    });
  }
  const source =
    plan.mode === 'tool' ? toolSource(response, plan.toolName) : nativeSource(response, parsed);
  if (!source.ok) {
    throw new OutputValidationError({ ...base, text: source.text, issues: [source.issue] });
  }
  const unwrapped = unwrapOutputValue(schema.jsonSchema, source.raw);
  const checked = schema.validate(dropProjectedNulls(schema.jsonSchema, unwrapped));
  if (!checked.ok) {
    throw new OutputValidationError({ ...base, text: source.text, issues: checked.issues });
  }
  return { value: checked.value, text: source.text };
}

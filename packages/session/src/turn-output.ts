import {
  type CanonicalResponse,
  type MessageMetadata,
  type OutputIssue,
  OutputValidationError,
  type ParsedOutputText,
  planStructuredOutput,
  type ResolvedOutputSchema,
  readStructuredOutput,
  resolveOutputSchema,
  type StructuredOutputPlan,
  withStructuredOutput,
} from '@yourtool/core';
import type { RouteDecision } from '@yourtool/router';
import { InvalidSendOptionError } from './errors.js';
import type { SendOptions } from './options.js';

/** The most attempts a repair policy may make (the first reply and two repairs). */
export const MAX_OUTPUT_ATTEMPTS = 3;

/** Issues kept in a stored reply's metadata; the rest are counted, not listed. */
const STORED_ISSUES = 20;

/**
 * What a stored assistant reply of a turn that asked for an object records in
 * `metadata.structured_output`: how it was asked (`native` or the forced `tool`), whether it
 * gave a valid object, its attempt, and why it is not valid (core's metadata schema).
 */
export type StructuredOutputRecord = NonNullable<MessageMetadata['structured_output']>;

/** What one reply amounted to: the object, or the error saying why there is none. */
export type ObjectRead = { plan: StructuredOutputPlan; record: StructuredOutputRecord } & (
  | { ok: true; value: unknown }
  | { ok: false; error: OutputValidationError }
);

/** The part of a finished reply an object is read from. */
export type ReplyForObject = Pick<
  CanonicalResponse,
  'content' | 'stop_reason' | 'refusal' | 'request_id'
>;

function repairAttempts(options: SendOptions): number {
  const policy = options.outputRepair;
  if (policy === undefined) return 1;
  const max = (policy as { maxAttempts?: unknown } | null)?.maxAttempts;
  if (typeof max !== 'number' || !Number.isInteger(max) || max < 1 || max > MAX_OUTPUT_ATTEMPTS) {
    throw new InvalidSendOptionError(
      'outputRepair',
      `outputRepair.maxAttempts must be a whole number from 1 to ${MAX_OUTPUT_ATTEMPTS} (attempts in all, the first reply included); got ${JSON.stringify(max)}`,
    );
  }
  if (!options.output) {
    throw new InvalidSendOptionError('outputRepair', 'outputRepair needs `output` (a schema)');
  }
  return max;
}

/**
 * The object a turn asks for (`SendOptions.output`): the schema resolved once, the repair
 * policy, and how many replies were read. Each call plans native structured output or the
 * forced-tool fallback from the model routing chose (core's plan), so a turn that falls back
 * or a session that swaps models keeps asking for the same object.
 */
export class TurnOutput {
  readonly schema: ResolvedOutputSchema;
  /** Replies the turn may read in all (1 without a repair policy). */
  readonly maxAttempts: number;
  /** Replies read so far. */
  attempts = 0;
  /** The valid object, once a reply gave one. */
  value: unknown;
  done = false;

  private constructor(schema: ResolvedOutputSchema, maxAttempts: number) {
    this.schema = schema;
    this.maxAttempts = maxAttempts;
  }

  /**
   * The turn's output, or null when it asks for none. Throws `InvalidSendOptionError` for a
   * bad repair policy and core's `OutputSchemaError` for a schema it cannot use, before
   * anything is stored.
   */
  static open(options: SendOptions): TurnOutput | null {
    const attempts = repairAttempts(options);
    if (options.output === undefined || options.output === null) return null;
    if (options.output_schema) {
      throw new InvalidSendOptionError(
        'output',
        'give either `output` (an object, parsed and validated) or `output_schema` (sent as is), not both',
      );
    }
    return new TurnOutput(resolveOutputSchema(options.output), attempts);
  }

  /** How the call to the model routing chose asks for the object. */
  plan(decision: RouteDecision): StructuredOutputPlan {
    return planStructuredOutput(decision.capabilities);
  }

  /** The request asking for the object under `plan`. */
  request<R extends Parameters<typeof withStructuredOutput>[0]>(
    request: R,
    plan: StructuredOutputPlan,
  ): R {
    return withStructuredOutput(request, this.schema, plan);
  }

  /**
   * Whether a finished reply is the model's answer, to read the object from, rather than a
   * step of the tool loop: under the fallback, a reply that calls the output tool or no tool
   * at all; natively, a reply that does not stop to call tools.
   */
  answers(reply: ReplyForObject, plan: StructuredOutputPlan): boolean {
    const uses = reply.content.filter((block) => block.type === 'tool_use');
    if (plan.mode === 'tool') {
      return uses.length === 0 || uses.some((use) => use.name === plan.toolName);
    }
    return !(reply.stop_reason === 'tool_use' && uses.length > 0);
  }

  /**
   * Reads a finished reply (the next attempt): the object, or why there is none. `parsed` is
   * the reply's JSON as the stream's parser read it, which spares parsing it again.
   */
  read(
    reply: ReplyForObject,
    plan: StructuredOutputPlan,
    parsed: ParsedOutputText | null = null,
  ): ObjectRead {
    this.attempts++;
    const base = { mode: plan.mode, attempt: this.attempts };
    try {
      const { value } = readStructuredOutput(reply, this.schema, plan, parsed ?? undefined);
      return { ok: true, value, plan, record: { ...base, valid: true } };
    } catch (error) {
      if (!(error instanceof OutputValidationError)) throw error;
      const record: StructuredOutputRecord = {
        ...base,
        valid: false,
        issues: error.issues.slice(0, STORED_ISSUES),
        ...(error.issues.length > STORED_ISSUES ? { issue_count: error.issues.length } : {}),
        ...(error.cut ? { cut: true } : {}),
        ...(error.refusal !== undefined ? { refused: true } : {}),
      };
      return { ok: false, error, plan, record };
    }
  }

  /** Whether an invalid reply is sent back for another attempt (never a refusal). */
  repairs(error: OutputValidationError): boolean {
    return error.refusal === undefined && this.attempts < this.maxAttempts;
  }
}

/**
 * What the model is told when its object did not validate, for the repair policy: every
 * issue with its path and rule, and what to do.
 */
export function repairText(error: OutputValidationError): string {
  const lines = error.issues.map((i) => `- ${i.path}: ${i.message} (${i.rule})`);
  const cut = error.cut ? ' It was cut off at the output token limit: give a shorter answer.' : '';
  return [
    `Your answer is not a valid object for the requested schema.${cut} The problems:`,
    ...lines,
    'Answer again with the whole object, following the schema exactly.',
  ].join('\n');
}

import { YourtoolError } from './errors.js';
import type { OutputIssue } from './output-schema.js';
import type { StopReason } from './schemas/stop-reason.js';

/** What {@link OutputValidationError} is built from. */
export interface OutputValidationDetails {
  /** Every reason the reply is not the object asked for. */
  issues: OutputIssue[];
  /** The reply's stop reason. */
  stop_reason: StopReason;
  /** The JSON text the object was read from (the reply text, or the tool call's input). */
  text: string;
  /** The model's refusal, when it declined to answer. */
  refusal?: string | undefined;
  /** The canonical request id of the call. */
  request_id?: string | undefined;
}

function summary(details: OutputValidationDetails, cut: boolean): string {
  if (details.refusal !== undefined) return `the model refused: ${details.refusal}`;
  const head = details.issues
    .slice(0, 5)
    .map((i) => `${i.path}: ${i.message} (${i.rule})`)
    .join('; ');
  const more = details.issues.length > 5 ? ` and ${details.issues.length - 5} more` : '';
  const tail = cut ? ' (the reply was cut at max_tokens)' : '';
  return `the reply is not a valid object: ${head}${more}${tail}`;
}

/**
 * A reply asked for an object and did not give a valid one: it did not parse, did not match the
 * schema, was cut at max_tokens (`cut`), did not call the output tool, or was a refusal
 * (`refusal`). Never retried by the adapter; a repair policy above may send `issues` back.
 */
export class OutputValidationError extends YourtoolError {
  /** Every reason, each with a path into the value and the rule broken. */
  readonly issues: OutputIssue[];
  /** The reply's stop reason. */
  readonly stop_reason: StopReason;
  /** True when the reply was cut at max_tokens, so the object is incomplete. */
  readonly cut: boolean;
  /** The model's refusal text, when it declined. */
  readonly refusal?: string;
  /** The JSON text the object was read from. */
  readonly text: string;
  /** The canonical request id of the call ('' when unknown). */
  readonly request_id: string;

  constructor(details: OutputValidationDetails) {
    const cut = details.stop_reason === 'max_tokens';
    super(
      details.refusal !== undefined ? 'output_refused' : 'output_invalid',
      summary(details, cut),
    );
    this.issues = details.issues;
    this.stop_reason = details.stop_reason;
    this.cut = cut;
    if (details.refusal !== undefined) this.refusal = details.refusal;
    this.text = details.text;
    this.request_id = details.request_id ?? '';
  }
}

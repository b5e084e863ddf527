import { YourtoolError } from './errors.js';

/** Where a JSON text stopped being JSON, for {@link PartialJsonError}. */
export interface PartialJsonProblem {
  /** Offset, in UTF-16 code units, of the character that broke the text. */
  readonly offset: number;
  /** What was expected there. */
  readonly reason: string;
}

/** The text fed to a {@link PartialJsonParser} is not JSON, or ended before the value did. */
export class PartialJsonError extends YourtoolError {
  /** Offset of the offending character in the text fed so far (its length when it ended early). */
  readonly offset: number;
  /** What was expected there. */
  readonly reason: string;

  constructor(problem: PartialJsonProblem) {
    super('partial_json_invalid', `not JSON at offset ${problem.offset}: ${problem.reason}`);
    this.offset = problem.offset;
    this.reason = problem.reason;
  }
}

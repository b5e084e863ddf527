/** Where a text was cut by an emulated stop sequence. */
export interface StopSequenceCut {
  /** The text before the first stop sequence (all of it when none occurs). */
  text: string;
  /** The stop sequence found, or `null`. */
  matched: string | null;
}

/** Cuts a text at the earliest occurrence of any of `sequences`. */
export function cutAtStopSequence(text: string, sequences: readonly string[]): StopSequenceCut {
  let at = -1;
  let matched: string | null = null;
  for (const sequence of sequences) {
    if (sequence === '') continue;
    const index = text.indexOf(sequence);
    if (index >= 0 && (at < 0 || index < at)) {
      at = index;
      matched = sequence;
    }
  }
  return at < 0 ? { text, matched: null } : { text: text.slice(0, at), matched };
}

/**
 * Applies stop sequences to streamed text for a model that refuses the `stop` parameter. Text is
 * passed through as it arrives except a tail that could be the start of a stop sequence, which
 * is held back until the next piece shows whether it is; once a sequence is complete, the text
 * before it is released and everything after is discarded.
 */
export class StopSequenceCutter {
  readonly #sequences: string[];
  #held = '';
  #matched: string | null = null;

  /** Creates a cutter for these stop sequences (empty ones are ignored). */
  constructor(sequences: readonly string[]) {
    this.#sequences = sequences.filter((s) => s !== '');
  }

  /** The stop sequence that ended the text, once one did. */
  get matched(): string | null {
    return this.#matched;
  }

  /** Feeds a piece of text; returns the text that may be emitted now. */
  push(piece: string): string {
    if (this.#matched !== null) return '';
    const buffer = this.#held + piece;
    const cut = cutAtStopSequence(buffer, this.#sequences);
    if (cut.matched !== null) {
      this.#matched = cut.matched;
      this.#held = '';
      return cut.text;
    }
    let keep = 0;
    for (const sequence of this.#sequences) {
      for (let n = Math.min(sequence.length - 1, buffer.length); n > keep; n--) {
        if (buffer.endsWith(sequence.slice(0, n))) {
          keep = n;
          break;
        }
      }
    }
    this.#held = buffer.slice(buffer.length - keep);
    return buffer.slice(0, buffer.length - keep);
  }

  /** Releases held-back text (the reply went on with something else, or ended). */
  flush(): string {
    const held = this.#held;
    this.#held = '';
    return held;
  }
}

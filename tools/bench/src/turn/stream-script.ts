/** What `turn/stream`'s server streams: the count of text deltas of a reply, and each one's text. */
export const STREAM_DELTAS = 10_000;

/** The text of delta `i`. */
export function streamWord(i: number): string {
  return `w${i} `;
}

// UI ids of replies (decision 0178): a turn's stored user message keeps its id in the UI, and
// the assistant UI message answering it (every stored assistant and tool row of that turn)
// takes that id with this suffix, so either id names a stored point.
const SUFFIX = '.reply';

/** The UI id of the reply to the stored user message `userMessageId`. */
export function replyIdFor(userMessageId: string): string {
  return `${userMessageId}${SUFFIX}`;
}

/** The stored user message id a reply's UI id names, or null when it names none. */
export function userIdOfReply(replyId: string): string | null {
  return replyId.endsWith(SUFFIX) && replyId.length > SUFFIX.length
    ? replyId.slice(0, -SUFFIX.length)
    : null;
}

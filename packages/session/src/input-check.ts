import { InvalidInputError } from './errors.js';
import { imageProblem } from './image-input.js';

/** Whether a text has nothing but whitespace (what providers refuse as an empty message). */
function isBlank(text: string): boolean {
  return text.trim() === '';
}

/** Why block `block` of a user message cannot be stored for providers, or null. */
function blockProblem(block: unknown): string | null {
  if (typeof block !== 'object' || block === null || Array.isArray(block))
    return `not a content block (got ${block === null ? 'null' : Array.isArray(block) ? 'an array' : typeof block})`;
  const record = block as Record<string, unknown>;
  switch (record.type) {
    case 'text':
      if (typeof record.text !== 'string')
        return `text block: text is ${typeof record.text}, not a string`;
      return isBlank(record.text) ? 'text block: the text is empty or only whitespace' : null;
    case 'image': {
      const problem = imageProblem(record);
      return problem === null ? null : `image block: ${problem}`;
    }
    default:
      return `a user message holds text and image blocks only, not ${
        typeof record.type === 'string' ? `"${record.type}"` : 'a block without a type'
      }`;
  }
}

/**
 * Checks what `send()` was given before anything is routed or stored: text that is not empty
 * or only whitespace, or a non-empty list of text and image blocks, each one a block providers
 * take (non-blank text; an image with a media type, and base64 data or an http(s) URL that is
 * what it says). The first problem is thrown as {@link InvalidInputError} naming the block.
 * The input is checked once, here, where it enters the session (docs/decisions/0154).
 */
export function checkUserInput(input: unknown): void {
  if (typeof input === 'string') {
    if (isBlank(input)) throw new InvalidInputError(0, 'the text is empty or only whitespace');
    return;
  }
  if (!Array.isArray(input))
    throw new InvalidInputError(
      null,
      `input must be text or a list of content blocks, got ${input === null ? 'null' : typeof input}`,
    );
  if (input.length === 0) throw new InvalidInputError(null, 'the content list is empty');
  for (const [index, block] of input.entries()) {
    const problem = blockProblem(block);
    if (problem !== null) throw new InvalidInputError(index, problem);
  }
}

import type { ContentBlock } from './schemas/content.js';
import type { Message } from './schemas/message.js';
import type { ToolDefinition } from './schemas/tool.js';
import { isSealedMessage } from './sealed.js';
import { SealedPrefixMemo } from './sealed-prefix.js';

/** The four kinds of run the estimate counts, and none before the first character. */
const NONE = 0;
const WORD = 1;
const DIGITS = 2;
const SPACE = 3;
const PUNCTUATION = 4;
type Kind = typeof NONE | typeof WORD | typeof DIGITS | typeof SPACE | typeof PUNCTUATION;

// sticky, so `test` looks at one position and builds no match object
const LETTER = /\p{L}/uy;
const NUMBER = /\p{N}/uy;
const WHITE = /\s/uy;

/** The kind of the code point `code` at `index` of `text` (outside ASCII, by Unicode class). */
function kindAt(text: string, index: number, code: number): Kind {
  if (code < 0x80) {
    if ((code >= 0x61 && code <= 0x7a) || (code >= 0x41 && code <= 0x5a)) return WORD;
    if (code >= 0x30 && code <= 0x39) return DIGITS;
    if (code === 0x20 || (code >= 0x09 && code <= 0x0d)) return SPACE;
    return PUNCTUATION;
  }
  LETTER.lastIndex = index;
  if (LETTER.test(text)) return WORD;
  NUMBER.lastIndex = index;
  if (NUMBER.test(text)) return DIGITS;
  WHITE.lastIndex = index;
  return WHITE.test(text) ? SPACE : PUNCTUATION;
}

/** The tokens of one run: `length` UTF-16 units of `kind`; `ascii` when a word is all ASCII. */
function runTokens(kind: Kind, length: number, ascii: boolean, newline: boolean): number {
  switch (kind) {
    case WORD:
      return ascii ? 1 + Math.floor(Math.max(0, length - 9) / 6) : Math.ceil(length / 1.5);
    case DIGITS:
      return Math.ceil(length / 3);
    case SPACE:
      return newline ? 1 : 0;
    case PUNCTUATION:
      return Math.ceil(length / 2);
    default:
      return 0;
  }
}

/**
 * Estimates the tokens of a text without a tokenizer. On ordinary English prose it lands
 * within ±5% of OpenAI's o200k and cl100k encodings (checked in this package's tests against
 * gpt-tokenizer); on JSON and code it overestimates by up to ~25%, which errs on the safe side
 * for context-window checks. Each word counts one token (long words a little more), each run of
 * digits one per three digits, each run of punctuation one per two characters, each line break
 * one, and letters outside ASCII about two per three characters.
 */
export function estimateTextTokens(text: string): number {
  // one pass over the code points, counting runs of one kind; it allocates nothing, where a
  // regular expression's matches cost a few hundred bytes a word (decision 0204)
  let tokens = 0;
  let kind: Kind = NONE;
  let length = 0;
  let ascii = true;
  let newline = false;
  for (let i = 0; i < text.length; ) {
    const code = text.codePointAt(i) as number;
    const units = code > 0xffff ? 2 : 1;
    const next = kindAt(text, i, code);
    if (next !== kind) {
      tokens += runTokens(kind, length, ascii, newline);
      kind = next;
      length = 0;
      ascii = true;
      newline = false;
    }
    length += units;
    if (code >= 0x80) ascii = false;
    else if (code === 0x0a) newline = true;
    i += units;
  }
  return tokens + runTokens(kind, length, ascii, newline);
}

/**
 * Flat estimate for one image. Providers charge by pixel area (Anthropic about width×height/750,
 * up to ~1,600 for a full-size image); without decoding the image the estimate assumes the
 * largest size, so context checks err on the safe side.
 */
export const IMAGE_TOKEN_ESTIMATE = 1600;
/** Per-message framing overhead (role markers, separators). */
export const MESSAGE_OVERHEAD_TOKENS = 4;
/** Per-tool framing overhead in the tool list. */
export const TOOL_OVERHEAD_TOKENS = 8;

/** Estimates the tokens of one content block. */
export function estimateBlockTokens(block: ContentBlock): number {
  switch (block.type) {
    case 'text':
    case 'thinking':
      return estimateTextTokens(block.text);
    case 'redacted_thinking':
      return Math.ceil(block.data.length / 4);
    case 'image':
      return IMAGE_TOKEN_ESTIMATE;
    case 'tool_use':
      return estimateTextTokens(block.name) + estimateTextTokens(JSON.stringify(block.input)) + 4;
    case 'tool_result':
      return block.content.reduce((sum, inner) => sum + estimateBlockTokens(inner), 4);
  }
}

/** Estimates of sealed messages and frozen tool definitions: they cannot change (decision 0102). */
const messageEstimates = new WeakMap<object, number>();
const toolEstimates = new WeakMap<object, number>();

/**
 * Estimates the tokens of one message: its blocks plus {@link MESSAGE_OVERHEAD_TOKENS}. The
 * figure of a sealed message (`sealMessage`) is computed once and remembered.
 */
export function estimateMessageTokens(message: Message): number {
  const cached = messageEstimates.get(message);
  if (cached !== undefined) return cached;
  let tokens = MESSAGE_OVERHEAD_TOKENS;
  for (const block of message.content) tokens += estimateBlockTokens(block);
  if (isSealedMessage(message)) messageEstimates.set(message, tokens);
  return tokens;
}

/**
 * Estimates the tokens of one tool definition in the tool list. The figure of a frozen
 * definition (`freezeToolDefinition`) is computed once and remembered.
 */
export function estimateToolTokens(
  tool: Pick<ToolDefinition, 'name' | 'description' | 'input_schema'>,
): number {
  const cached = toolEstimates.get(tool);
  if (cached !== undefined) return cached;
  const tokens =
    TOOL_OVERHEAD_TOKENS +
    estimateTextTokens(tool.name) +
    estimateTextTokens(tool.description) +
    estimateTextTokens(JSON.stringify(tool.input_schema));
  if (Object.isFrozen(tool) && Object.isFrozen(tool.input_schema)) toolEstimates.set(tool, tokens);
  return tokens;
}

/** The estimate of a history's sealed messages, summed once (decision 0148). */
const sealedSums = new SealedPrefixMemo(() => ({ tokens: 0 }));

function addMessageTokens(sum: { tokens: number }, message: Message): void {
  sum.tokens += estimateMessageTokens(message);
}

/**
 * Heuristic input-token estimate for a request: messages, tool definitions and system prompt.
 * Adapters without a real tokenizer use it for `estimateInputTokens`. Sealed messages and
 * frozen tool definitions are estimated once, and the sum over the sealed messages a history
 * starts with is remembered, so a session's turn adds only what is new to it.
 */
export function estimateRequestTokens(
  messages: readonly Message[],
  tools: readonly Pick<ToolDefinition, 'name' | 'description' | 'input_schema'>[] = [],
  systemPrompt?: string | null,
): number {
  let tokens = systemPrompt ? estimateTextTokens(systemPrompt) + MESSAGE_OVERHEAD_TOKENS : 0;
  const prefix = sealedSums.run(messages, addMessageTokens);
  tokens += prefix.state.tokens;
  for (let i = prefix.end; i < messages.length; i++) {
    tokens += estimateMessageTokens(messages[i] as Message);
  }
  for (const tool of tools) tokens += estimateToolTokens(tool);
  return tokens;
}

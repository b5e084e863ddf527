import { type ContentBlock, type Logger, silentLogger } from '@yourtool/core';
import { OPENAI } from './request.js';

/**
 * What a reply's `content` (or a delta's) carries, part by part: text, thinking, or a part the
 * canonical format has no block for (named by its `type`, to be dropped with a WARN).
 */
export type OpenAIContentPiece =
  | { kind: 'text'; text: string }
  | { kind: 'thinking'; text: string }
  | { kind: 'dropped'; partType: string };

/**
 * The assistant content of a Chat Completions reply or delta as the wire may send it: OpenAI's
 * string, or (Mistral's Magistral and other compatible servers) an array of typed parts.
 */
export type OpenAIReplyContent = string | null | undefined | readonly unknown[];

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The name a dropped part is reported under: its `type`, or what kind of value it was. */
function partTypeOf(part: unknown): string {
  if (isRecord(part)) return typeof part.type === 'string' ? part.type : 'untyped';
  return Array.isArray(part) ? 'array' : typeof part;
}

/**
 * The text of a thinking part's `thinking` field: a plain string, or an array of text parts
 * (Mistral: `[{"type":"text","text":"…"}]`) joined; other inner parts are reported as dropped.
 */
function thinkingText(value: unknown, dropped: OpenAIContentPiece[]): string | null {
  if (typeof value === 'string') return value;
  if (!Array.isArray(value)) {
    dropped.push({ kind: 'dropped', partType: `thinking.${partTypeOf(value)}` });
    return null;
  }
  let text = '';
  for (const inner of value) {
    if (isRecord(inner) && inner.type === 'text' && typeof inner.text === 'string') {
      text += inner.text;
    } else if (typeof inner === 'string') {
      text += inner;
    } else {
      dropped.push({ kind: 'dropped', partType: `thinking.${partTypeOf(inner)}` });
    }
  }
  return text;
}

/** One typed part as pieces (a thinking part with unreadable inner parts yields several). */
function readPart(part: unknown): OpenAIContentPiece[] {
  if (typeof part === 'string') return part === '' ? [] : [{ kind: 'text', text: part }];
  if (isRecord(part) && part.type === 'text' && typeof part.text === 'string') {
    return part.text === '' ? [] : [{ kind: 'text', text: part.text }];
  }
  if (isRecord(part) && part.type === 'thinking') {
    const dropped: OpenAIContentPiece[] = [];
    const text = thinkingText(part.thinking, dropped);
    return text === null || text === '' ? dropped : [{ kind: 'thinking', text }, ...dropped];
  }
  return [{ kind: 'dropped', partType: partTypeOf(part) }];
}

/**
 * Reads assistant content as pieces, in order: a string is one text piece; an array of typed
 * parts gives text parts as text, `thinking` parts (their `thinking` a string or an array of text
 * parts) as thinking, and anything else as a dropped piece naming its type. Nothing is ever
 * stringified, so an object can never become `"[object Object]"`. Empty text yields nothing.
 */
export function readOpenAIContent(content: unknown): OpenAIContentPiece[] {
  if (content === null || content === undefined) return [];
  if (typeof content === 'string') return content === '' ? [] : [{ kind: 'text', text: content }];
  // a lone part object is read as an array of one
  const parts: readonly unknown[] = Array.isArray(content) ? content : [content];
  return parts.flatMap(readPart);
}

/** Logs the `block_dropped` WARN for a content part the canonical format cannot hold. */
export function warnContentPartDropped(
  logger: Logger,
  provider: string,
  partType: string,
  streamed = false,
): void {
  logger.warn(
    {
      event: 'block_dropped',
      adapter: provider,
      block_type: partType,
      reason: 'no canonical block for this content part type',
    },
    `dropped a${streamed ? ' streamed' : ''} "${partType}" content part from the reply: the canonical format has no such block`,
  );
}

/**
 * Assistant content as canonical blocks: adjacent text pieces joined into one text block,
 * thinking as unsigned thinking blocks, other parts dropped with a WARN (`block_dropped`).
 */
export function decodeOpenAIContent(
  content: unknown,
  logger: Logger = silentLogger,
  provider = OPENAI,
): ContentBlock[] {
  const blocks: ContentBlock[] = [];
  for (const piece of readOpenAIContent(content)) {
    const last = blocks.at(-1);
    if (piece.kind === 'dropped') warnContentPartDropped(logger, provider, piece.partType);
    else if (piece.kind === 'thinking') blocks.push({ type: 'thinking', text: piece.text });
    else if (last?.type === 'text')
      blocks[blocks.length - 1] = { ...last, text: last.text + piece.text };
    else blocks.push({ type: 'text', text: piece.text });
  }
  return blocks;
}

import {
  type ContentBlock,
  CURRENT_SCHEMA_VERSION,
  type Message,
  type ToolResultContentBlock,
} from '@yourtool/core';

/**
 * What a bound is measured with: an adapter's input-token estimate (decision 0155). `estimator`
 * identifies it in the caches (the adapter object; one shared object for routing's estimate).
 */
export interface ResultEstimator {
  readonly estimator: object;
  /** The estimate of a request holding `messages` alone (no tools, no system prompt). */
  estimate(messages: readonly Message[]): number;
}

/** Why a result was cut: its own limit, or the share of the window all results get together. */
export type CutReason = 'result_limit' | 'context_share';

/** How a limit is described in the marker the model reads. */
export interface CutLimit {
  reason: CutReason;
  /** The tokens the result was allowed. */
  tokens: number;
  /** The limit that applied: the one-result limit, or the share's total. */
  limit_tokens: number;
  /** For `context_share`: the share of the window and the model. */
  share?: { ratio: number; context_window: number; model: string };
}

/** A result's content once cut, and what was left out. */
export interface CutContent {
  content: ToolResultContentBlock[];
  kept_tokens: number;
  original_tokens: number;
  original_characters: number;
  left_out_characters: number;
  left_out_tokens: number;
  left_out_images: number;
}

/** Tokens kept aside for the marker itself. */
const MARKER_TOKENS = 64;
/** Less text than this is not worth keeping beside a marker: that end is left out whole. */
const MIN_KEPT_TEXT_TOKENS = 32;
/** The share of a cut text's room kept from its start; the rest is kept from its end. */
const HEAD_SHARE = 0.75;

/** A message that only carries blocks to an estimator (never stored or sent). */
const PROBE: Message = {
  id: 'msg_00000000000000000000000000',
  session_id: 'ses_00000000000000000000000000',
  role: 'user',
  content: [],
  metadata: { status: 'complete' },
  created_at: '2026-01-01T00:00:00.000000Z',
  schema_version: CURRENT_SCHEMA_VERSION,
};

/** The estimator's tokens for each of `blocks`, as a message of its own less the empty one. */
export function blockTokens(by: ResultEstimator, blocks: readonly ContentBlock[]): number[] {
  const base = by.estimate([PROBE]);
  return blocks.map((block) => Math.max(0, by.estimate([{ ...PROBE, content: [block] }]) - base));
}

const textTokens = (by: ResultEstimator, text: string): number =>
  blockTokens(by, [{ type: 'text', text }])[0] as number;

const count = (n: number): string => n.toLocaleString('en-US');

/** The marker the model reads where a result was cut: what was left out, how much, and why. */
export function markerText(cut: Omit<CutContent, 'content' | 'kept_tokens'>, limit: CutLimit) {
  const what: string[] = [];
  if (cut.left_out_characters > 0) {
    what.push(`${count(cut.left_out_characters)} characters`);
  }
  if (cut.left_out_images > 0) {
    what.push(cut.left_out_images === 1 ? '1 image' : `${count(cut.left_out_images)} images`);
  }
  const why =
    limit.reason === 'result_limit'
      ? `it exceeded the ${count(limit.limit_tokens)}-token limit for one result`
      : `the tool results of one request may take ${count(limit.limit_tokens)} tokens together (${Math.round((limit.share?.ratio ?? 0) * 100)}% of ${limit.share?.model ?? 'the model'}'s ${count(limit.share?.context_window ?? 0)}-token context window), newer results first`;
  return `[… ${what.join(' and ')} (about ${count(cut.left_out_tokens)} tokens) of this tool result were left out: ${why}]`;
}

const isHighSurrogate = (code: number): boolean => code >= 0xd800 && code <= 0xdbff;
const isLowSurrogate = (code: number): boolean => code >= 0xdc00 && code <= 0xdfff;

/** How far into `text` to cut so that at most `room` tokens are kept (a line end preferred). */
function cutPoint(by: ResultEstimator, text: string, room: number, tokens: number): number {
  let at = Math.floor((text.length * room) / Math.max(1, tokens));
  for (let tries = 0; tries < 8 && at > 0; tries++) {
    // never between the two halves of a surrogate pair
    if (isHighSurrogate(text.charCodeAt(at - 1))) at--;
    const kept = textTokens(by, text.slice(0, at));
    if (kept <= room) break;
    at = Math.floor(at * (room / kept) * 0.97);
  }
  if (at > 0 && isHighSurrogate(text.charCodeAt(at - 1))) at--;
  const lineEnd = text.lastIndexOf('\n', at);
  return lineEnd > at * 0.9 ? lineEnd : Math.max(0, at);
}

/** Where the kept end of `text` starts so that at most `room` tokens are kept (a line start preferred). */
function tailPoint(by: ResultEstimator, text: string, room: number, tokens: number): number {
  let at = text.length - Math.floor((text.length * room) / Math.max(1, tokens));
  for (let tries = 0; tries < 8 && at < text.length; tries++) {
    // never between the two halves of a surrogate pair
    if (isLowSurrogate(text.charCodeAt(at))) at++;
    const kept = textTokens(by, text.slice(at));
    if (kept <= room) break;
    at = text.length - Math.floor((text.length - at) * (room / kept) * 0.97);
  }
  if (at < text.length && isLowSurrogate(text.charCodeAt(at))) at++;
  const lineStart = text.indexOf('\n', at);
  const length = text.length - at;
  return lineStart >= 0 && lineStart + 1 - at < length * 0.1
    ? lineStart + 1
    : Math.min(at, text.length);
}

/** A text cut to `room` tokens: its start and its end kept, the middle left out. */
function cutText(by: ResultEstimator, text: string, room: number, tokens: number) {
  const headRoom = Math.floor(room * HEAD_SHARE);
  const head = headRoom >= MIN_KEPT_TEXT_TOKENS ? cutPoint(by, text, headRoom, tokens) : 0;
  const tailRoom = room - headRoom;
  const tail = Math.max(
    head,
    tailRoom >= MIN_KEPT_TEXT_TOKENS ? tailPoint(by, text, tailRoom, tokens) : text.length,
  );
  const start = text.slice(0, head);
  const end = text.slice(tail);
  const kept = (start ? textTokens(by, start) : 0) + (end ? textTokens(by, end) : 0);
  return { start, end, left_out: tail - head, kept };
}

/**
 * `parts` (a tool result's content, with each part's tokens) cut to `limit.tokens`: parts are
 * kept in order while they fit; the first that does not is cut if it is text (its start and
 * its end kept, the marker between them) or left out if it is an image, and every part after
 * it is left out. The marker, saying what was left out and why, follows the last part kept
 * from the start.
 */
export function cutResultContent(
  by: ResultEstimator,
  parts: readonly ToolResultContentBlock[],
  tokens: readonly number[],
  limit: CutLimit,
): CutContent {
  let room = Math.max(0, limit.tokens - MARKER_TOKENS);
  const content: ToolResultContentBlock[] = [];
  const cut = {
    kept_tokens: 0,
    original_tokens: tokens.reduce((sum, t) => sum + t, 0),
    original_characters: 0,
    left_out_characters: 0,
    left_out_tokens: 0,
    left_out_images: 0,
  };
  let ended = false;
  let end: ToolResultContentBlock | null = null;
  parts.forEach((part, i) => {
    const own = tokens[i] as number;
    if (part.type === 'text') cut.original_characters += part.text.length;
    if (!ended && own <= room) {
      content.push(part);
      room -= own;
      cut.kept_tokens += own;
      return;
    }
    ended = true;
    if (part.type !== 'text') {
      cut.left_out_images++;
      cut.left_out_tokens += own;
      return;
    }
    const kept = cutText(by, part.text, room, own);
    if (kept.start) content.push({ ...part, text: kept.start });
    if (kept.end) end = { ...part, text: kept.end };
    room = Math.max(0, room - kept.kept);
    cut.kept_tokens += kept.kept;
    cut.left_out_characters += kept.left_out;
    cut.left_out_tokens += Math.max(0, own - kept.kept);
  });
  const marker = markerText(cut, limit);
  content.push({ type: 'text', text: marker });
  if (end) content.push(end);
  cut.kept_tokens += textTokens(by, marker);
  return { content, ...cut };
}

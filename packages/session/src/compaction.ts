import {
  type ContentBlock,
  type ContextLimit,
  type Message,
  type SessionRecord,
  YourtoolError,
} from '@yourtool/core';
import { estimateTextTokens } from '@yourtool/core/adapter';

/**
 * What `metadata.compaction` of a stored summary message records (docs/decisions/0101). The summary
 * is a `system` message: every adapter hoists system text into the provider's system prompt,
 * so it fits any provider's role rules.
 */
export interface CompactionRecord {
  /**
   * Id of the last stored message the summary replaces. Messages stored up to and including it
   * stay stored (nothing is deleted) but leave the conversation the models see.
   */
  through_message_id: string;
  /** `summarize`, `drop_oldest`, or the name a custom hook gave. */
  strategy: string;
  /** How many messages of the conversation the summary replaced (an earlier summary not counted). */
  replaced_messages: number;
  /** What made the session compact: routing found the history too long for every model that fits otherwise, or a provider refused it as too long. */
  reason: CompactionReason;
  /** The model whose context window the compaction made room for. */
  target_model: string;
  /** The target adapter's estimate of the request's input tokens before and after. */
  tokens_before: number;
  tokens_after: number;
}

/** Why a session compacted its history. */
export type CompactionReason = 'context_window' | 'context_overflow';

/** The compaction record of a stored summary message, or null for any other message. */
export function compactionOf(message: Message): CompactionRecord | null {
  if (message.role !== 'system') return null;
  const record = (message.metadata as Record<string, unknown>).compaction;
  if (!record || typeof record !== 'object') return null;
  const through = (record as { through_message_id?: unknown }).through_message_id;
  return typeof through === 'string' && through ? (record as CompactionRecord) : null;
}

/**
 * The conversation a session's stored messages amount to once compacted: the latest summary
 * first, then every message stored after the one it replaces through (older summaries left
 * out). Without a summary, the messages as they are. When the latest summary's
 * `through_message_id` is not among the messages before it, the whole history is kept, that
 * summary where it stands and older ones left out: nothing is hidden by a record that does not
 * make sense.
 */
export function compactedConversation(messages: readonly Message[]): Message[] {
  let latest = -1;
  for (let i = messages.length - 1; i >= 0; i--) {
    if (compactionOf(messages[i] as Message)) {
      latest = i;
      break;
    }
  }
  if (latest < 0) return [...messages];
  const summary = messages[latest] as Message;
  const through = (compactionOf(summary) as CompactionRecord).through_message_id;
  const cut = messages.findIndex((m) => m.id === through);
  if (cut < 0 || cut > latest) return messages.filter((m) => m === summary || !compactionOf(m));
  const kept: Message[] = [summary];
  for (let i = cut + 1; i < messages.length; i++) {
    const message = messages[i] as Message;
    if (message !== summary && !compactionOf(message)) kept.push(message);
  }
  return kept;
}

/** A model call a compaction hook may make (for a summary): no tools, one user prompt. */
export interface CompactionCall {
  /** A configured model name or alias (routed as an explicit choice: strict rules apply). */
  model: string;
  system_prompt: string;
  prompt: string;
  max_output_tokens: number;
}

/** What a {@link CompactionHook} is given. */
export interface CompactionRequest {
  session: SessionRecord;
  /**
   * The conversation as the model would see it: an earlier summary first (if any), then the
   * messages after it, the turn's messages last.
   */
  messages: readonly Message[];
  /**
   * Index in `messages` of the current turn's user message. Only messages before it may be
   * replaced: the turn's own messages (and its tool calls with their results) stay.
   */
  turn_start: number;
  reason: CompactionReason;
  /** The model to make room for, and the window its history overshoots. */
  target: { model: string } & ContextLimit;
  /**
   * The target adapter's estimate of the input tokens of a request holding `messages` with the
   * turn's tools and system prompt (an empty list gives the fixed part).
   */
  estimateTokens(messages: readonly Message[]): number;
  /** Context window and output limit of a configured model (name or alias). */
  limitsOf(model: string): { context_window: number; max_output_tokens: number };
  /**
   * Calls a model once and returns its text. The call is routed, priced and its usage recorded
   * on the summary message; it ends when `signal` aborts.
   */
  complete(call: CompactionCall): Promise<string>;
  /** The turn's signal. */
  signal: AbortSignal;
}

/** What a {@link CompactionHook} decided. */
export interface CompactionResult {
  /**
   * Id of the last message of `request.messages` to replace; it must come before
   * `turn_start` and be followed by a user message (a turn boundary, so tool calls keep their
   * results).
   */
  through_message_id: string;
  /** The text of the stored summary message. */
  summary: string;
  /** A name for the strategy, stored in the record. */
  strategy: string;
}

/**
 * Shortens a history that does not fit a model, so a long session can go on instead of being
 * refused: returns which older messages to replace and the summary text that stands for them,
 * or null when it cannot help (the turn then fails as it would have without a hook).
 */
export type CompactionHook = (
  request: CompactionRequest,
) => CompactionResult | null | Promise<CompactionResult | null>;

/** Thrown when a compaction hook fails or returns something the session cannot apply. */
export class CompactionError extends YourtoolError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('compaction_failed', message, options);
  }
}

/** Options shared by the built-in hooks. */
export interface CompactionPlanOptions {
  /**
   * After compaction the request should take at most this share of what the target's window
   * leaves beside the turn's output (default 0.5), so the next turns do not compact again at
   * once. When no cut reaches it, the largest cut that fits at all is taken.
   */
  targetRatio?: number;
}

/** Options of {@link summarizeOlderTurns}. */
export interface SummarizeOlderTurnsOptions extends CompactionPlanOptions {
  /** The model that writes the summary (name or alias), e.g. a small, cheap one. */
  model: string;
  /** Output limit of each summary call (default 1024). */
  maxSummaryTokens?: number;
  /** Instructions to the summarizer, replacing the default ones. */
  instructions?: string;
}

const DEFAULT_INSTRUCTIONS =
  'You compress the earlier part of a conversation between a user and an AI assistant so the ' +
  'assistant can continue it without the original messages. Keep facts, decisions, names, file ' +
  'paths, numbers, open questions and what tools returned that still matters. Write plain ' +
  'prose and short lists, in the conversation\u2019s language; no preamble.';

/** Tool results and long texts in a transcript are cut to this many characters. */
const TRANSCRIPT_TEXT_LIMIT = 4000;

/**
 * A hook that replaces the oldest whole turns with a summary written by `options.model`.
 * Turns are cut at user messages, so a tool call and its result are always replaced together;
 * the current turn is never replaced. An earlier summary is summarized with them. When the
 * replaced part is larger than the summarizer's window it is summarized in pieces, each
 * summary carried into the next call.
 */
export function summarizeOlderTurns(options: SummarizeOlderTurnsOptions): CompactionHook {
  const maxSummaryTokens = options.maxSummaryTokens ?? 1024;
  return async (request) => {
    const cut = planCut(request, maxSummaryTokens + 64, options.targetRatio);
    if (cut === null) return null;
    const replaced = request.messages.slice(0, cut);
    const limits = request.limitsOf(options.model);
    const instructions = options.instructions ?? DEFAULT_INSTRUCTIONS;
    const outputTokens = Math.min(maxSummaryTokens, limits.max_output_tokens);
    // room for one piece: the window less the instructions, the summary carried in and the reply
    const pieceBudget = Math.max(
      256,
      limits.context_window - estimateTextTokens(instructions) - 2 * outputTokens - 256,
    );
    let summary = '';
    for (const piece of transcriptPieces(replaced, pieceBudget)) {
      const prompt = summary
        ? `Summary of the conversation so far:\n${summary}\n\nHow it went on:\n${piece}\n\nWrite the summary of all of it.`
        : `The conversation:\n${piece}\n\nWrite its summary.`;
      summary = (
        await request.complete({
          model: options.model,
          system_prompt: instructions,
          prompt,
          max_output_tokens: outputTokens,
        })
      ).trim();
    }
    if (!summary) throw new CompactionError(`${options.model} wrote an empty summary`);
    return {
      through_message_id: (replaced.at(-1) as Message).id,
      summary: `Summary of the earlier conversation (${replaced.length} messages, compacted to fit the context window):\n\n${summary}`,
      strategy: 'summarize',
    };
  };
}

/**
 * A hook that drops the oldest whole turns, as few as it takes (tool calls keep their results:
 * turns are cut at user messages; the current turn is never dropped). The stored summary
 * message says how many messages were dropped, and carries an earlier summary's text forward.
 */
export function dropOldestTurns(options: CompactionPlanOptions = {}): CompactionHook {
  return (request) => {
    const first = request.messages[0];
    const carried = first && compactionOf(first) ? textOf(first) : '';
    const cut = planCut(request, estimateTextTokens(carried) + 64, options.targetRatio);
    if (cut === null) return null;
    const replaced = request.messages.slice(0, cut);
    const dropped = replaced.filter((m) => !compactionOf(m)).length;
    const note = `${dropped} earlier messages of this conversation were removed to fit the context window.`;
    return {
      through_message_id: (replaced.at(-1) as Message).id,
      summary: carried ? `${carried}\n\n${note}` : note,
      strategy: 'drop_oldest',
    };
  };
}

/**
 * Where to cut: the index of the first message to keep (a user message, at or before
 * `turn_start`), the fewest messages replaced that bring the estimate under
 * `targetRatio` of the budget; else the largest cut that fits at all; null if none does.
 */
function planCut(
  request: CompactionRequest,
  reserveTokens: number,
  targetRatio = 0.5,
): number | null {
  const { messages, turn_start: turnStart, target } = request;
  const budget = target.context_window - target.max_output_tokens;
  // a provider refused what the estimate let through: the estimate undercounts, aim lower
  const ratio = request.reason === 'context_overflow' ? targetRatio / 2 : targetRatio;
  const base = request.estimateTokens([]);
  const suffix = new Array<number>(messages.length + 1).fill(0);
  for (let i = messages.length - 1; i >= 0; i--) {
    const own = Math.max(0, request.estimateTokens([messages[i] as Message]) - base);
    suffix[i] = (suffix[i + 1] as number) + own;
  }
  const cuts: number[] = [];
  for (let i = 1; i <= turnStart && i < messages.length; i++) {
    if ((messages[i] as Message).role === 'user') cuts.push(i);
  }
  const after = (cut: number) => base + (suffix[cut] as number) + reserveTokens;
  for (const cut of cuts) if (after(cut) <= ratio * budget) return cut;
  const last = cuts.at(-1);
  return last !== undefined && after(last) <= budget ? last : null;
}

/** The replaced messages as a plain transcript, in pieces of at most `budget` tokens. */
function transcriptPieces(messages: readonly Message[], budget: number): string[] {
  const pieces: string[] = [];
  let current: string[] = [];
  let tokens = 0;
  const maxChars = budget * 3;
  for (const message of messages) {
    let line = transcriptLine(message);
    if (!line) continue;
    if (line.length > maxChars) line = `${line.slice(0, maxChars)} [cut]`;
    const cost = estimateTextTokens(line);
    if (tokens + cost > budget && current.length > 0) {
      pieces.push(current.join('\n\n'));
      current = [];
      tokens = 0;
    }
    current.push(line);
    tokens += cost;
  }
  if (current.length > 0) pieces.push(current.join('\n\n'));
  return pieces;
}

function transcriptLine(message: Message): string {
  if (compactionOf(message)) return `[Earlier summary]\n${textOf(message)}`;
  const parts = message.content.map((block) => blockText(block)).filter(Boolean);
  if (parts.length === 0) return '';
  const who =
    message.role === 'user'
      ? 'User'
      : message.role === 'assistant'
        ? 'Assistant'
        : message.role === 'tool'
          ? 'Tool'
          : 'System';
  return `${who}: ${parts.join('\n')}`;
}

function blockText(block: ContentBlock): string {
  switch (block.type) {
    case 'text':
      return clip(block.text);
    case 'image':
      return '[an image]';
    case 'tool_use':
      return `[called ${block.name} with ${clip(JSON.stringify(block.input))}]`;
    case 'tool_result': {
      const text = block.content
        .map((inner) => (inner.type === 'text' ? inner.text : '[an image]'))
        .join('\n');
      return `[${block.is_error ? 'tool error' : 'tool result'}: ${clip(text)}]`;
    }
    default:
      // thinking is the model's own scratch space: not part of what the summary keeps
      return '';
  }
}

const clip = (text: string): string =>
  text.length > TRANSCRIPT_TEXT_LIMIT ? `${text.slice(0, TRANSCRIPT_TEXT_LIMIT)} [cut]` : text;

const textOf = (message: Message): string =>
  message.content.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('\n');

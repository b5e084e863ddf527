import {
  isSealedMessage,
  type Logger,
  type Message,
  type ToolResultBlock,
  type ToolResultContentBlock,
} from '@yourtool/core';
import { type PrefixStep, SealedPrefixMemo } from '@yourtool/core/adapter';
import {
  blockTokens,
  type CutContent,
  type CutLimit,
  cutResultContent,
  type ResultEstimator,
} from './tool-result-cut.js';

/** A manager's tool-result limits with their defaults filled in (decision 0155). */
export interface ResolvedToolResultLimits {
  /** Tokens one result may take in a request. */
  readonly maxTokens: number;
  /** Share of the target's context window all results of one request may take together. */
  readonly maxShareOfContext: number;
  /** `maxTokens` of single tools, by tool name. */
  readonly perTool: Readonly<Record<string, number>>;
}

/** What a projection is made for: the estimator, and the window the share is taken of. */
export interface BoundTarget extends ResultEstimator {
  /** The target model, named in the marker and the WARN. */
  readonly model: string;
  /** The target's context window; null applies the one-result limits alone (routing's pass). */
  readonly context_window: number | null;
}

/** Where a projection reports the results it cut (`tool_result_truncated` WARNs). */
export interface BoundReport {
  readonly logger: Logger;
  readonly session_id: string;
}

/** One tool result of the history, with its size by the target's estimator. */
interface Found {
  message: number;
  block: number;
  result: ToolResultBlock;
  tokens: number[];
  total: number;
}

/** The size of each part of a sealed message's results, per estimator (sealed: cannot change). */
const sizes = new WeakMap<Message, Map<object, Array<number[] | null>>>();
/** Cuts made of a sealed message's results, per estimator, block and allowed tokens. */
const cuts = new WeakMap<Message, Map<string, CutContent>>();
/** Estimators told apart in the cut cache's keys. */
const estimatorIds = new WeakMap<object, number>();
let nextEstimatorId = 0;

function estimatorId(estimator: object): number {
  let id = estimatorIds.get(estimator);
  if (id === undefined) {
    id = nextEstimatorId++;
    estimatorIds.set(estimator, id);
  }
  return id;
}

/** The tokens of each part of each tool result block of `message` (null for other blocks). */
function partSizes(message: Message, by: ResultEstimator): Array<number[] | null> {
  const sealed = isSealedMessage(message);
  const known = sealed ? sizes.get(message)?.get(by.estimator) : undefined;
  if (known) return known;
  const measured = message.content.map((block) =>
    block.type === 'tool_result' ? blockTokens(by, block.content) : null,
  );
  if (sealed) {
    const perEstimator = sizes.get(message) ?? new Map<object, Array<number[] | null>>();
    perEstimator.set(by.estimator, measured);
    sizes.set(message, perEstimator);
  }
  return measured;
}

/** Whether `message` holds a tool result block. */
function holdsToolResult(message: Message): boolean {
  const { content } = message;
  for (let b = 0; b < content.length; b++) if (content[b]?.type === 'tool_result') return true;
  return false;
}

/**
 * Where the tool results of a history's sealed messages are: their indices, per history. A
 * fact about the sealed messages alone, so it sits in this module (bound: core's memo, per
 * history held weakly by its first message). It runs for each call's route and request, and
 * most messages hold no tool result: the sealed ones are not looked at again.
 */
const sealedResultIndices = new SealedPrefixMemo<number[]>(() => []);
const noteToolResult: PrefixStep<number[]> = (indices, message, index) => {
  if (holdsToolResult(message)) indices.push(index);
};

/** Every tool result block of `messages`, in order, with its size. */
function toolResults(messages: readonly Message[], by: ResultEstimator): Found[] {
  const found: Found[] = [];
  const sealed = sealedResultIndices.run(messages, noteToolResult);
  for (const m of sealed.state) addToolResults(found, messages, m, by);
  for (let m = sealed.end; m < messages.length; m++) {
    if (holdsToolResult(messages[m] as Message)) addToolResults(found, messages, m, by);
  }
  return found;
}

/** Adds the tool result blocks of `messages[m]` to `found`, with their sizes. */
function addToolResults(
  found: Found[],
  messages: readonly Message[],
  m: number,
  by: ResultEstimator,
): void {
  const message = messages[m] as Message;
  const measured = partSizes(message, by);
  message.content.forEach((result, b) => {
    const tokens = measured[b];
    if (result.type !== 'tool_result' || !tokens) return;
    found.push({
      message: m,
      block: b,
      result,
      tokens,
      total: tokens.reduce((s, t) => s + t, 0),
    });
  });
}

/** The tool names of the history's tool uses, by tool use id. */
function toolNames(messages: readonly Message[]): Map<string, string> {
  const names = new Map<string, string>();
  for (const message of messages) {
    if (message.role !== 'assistant') continue;
    for (const block of message.content) {
      if (block.type === 'tool_use') names.set(block.id, block.name);
    }
  }
  return names;
}

/** How many tokens each result is allowed: its own limit, then the share, newest first. */
function allowances(
  found: readonly Found[],
  limits: ResolvedToolResultLimits,
  target: BoundTarget,
  nameOf: (id: string) => string,
): Array<CutLimit | null> {
  const share =
    target.context_window === null
      ? Number.POSITIVE_INFINITY
      : Math.floor(limits.maxShareOfContext * target.context_window);
  let left = share;
  const allowed = new Array<CutLimit | null>(found.length).fill(null);
  for (let i = found.length - 1; i >= 0; i--) {
    const { result, total } = found[i] as Found;
    const own = limits.perTool[nameOf(result.tool_use_id)] ?? limits.maxTokens;
    const tokens = Math.min(total, own, left);
    left -= tokens;
    if (tokens >= total) continue;
    allowed[i] =
      tokens < Math.min(total, own) && target.context_window !== null
        ? {
            reason: 'context_share',
            tokens,
            limit_tokens: share,
            share: {
              ratio: limits.maxShareOfContext,
              context_window: target.context_window,
              model: target.model,
            },
          }
        : { reason: 'result_limit', tokens, limit_tokens: own };
  }
  return allowed;
}

/** A result's cut, remembered for a sealed message; `fresh` when made by this call. */
function cutOf(
  message: Message,
  found: Found,
  limit: CutLimit,
  by: ResultEstimator,
): { cut: CutContent; fresh: boolean } {
  const key = `${estimatorId(by.estimator)}:${found.block}:${limit.reason}:${limit.tokens}`;
  const sealed = isSealedMessage(message);
  const known = sealed ? cuts.get(message)?.get(key) : undefined;
  if (known) return { cut: known, fresh: false };
  const parts: readonly ToolResultContentBlock[] = found.result.content;
  const cut = cutResultContent(by, parts, found.tokens, limit);
  if (sealed) {
    const perMessage = cuts.get(message) ?? new Map<string, CutContent>();
    perMessage.set(key, cut);
    cuts.set(message, perMessage);
  }
  return { cut, fresh: true };
}

function warnCut(report: BoundReport, target: BoundTarget, detail: WarnDetail): void {
  const { cut, limit } = detail;
  report.logger.warn(
    {
      event: 'tool_result_truncated',
      session_id: report.session_id,
      model: target.model,
      tool_name: detail.tool_name,
      tool_use_id: detail.tool_use_id,
      reason: limit.reason,
      limit_tokens: limit.limit_tokens,
      original_tokens: cut.original_tokens,
      original_characters: cut.original_characters,
      kept_tokens: cut.kept_tokens,
      left_out_characters: cut.left_out_characters,
      left_out_tokens: cut.left_out_tokens,
      left_out_images: cut.left_out_images,
    },
    `the result of ${detail.tool_name} (${detail.tool_use_id}) was cut from about ${cut.original_tokens} to ${cut.kept_tokens} tokens for ${target.model} (${leftOut(cut)} left out); the stored result is whole`,
  );
}

/** What a cut left out, in words: `5188704 characters and 2 images`. */
function leftOut(cut: CutContent): string {
  const parts = [`${cut.left_out_characters} characters`];
  if (cut.left_out_images > 0) parts.push(`${cut.left_out_images} images`);
  return parts.join(' and ');
}

interface WarnDetail {
  tool_name: string;
  tool_use_id: string;
  cut: CutContent;
  limit: CutLimit;
}

/**
 * What `target` receives of the history's tool results (decision 0155): each result at most
 * its tool's limit (`perTool`, else `maxTokens`), and all of them together at most
 * `maxShareOfContext` of the target's window, newer results first; text beyond is cut and
 * images left out, with a marker saying what and how much. A projection, like core's history
 * repairs: the messages given are not changed; a message with a cut result is replaced by an
 * unsealed copy (so the sealed-message caches of the original stay right), the others are the
 * same objects. Each cut is reported once per result, estimator and allowance (a
 * `tool_result_truncated` WARN) when `report` is given.
 */
export function boundToolResults(
  messages: readonly Message[],
  limits: ResolvedToolResultLimits,
  target: BoundTarget,
  report: BoundReport | null,
): Message[] {
  const found = toolResults(messages, target);
  if (found.length === 0) return [...messages];
  let names: Map<string, string> | null = null;
  const nameOf = (id: string) => {
    names ??= toolNames(messages);
    return names.get(id) ?? 'an unknown tool';
  };
  const allowed = allowances(found, limits, target, nameOf);
  const replaced = new Map<number, Map<number, ToolResultContentBlock[]>>();
  found.forEach((result, i) => {
    const limit = allowed[i];
    if (!limit) return;
    const message = messages[result.message] as Message;
    const { cut, fresh } = cutOf(message, result, limit, target);
    const blocks = replaced.get(result.message) ?? new Map<number, ToolResultContentBlock[]>();
    blocks.set(result.block, cut.content);
    replaced.set(result.message, blocks);
    if (fresh && report) {
      const tool_use_id = result.result.tool_use_id;
      warnCut(report, target, { tool_name: nameOf(tool_use_id), tool_use_id, cut, limit });
    }
  });
  return messages.map((message, m) => {
    const blocks = replaced.get(m);
    if (!blocks) return message;
    return {
      ...message,
      content: message.content.map((block, b) => {
        const content = blocks.get(b);
        return content && block.type === 'tool_result' ? { ...block, content } : block;
      }),
    };
  });
}

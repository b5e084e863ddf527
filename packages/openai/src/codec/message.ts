import {
  type ContentBlock,
  type Logger,
  newToolUseId,
  silentLogger,
  type ToolIdMap,
} from '@yourtool/core';
import type OpenAI from 'openai';
import { decodeOpenAIContent, type OpenAIReplyContent } from './content-parts.js';
import { OPENAI } from './request.js';
import { cutAtStopSequence } from './stop-sequence.js';

/**
 * Parses a tool call's `arguments` string into the canonical input object: empty arguments are
 * `{}`; arguments that are not a JSON object become `{}` with a WARN.
 */
export function parseToolArguments(
  raw: string | null | undefined,
  logger: Logger = silentLogger,
  context: Record<string, unknown> = {},
): Record<string, unknown> {
  if (raw === undefined || raw === null || raw.trim() === '') return {};
  try {
    const parsed: unknown = JSON.parse(raw);
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) {
      return parsed as Record<string, unknown>;
    }
    logger.warn(
      { event: 'tool_input_invalid', raw_length: raw.length, ...context },
      'tool arguments are not a JSON object; using {}',
    );
  } catch {
    logger.warn(
      { event: 'tool_input_invalid', raw_length: raw.length, ...context },
      'tool arguments are not valid JSON; using {}',
    );
  }
  return {};
}

/** Options of {@link decodeOpenAIMessage}. */
export interface DecodeOpenAIMessageOptions {
  /** Provider key of the tool id map. Default `openai`. */
  provider?: string;
  logger?: Logger;
  /** Stop sequences the adapter emulates for this request. */
  emulatedStopSequences?: readonly string[];
}

/** A decoded assistant message, and whether an emulated stop sequence cut it. */
export interface DecodedOpenAIMessage {
  content: ContentBlock[];
  /** The emulated stop sequence that cut the reply, if one did. */
  stopSequence: string | null;
  /**
   * The message's `refusal` text, when it has one (it is also text in `content`, after the
   * message's own text): the model declined, and the stop reason is `refusal`.
   */
  refusal?: string;
}

/** An assistant message as the wire may send it: `content` a string or an array of typed parts. */
export type OpenAIMessageLike = Pick<OpenAI.ChatCompletionMessage, 'refusal' | 'tool_calls'> & {
  content: OpenAIReplyContent;
};

/**
 * Cuts decoded content at the first emulated stop sequence found in its text blocks: the text
 * before it is kept and every block after it is discarded, as a real stop would have.
 */
function cutContent(
  blocks: ContentBlock[],
  sequences: readonly string[],
): { content: ContentBlock[]; matched: string | null } {
  if (sequences.length === 0) return { content: blocks, matched: null };
  const content: ContentBlock[] = [];
  for (const block of blocks) {
    if (block.type !== 'text') {
      content.push(block);
      continue;
    }
    const cut = cutAtStopSequence(block.text, sequences);
    if (cut.text !== '') content.push({ type: 'text', text: cut.text });
    if (cut.matched !== null) return { content, matched: cut.matched };
  }
  return { content, matched: null };
}

/** Appends text to the content, joining it to a text block that ends it. */
function appendText(content: ContentBlock[], text: string): void {
  if (text === '') return;
  const last = content.at(-1);
  if (last?.type === 'text') content[content.length - 1] = { ...last, text: last.text + text };
  else content.push({ type: 'text', text });
}

/**
 * A reply's tool call as a canonical tool use, or `null` (dropped with a WARN) when it is not a
 * function call. A call without `type` but with a `function` object is a function call: some
 * compatible servers leave the type out, as streamed deltas may.
 */
function decodeToolCall(
  call: OpenAI.ChatCompletionMessageToolCall,
  toolIdMap: ToolIdMap,
  provider: string,
  logger: Logger,
): ContentBlock | null {
  const loose = call as {
    type?: string | null;
    function?: OpenAI.ChatCompletionMessageFunctionToolCall.Function | null;
  };
  const isFunction = loose.type === 'function' || (loose.type == null && loose.function != null);
  if (!isFunction || !loose.function) {
    const kind = loose.type ?? 'untyped';
    logger.warn(
      {
        event: 'block_dropped',
        adapter: provider,
        block_type: `${kind}_tool_call`,
        reason: 'no canonical block for it',
      },
      `dropped a ${kind} tool call from the reply: the canonical format has no such block`,
    );
    return null;
  }
  const fn = loose.function;
  return {
    type: 'tool_use',
    id: call.id ? toolIdMap.toCanonical(provider, call.id) : newToolUseId(),
    name: fn.name,
    input: parseToolArguments(fn.arguments, logger, { adapter: provider, tool_name: fn.name }),
  };
}

/**
 * Decodes a Chat Completions assistant message: its content (a string, or typed parts: text,
 * thinking as unsigned thinking, other parts dropped with a WARN), then its `refusal` as text
 * (so a replay shows what the assistant said) also returned as `refusal`, then its function
 * tool calls with canonical ids linked to the provider's in the map and `arguments` parsed.
 * Custom (free-form) tool calls have no canonical block and are dropped with a WARN. With
 * emulated stop sequences, the content is cut at the first one and everything after it (the
 * refusal and tool calls included) is discarded, as a real stop would have.
 */
export function decodeOpenAIMessage(
  message: OpenAIMessageLike,
  toolIdMap: ToolIdMap,
  options: DecodeOpenAIMessageOptions = {},
): DecodedOpenAIMessage {
  const provider = options.provider ?? OPENAI;
  const logger = options.logger ?? silentLogger;
  const decoded = decodeOpenAIContent(message.content, logger, provider);
  const { content, matched } = cutContent(decoded, options.emulatedStopSequences ?? []);
  if (matched !== null) return { content, stopSequence: matched };
  const refusal =
    typeof message.refusal === 'string' && message.refusal !== '' ? message.refusal : null;
  if (refusal !== null) appendText(content, refusal);
  for (const call of message.tool_calls ?? []) {
    const block = decodeToolCall(call, toolIdMap, provider, logger);
    if (block) content.push(block);
  }
  return { content, stopSequence: null, ...(refusal !== null ? { refusal } : {}) };
}

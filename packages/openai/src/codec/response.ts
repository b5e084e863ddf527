import {
  type ContentBlock,
  type Logger,
  newToolUseId,
  type StopReason,
  silentLogger,
  type TokenUsage,
  type ToolIdMap,
} from '@yourtool/core';
import type OpenAI from 'openai';
import { OPENAI } from './request.js';

/** The usage counters of a Chat Completions usage object (OpenRouter adds more, ignored here). */
export interface OpenAIUsageLike {
  prompt_tokens?: number | null;
  completion_tokens?: number | null;
  prompt_tokens_details?: { cached_tokens?: number | null } | null;
}

/**
 * Maps Chat Completions usage to canonical token counts (decision 0030): `prompt_tokens`
 * includes the cached tokens, so `input_tokens = prompt_tokens − cached_tokens`,
 * `cached_input_tokens = cached_tokens`, and `cache_creation_input_tokens` is always 0 (OpenAI
 * does not report cache writes).
 */
export function mapOpenAIUsage(usage: OpenAIUsageLike): TokenUsage {
  const prompt = usage.prompt_tokens ?? 0;
  const cached = Math.min(prompt, usage.prompt_tokens_details?.cached_tokens ?? 0);
  return {
    input_tokens: prompt - cached,
    output_tokens: usage.completion_tokens ?? 0,
    cached_input_tokens: cached,
    cache_creation_input_tokens: 0,
  };
}

/** What decides the canonical stop reason besides the provider's `finish_reason`. */
export interface FinishContext {
  /** The reply holds tool calls (they must be answered, whatever the finish reason says). */
  hasToolCalls: boolean;
  /** Stop sequences went out in `stop`. */
  stopSequencesSent: boolean;
  /** The adapter cut the reply at an emulated stop sequence. */
  emulatedStopHit: boolean;
}

/**
 * Maps a Chat Completions `finish_reason` to the canonical stop reason:
 * `length` → `max_tokens`; `tool_calls` (or any other reply holding tool calls) → `tool_use`;
 * `stop` → `stop_sequence` when stop sequences were sent (Chat Completions reports a natural end
 * and a stop-sequence hit alike, decision 0042), else `end_turn`; an emulated stop-sequence hit
 * → `stop_sequence`; `content_filter` and anything else → `end_turn` (the raw value is kept in
 * `provider_raw`).
 */
export function mapOpenAIFinishReason(
  reason: string | null | undefined,
  context: FinishContext,
): StopReason {
  if (context.emulatedStopHit) return 'stop_sequence';
  if (reason === 'length') return 'max_tokens';
  if (context.hasToolCalls) return 'tool_use';
  switch (reason) {
    case 'tool_calls':
    case 'function_call':
      return 'tool_use';
    case 'stop':
      return context.stopSequencesSent ? 'stop_sequence' : 'end_turn';
    default:
      return 'end_turn';
  }
}

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
}

/**
 * Decodes a Chat Completions assistant message: its text (a refusal is kept as text, so the
 * caller sees why nothing else came), then its function tool calls with canonical ids linked to
 * the provider's in the map and `arguments` parsed. Custom (free-form) tool calls have no
 * canonical block and are dropped with a WARN. With emulated stop sequences, the text is cut at
 * the first one and the tool calls after it are discarded, as a real stop would have.
 */
export function decodeOpenAIMessage(
  message: Pick<OpenAI.ChatCompletionMessage, 'content' | 'refusal' | 'tool_calls'>,
  toolIdMap: ToolIdMap,
  options: DecodeOpenAIMessageOptions = {},
): DecodedOpenAIMessage {
  const provider = options.provider ?? OPENAI;
  const logger = options.logger ?? silentLogger;
  const content: ContentBlock[] = [];
  let text = `${message.content ?? ''}${message.refusal ?? ''}`;
  let stopSequence: string | null = null;
  if (options.emulatedStopSequences && options.emulatedStopSequences.length > 0) {
    const cut = cutAtStopSequence(text, options.emulatedStopSequences);
    text = cut.text;
    stopSequence = cut.matched;
  }
  if (text !== '') content.push({ type: 'text', text });
  if (stopSequence !== null) return { content, stopSequence };
  for (const call of message.tool_calls ?? []) {
    if (call.type !== 'function') {
      logger.warn(
        {
          event: 'block_dropped',
          adapter: provider,
          block_type: `${call.type}_tool_call`,
          reason: 'no canonical block for it',
        },
        `dropped a ${call.type} tool call from the reply: the canonical format has no such block`,
      );
      continue;
    }
    content.push({
      type: 'tool_use',
      id: call.id ? toolIdMap.toCanonical(provider, call.id) : newToolUseId(),
      name: call.function.name,
      input: parseToolArguments(call.function.arguments, logger, {
        adapter: provider,
        tool_name: call.function.name,
      }),
    });
  }
  return { content, stopSequence };
}

/** Round-trip data the adapter keeps in `provider_raw` for a reply. */
export function openAIProviderRaw(
  reply: {
    id?: string | null;
    model?: string | null;
    finish_reason?: string | null;
    service_tier?: string | null;
    stop_sequence?: string | null;
  },
  provider = OPENAI,
): Record<string, unknown> {
  return {
    [provider]: {
      id: reply.id ?? null,
      model: reply.model ?? null,
      finish_reason: reply.finish_reason ?? null,
      ...(reply.service_tier ? { service_tier: reply.service_tier } : {}),
      ...(reply.stop_sequence ? { stop_sequence: reply.stop_sequence } : {}),
    },
  };
}

/** A decoded Chat Completions reply. `usage` is `null` when the provider sent none. */
export interface OpenAIResponseDecoding {
  content: ContentBlock[];
  stop_reason: StopReason;
  usage: TokenUsage | null;
  provider_raw: Record<string, unknown>;
}

/** Options of {@link fromOpenAIChatCompletion}. */
export interface FromOpenAIChatCompletionOptions extends DecodeOpenAIMessageOptions {
  /** Stop sequences went out in `stop`. */
  stopSequencesSent?: boolean;
}

/**
 * Decodes a whole Chat Completions reply (its first choice). A reply without choices is an
 * empty `end_turn`.
 */
export function fromOpenAIChatCompletion(
  completion: OpenAI.ChatCompletion,
  toolIdMap: ToolIdMap,
  options: FromOpenAIChatCompletionOptions = {},
): OpenAIResponseDecoding {
  const choice = completion.choices[0];
  const decoded = choice
    ? decodeOpenAIMessage(choice.message, toolIdMap, options)
    : { content: [], stopSequence: null };
  const finish = choice?.finish_reason ?? null;
  return {
    content: decoded.content,
    stop_reason: mapOpenAIFinishReason(finish, {
      hasToolCalls: decoded.content.some((b) => b.type === 'tool_use'),
      stopSequencesSent: options.stopSequencesSent ?? false,
      emulatedStopHit: decoded.stopSequence !== null,
    }),
    usage: completion.usage ? mapOpenAIUsage(completion.usage) : null,
    provider_raw: openAIProviderRaw(
      {
        id: completion.id,
        model: completion.model,
        finish_reason: finish,
        service_tier: completion.service_tier ?? null,
        stop_sequence: decoded.stopSequence,
      },
      options.provider ?? OPENAI,
    ),
  };
}
